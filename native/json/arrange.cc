#include "arrange.h"

#include "corr_index.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <exception>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace syncscope::json {

namespace {

/** Which Python frames inside a frame are shown (LauncherMode in pytorch.ts); kHidden: the frame itself is shown. */
enum Mode : int8_t { kHidden = -1, kShown = 0, kOwn = 1, kChain = 2, kExec = 3, kRunCode = 4 };

/** hiddenFrame in pytorch.ts: the mode of a frame with `role` inside one of `mode`, or kHidden where it is shown. */
Mode hiddenFrame(Mode mode, int8_t role) {
  if (mode == kOwn || role == kOwnRole) return kOwn;
  if (role == kWrapperRole) return mode;
  if (role == kChainRole) return kChain;
  if (role == kExecRole) return kExec;
  if (role == kRunCodeRole) return kRunCode;
  if (mode == kRunCode) return role == kModuleRole ? kHidden : kOwn;
  return mode == kChain ? kOwn : kHidden;
}

/** What a stack entry adds to the context and depth of what it holds (StackEntry.adds in pytorch.ts). */
enum class Adds : uint8_t { kHidden, kPython, kRange };

struct StackEntry {
  double end;
  int32_t name;
  Adds adds;
  int32_t joined, frames, shown, shownPython;
  /** The index on the stack of the innermost Python frame at or below this entry; -1 for none. */
  int32_t pyAt;
  /** Which Python frames inside are shown: a Python frame's. */
  Mode python;
};

/** openPython in pytorch.ts: the innermost Python frame on `stack` (below `at`) still running at `time`. */
const StackEntry *openPython(const std::vector<StackEntry> &stack, double time, size_t at) {
  int32_t k = at ? stack[at - 1].pyAt : -1;
  while (k >= 0 && stack[size_t(k)].end <= time) k = k > 0 ? stack[size_t(k) - 1].pyAt : -1;
  return k >= 0 ? &stack[size_t(k)] : nullptr;
}

/** rangeParentDepth in pytorch.ts: a profiler range goes above the innermost entry that lasts until it ends. */
size_t rangeParentDepth(const std::vector<StackEntry> &stack, double end) {
  size_t at = stack.size();
  while (at > 0 && stack[at - 1].end < end) at--;
  return at;
}

/** Names below this make unique keys with a node or a context id (2^26, as in pytorch.ts). */
constexpr double kNameKeys = 67108864.0;

/** SiteTable.enter's nodes: one per distinct (node, frame name), as python-sites.ts numbers them. */
class Nodes {
 public:
  explicit Nodes(Arranged &made) : out_(made) {}
  int32_t enter(int32_t node, int32_t name) {
    bool keyed = double(name) < kNameKeys;
    uint64_t key = uint64_t(node) * uint64_t(kNameKeys) + uint64_t(name);
    if (keyed) {
      auto it = children_.find(key);
      if (it != children_.end()) return it->second;
    }
    int32_t child = int32_t(out_.nodeParent.size()) + 1;
    out_.nodeParent.push(node);
    out_.nodeName.push(name);
    if (keyed) children_.emplace(key, child);
    return child;
  }

 private:
  Arranged &out_;
  std::unordered_map<uint64_t, int32_t> children_;
};

/** The staged strings and those the build adds after them, as the build's own table holds them. */
class Strings {
 public:
  Strings(const StringTable &base, std::deque<std::string> &added) : base_(base), added_(added) {}
  const std::string &get(int32_t id) const {
    size_t n = base_.list().size();
    return size_t(id) < n ? base_.list()[size_t(id)] : added_[size_t(id) - n];
  }
  int32_t id(std::string s) {
    int32_t found = base_.find(s);
    if (found >= 0) return found;
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    int32_t id = int32_t(base_.list().size() + added_.size());
    const std::string &kept = added_.emplace_back(std::move(s));
    ids_.emplace(std::string_view(kept), id);
    return id;
  }

 private:
  const StringTable &base_;
  std::deque<std::string> &added_;
  std::unordered_map<std::string_view, int32_t> ids_;
};

/** addCalls in pytorch.ts. Returns each call's row correlation id in out.callCorr and the index of API calls by it. */
void addCalls(const ArrangeInput &in, Strings &strings, const ArrangeOut &out, Arranged &made, CorrIndex &callByCorr) {
  std::vector<std::vector<StackEntry>> stacks(in.laneCount);
  std::unordered_map<uint64_t, int32_t> joined;
  Nodes nodes(made);
  auto join = [&](int32_t top, int32_t name) {
    uint64_t key = uint64_t(top) * uint64_t(kNameKeys) + uint64_t(name);
    bool keyed = double(name) < kNameKeys;
    if (keyed) {
      auto it = joined.find(key);
      if (it != joined.end()) return it->second;
    }
    const std::string &text = strings.get(name);
    int32_t id = strings.id(top ? strings.get(top) + " > " + text : text);
    if (keyed) joined.emplace(key, id);
    return id;
  };
  for (size_t r = 0; r < in.hostCount; r++) {
    uint32_t lane = uint32_t(in.laneMap[in.hostLane[r]]);
    std::vector<StackEntry> &stack = stacks[lane];
    while (!stack.empty() && stack.back().end <= in.hostBegin[r]) stack.pop_back();
    int32_t name = in.hostName[r];
    bool python = in.hostContext[r] == 2;
    size_t at = in.hostContext[r] && !python ? rangeParentDepth(stack, in.hostEnd[r]) : stack.size();
    const StackEntry *outer = at ? &stack[at - 1] : nullptr;
    const StackEntry *py = openPython(stack, in.hostBegin[r], at);
    int32_t top = outer ? outer->joined : 0, shown = outer ? outer->shown : 0;
    int32_t frames = py ? py->frames : 0, shownPython = py ? py->shownPython : 0;
    Mode mode = py ? py->python : kShown;
    Mode hidden = python ? hiddenFrame(mode, (shownPython == 0 ? in.roleTop : in.roleInner)[name]) : kHidden;
    if (hidden != kHidden) {
      // The launcher's frames are nowhere in the trace: not on a lane, in a context or in a site.
      stack.push_back(
          {in.hostEnd[r], name, Adds::kHidden, top, frames, shown, shownPython, int32_t(stack.size()), hidden});
      continue;
    }
    size_t id = made.calls++;
    out.callLane[id] = lane;
    out.callBegin[id] = in.hostBegin[r] - in.t0;
    out.callEnd[id] = in.hostEnd[r] - in.t0;
    out.callName[id] = name;
    out.callCorr[id] = in.hostCorr[r];
    out.callStream[id] = -1;
    if (in.hostContext[r]) {
      out.callKind[id] = in.contextKind;
      out.callDepth[id] = uint8_t(std::min(shown, 255));
      out.callContext[id] = 0;
      int32_t inner = python ? nodes.enter(frames, name) : frames;
      int32_t pyAt = python ? int32_t(at) : outer ? outer->pyAt : -1;
      // A new entry may move the stack's memory: `outer` and `py` are not used after this.
      StackEntry entry{in.hostEnd[r], name,      python ? Adds::kPython : Adds::kRange, python ? top : join(top, name),
                       inner,         shown + 1, shownPython + (python ? 1 : 0),        pyAt,
                       kShown};
      if (at == stack.size()) {
        stack.push_back(entry);
      } else {
        // insertRange in pytorch.ts: below the entries that end before it, whose context and depth
        // are made again on it; their Python frame indices move up with them.
        stack.insert(stack.begin() + std::ptrdiff_t(at), entry);
        for (size_t k = at + 1; k < stack.size(); k++) {
          StackEntry &e = stack[k];
          const StackEntry &below = stack[k - 1];
          if (e.pyAt >= int32_t(at)) e.pyAt++;
          // One that ended before the range began (kept until what was stacked on it ends) holds nothing now.
          Adds adds = e.end <= in.hostBegin[r] ? Adds::kHidden : e.adds;
          e.joined = adds == Adds::kRange ? join(below.joined, e.name) : below.joined;
          e.shown = below.shown + (adds == Adds::kHidden ? 0 : 1);
        }
      }
    } else {
      out.callKind[id] = uint8_t(in.kindOfName[name]);
      out.callDepth[id] = 0;
      out.callContext[id] = top;
      // A call of the launcher's own work (the profiler's stop) is at no line of the user's.
      if (frames && mode != kOwn) {
        made.siteCall.push(int32_t(id));
        made.siteNode.push(frames);
      }
      callByCorr.add(in.hostCorr[r], int32_t(id));
    }
  }
}

/** issueIndex in issue-order.ts on the ops' correlation ids: the lists by stream, by device, and all. */
void issueLists(const ArrangeInput &in, const ArrangeOut &cols, Arranged &out) {
  std::vector<int32_t> all;
  for (size_t op = 0; op < in.gpuCount; op++)
    if (in.gpuCorr[op] >= 0) all.push_back(int32_t(op));
  std::stable_sort(all.begin(), all.end(), [&](int32_t a, int32_t b) { return in.gpuCorr[a] < in.gpuCorr[b]; });
  auto addList = [&](const std::vector<int32_t> &ops) {
    out.listStart.push(int32_t(out.listOps.size()));
    int32_t best = -1;
    for (size_t k = 0; k < ops.size(); k++) {
      int32_t op = ops[k];
      best = k && cols.opEnd[best] >= cols.opEnd[op] ? best : op;
      out.listOps.push(op);
      out.listBest.push(best);
      out.listCorr.push(in.gpuCorr[op]);
    }
  };
  // Groups in the order first met; -0 and 0 are one key, as in a Map.
  auto groups = [&](auto keyOf, Column<double> &keys) {
    std::unordered_map<double, size_t> slot;
    std::vector<std::vector<int32_t>> lists;
    for (int32_t op : all) {
      double key = keyOf(op);
      if (key == 0) key = 0;
      auto [it, fresh] = slot.emplace(key, lists.size());
      if (fresh) {
        lists.emplace_back();
        keys.push(key);
      }
      lists[it->second].push_back(op);
    }
    for (const auto &l : lists) addList(l);
  };
  groups([&](int32_t op) { return double(cols.opLane[op]); }, out.streamKeys);
  groups([&](int32_t op) { return in.laneDevice[cols.opLane[op]]; }, out.deviceKeys);
  addList(all);
  out.listStart.push(int32_t(out.listOps.size()));
}

}  // namespace

void arrange(const ArrangeInput &in, const StringTable &names, const ArrangeOut &out, Arranged &made) {
  Strings strings(names, made.strings);
  // addOps: rows in time order are the ops in id order.
  for (size_t r = 0; r < in.gpuCount; r++) {
    out.opLane[r] = uint32_t(in.laneMap[in.gpuLane[r]]);
    out.opStart[r] = in.gpuBegin[r] - in.t0;
    out.opEnd[r] = in.gpuEnd[r] - in.t0;
    out.opCall[r] = -1;
  }
  // The ops' issue lists and the calls touch nothing of each other's: they are made at once.
  std::exception_ptr listsFault;
  auto makeLists = [&] {
    try {
      issueLists(in, out, made);
    } catch (...) {
      listsFault = std::current_exception();
    }
  };
  std::thread lists;
  try {
    lists = std::thread(makeLists);
  } catch (const std::system_error &) {
    makeLists();  // no thread to be had: one after the other
  }
  CorrIndex callByCorr(in.maxCorr, in.hostCount);
  try {
    addCalls(in, strings, out, made, callByCorr);
  } catch (...) {
    if (lists.joinable()) lists.join();
    throw;
  }
  if (lists.joinable()) lists.join();
  if (listsFault) std::rethrow_exception(listsFault);
  auto edge = [&](uint8_t kind, int32_t from, int32_t to) {
    if (made.edges == out.edgeRoom) throw std::length_error("arrange(): more edges than room for them");
    out.edgeKind[made.edges] = kind;
    out.edgeFrom[made.edges] = from;
    out.edgeTo[made.edges] = to;
    made.edges++;
  };
  // Launch edges, then stream order.
  for (size_t op = 0; op < in.gpuCount; op++) {
    int32_t call = callByCorr.get(in.gpuCorr[op]);
    if (call < 0) continue;
    out.opCall[op] = call;
    out.callStream[call] = int32_t(out.opLane[op]);
    edge(out.launchEdge, call, int32_t(op));
  }
  size_t streams = made.streamKeys.size();
  for (size_t l = 0; l < streams; l++)
    for (int32_t k = made.listStart[l] + 1; k < made.listStart[l + 1]; k++)
      edge(out.streamEdge, made.listOps[size_t(k - 1)], made.listOps[size_t(k)]);
}

}  // namespace syncscope::json
