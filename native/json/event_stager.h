// What one Kineto event means to the trace: onEvent in core/import/pytorch.ts, step by step. A
// stager writes the rows of the events it is given into one Staged: the read's own, or a batch's,
// which the reader then appends to its own (`append`), so that either way the rows, strings and
// lanes come out in file order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "columns.h"
#include "event_fields.h"

namespace syncscope::json {

/** The reader declines the file; the JavaScript reader reads it instead. */
struct Decline {
  std::string why;
};
[[noreturn]] inline void decline(std::string why) { throw Decline{std::move(why)}; }

/** What pytorch.ts's CATEGORY table makes of a Kineto category. */
enum Category : int { kApiCat, kContextCat, kPythonCat, kKernelCat, kMemcpyCat, kMemsetCat, kSync, kSkip };

/** The words the reader looks for, given by JavaScript so that they are defined once, in core. */
struct Vocabulary {
  /** Category names, lower-cased, and what each is. */
  std::vector<std::pair<std::string, Category>> categories;
  /** The name prefixes of call-site markers emitted before and after their call. */
  std::string beforeMarker, afterMarker;
};

/** Lanes by (pid, tid) or (device, stream); -0 and 0 are one key, as in a JavaScript Map. */
struct LaneKey {
  uint64_t a, b;
  bool operator==(const LaneKey &o) const { return a == o.a && b == o.b; }
};
struct LaneKeyHash {
  size_t operator()(const LaneKey &k) const { return std::hash<uint64_t>()(k.a * 0x9E3779B97F4A7C15ull ^ k.b); }
};

class EventStager {
 public:
  /** `categories` maps each category name of the vocabulary to what it is; it outlives the stager. */
  EventStager(Staged &staged, const Vocabulary &vocabulary, const std::unordered_map<std::string_view, int> &categories)
      : s_(staged), vocabulary_(vocabulary), categories_(categories) {}

  void onEvent(const Event &e);
  /** Appends the rows another stager staged from the events after this one's. */
  void append(const Staged &later);

 private:
  std::string_view textOf(const Val &v, std::string_view fallback);
  uint32_t lane(bool thread, double a, double b);
  int category(std::string_view raw);
  bool isMarker(int32_t name) const;
  void threadName(const Event &e);
  void unknownCategory(std::string_view raw, double count);
  void sync(const Event &e, double corr);
  void op(const Event &e, int cat, double begin, double end, int32_t name, double corr);

  Staged &s_;
  const Vocabulary &vocabulary_;
  const std::unordered_map<std::string_view, int> &categories_;
  std::unordered_map<LaneKey, uint32_t, LaneKeyHash> threadLanes_, streamLanes_;
  std::unordered_map<std::string, size_t> unknownIndex_;
};

}  // namespace syncscope::json
