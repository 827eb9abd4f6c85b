// Reads a PyTorch profiler (Kineto) trace into Staged columns, in blocks, with simdjson. The reader
// takes only what the JavaScript reader (core/import/scan.ts, pytorch.ts) accepts and stages it
// exactly as that reader does; anything else (malformed JSON, limits passed, values of types whose
// text JavaScript would make, a structure it does not expect) makes it decline, with a reason, and
// the JavaScript reader reads the file instead: it reports the error with its line and column, or
// reads the unusual file. docs/import.md describes the split.
//
// Runs of events are parsed with simdjson's DOM parser, which checks every value as JSON.parse
// does. The On-Demand parser checks only the values it is asked for; checking every value through
// it (walking each one) took half as long again as the DOM parser on the same runs of events.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "byte_source.h"
#include "columns.h"

namespace syncscope::json {

/**
 * Two doubles shared with JavaScript (a Float64Array the caller keeps): [0] the bytes taken from
 * the source so far, which the reader writes after each block; [1] nonzero to stop the read at the
 * next block. Null for neither.
 */
struct ReadControl {
  double *shared = nullptr;
  void progress(double bytes) const {
    if (shared) __atomic_store(&shared[0], &bytes, __ATOMIC_RELAXED);
  }
  bool cancelled() const {
    if (!shared) return false;
    double v;
    __atomic_load(&shared[1], &v, __ATOMIC_RELAXED);
    return v != 0;
  }
};

/** What pytorch.ts's CATEGORY table makes of a Kineto category. */
enum Category : int { kApiCat, kContextCat, kPythonCat, kKernelCat, kMemcpyCat, kMemsetCat, kSync, kSkip };

/** The words the reader looks for, given by JavaScript so that they are defined once, in core. */
struct Vocabulary {
  /** Category names, lower-cased, and what each is. */
  std::vector<std::pair<std::string, Category>> categories;
  /** The name prefixes of call-site markers emitted before and after their call. */
  std::string beforeMarker, afterMarker;
};

struct ReadResult {
  std::unique_ptr<Staged> staged;
  /** Why the reader declined; empty when `staged` is set. */
  std::string declined;
  bool cancelled = false;
};

ReadResult readKineto(ByteSource &source, const ReadControl &control, const Vocabulary &vocabulary);

}  // namespace syncscope::json
