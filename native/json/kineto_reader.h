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

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "byte_source.h"
#include "columns.h"
#include "event_stager.h"

namespace syncscope::json {

/**
 * How the reader reports progress and learns that it must stop: after each block it passes the
 * bytes taken from the source so far to `onProgress`, then stops if `stop` (an element of a
 * Float64Array that JavaScript keeps) is nonzero, or `abandoned` is set: no JavaScript waits for
 * the answer any more (the worker thread that asked is ending).
 */
struct ReadControl {
  std::function<void(double)> onProgress;
  const double *stop = nullptr;
  const std::atomic<bool> *abandoned = nullptr;
  void progress(double bytes) const {
    if (onProgress) onProgress(bytes);
  }
  bool cancelled() const {
    if (abandoned && abandoned->load(std::memory_order_relaxed)) return true;
    if (!stop) return false;
    double v;
    __atomic_load(stop, &v, __ATOMIC_RELAXED);
    return v != 0;
  }
};

struct ReadResult {
  std::unique_ptr<Staged> staged;
  /** Why the reader declined; empty when `staged` is set. */
  std::string declined;
  bool cancelled = false;
};

ReadResult readKineto(ByteSource &source, const ReadControl &control, const Vocabulary &vocabulary);

}  // namespace syncscope::json
