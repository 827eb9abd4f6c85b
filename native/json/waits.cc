#include "waits.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include "corr_index.h"

namespace syncscope::json {

namespace {

/** A number as a JavaScript Map keys it (SameValueZero): -0 is 0, and every NaN is one key. */
uint64_t keyOf(double x) {
  if (x == 0) x = 0;
  if (std::isnan(x)) return 0x7ff8000000000000ull;
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

/** Math.min and Math.max, whose answer is NaN where either number is. */
double jsMin(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }
double jsMax(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t> &p) const {
    return std::hash<uint64_t>()(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
  }
};

/** indexOfLists in issue-order.ts, over the lists arrange() made. */
class IssueLists {
 public:
  explicit IssueLists(const Arranged &a) : a_(a) {
    size_t streams = a.streamKeys.size();
    for (size_t i = 0; i < streams; i++) byStream_.emplace(keyOf(a.streamKeys[i]), int32_t(i));
    for (size_t i = 0; i < a.deviceKeys.size(); i++) byDevice_.emplace(keyOf(a.deviceKeys[i]), int32_t(streams + i));
    everything_ = int32_t(streams + a.deviceKeys.size());
  }
  int32_t lastOnStream(double lane, double corr) const { return last(find(byStream_, lane), corr); }
  int32_t lastOnDevice(double device, double corr) const { return last(find(byDevice_, device), corr); }
  int32_t lastAnywhere(double corr) const { return last(everything_, corr); }
  int32_t lastIssuedOnStream(double lane, double corr) const {
    int32_t l = find(byStream_, lane);
    size_t n = l < 0 ? 0 : below(l, corr);
    return n ? a_.listOps[size_t(a_.listStart[size_t(l)]) + n - 1] : -1;
  }
  int32_t firstIssuedOnStream(double lane, double corr) const {
    int32_t l = find(byStream_, lane);
    if (l < 0) return -1;
    size_t n = below(l, corr + 1);
    size_t from = size_t(a_.listStart[size_t(l)]), to = size_t(a_.listStart[size_t(l) + 1]);
    return from + n < to ? a_.listOps[from + n] : -1;
  }

 private:
  static int32_t find(const std::unordered_map<uint64_t, int32_t> &m, double key) {
    auto it = m.find(keyOf(key));
    return it == m.end() ? -1 : it->second;
  }
  /** How many of list l's correlation ids (sorted) are below `bound`. */
  size_t below(int32_t l, double bound) const {
    size_t lo = size_t(a_.listStart[size_t(l)]), hi = size_t(a_.listStart[size_t(l) + 1]), from = lo;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (a_.listCorr[mid] < bound) lo = mid + 1;
      else hi = mid;
    }
    return lo - from;
  }
  int32_t last(int32_t l, double bound) const {
    size_t n = l < 0 ? 0 : below(l, bound);
    return n ? a_.listBest[size_t(a_.listStart[size_t(l)]) + n - 1] : -1;
  }

  const Arranged &a_;
  std::unordered_map<uint64_t, int32_t> byStream_, byDevice_;
  int32_t everything_ = 0;
};

class Resolver {
 public:
  Resolver(const WaitsInput &in, const ArrangeInput &rows, const ArrangeOut &cols, Arranged &made, const WaitsOut &out,
           Waits &waits)
      : in_(in),
        cols_(cols),
        made_(made),
        out_(out),
        waits_(waits),
        order_(made),
        opByCorr_(rows.maxCorr, rows.gpuCount) {
    for (size_t op = 0; op < rows.gpuCount; op++) opByCorr_.add(rows.gpuCorr[op], int32_t(op));
    // As a Map is set: a key given twice keeps its last value.
    for (size_t i = 0; i < in.syncs; i++) syncs_[keyOf(in.syncCorr[i])] = i;
    for (size_t i = 0; i < in.streams; i++)
      streamLane_[std::make_pair(keyOf(in.streamDevice[i]), keyOf(in.streamHandle[i]))] = in.streamLane[i];
  }

  void run() {
    for (size_t call = 0; call < made_.calls; call++) {
      uint8_t kind = cols_.callKind[call];
      WaitRole role = kind < in_.kinds ? WaitRole(in_.role[kind]) : kNotAWait;
      if (role != kNotAWait) resolve(int32_t(call), role);
    }
  }

 private:
  struct Sync {
    double stream, device, event, recordCorr, waitOnStream;
  };

  bool syncOf(double corr, Sync &s) const {
    auto it = syncs_.find(keyOf(corr));
    if (it == syncs_.end()) return false;
    size_t i = it->second;
    s = {in_.syncStream[i], in_.syncDevice[i], in_.syncEvent[i], in_.syncRecordCorr[i], in_.syncWaitOnStream[i]};
    return true;
  }

  int32_t laneOf(double device, double stream) const {
    if (!(stream >= 0)) return -1;
    auto it = streamLane_.find(std::make_pair(keyOf(device), keyOf(stream)));
    return it == streamLane_.end() ? -1 : it->second;
  }

  int32_t lastBefore(double device, double bound) const {
    return device >= 0 ? order_.lastOnDevice(device, bound) : order_.lastAnywhere(bound);
  }

  void nameEvent(int32_t call, double event) {
    auto [it, fresh] = eventIndex_.emplace(keyOf(event), int32_t(waits_.events.size()));
    if (fresh) waits_.events.push(event);
    waits_.eventCall.push(call);
    waits_.eventIndex.push(it->second);
  }

  void edge(uint8_t kind, int32_t from, int32_t to) {
    if (made_.edges == cols_.edgeRoom) throw std::length_error("arrange(): more edges than room for them");
    cols_.edgeKind[made_.edges] = kind;
    cols_.edgeFrom[made_.edges] = from;
    cols_.edgeTo[made_.edges] = to;
    made_.edges++;
  }

  void resolve(int32_t call, WaitRole role) {
    double corr = cols_.callCorr[call];
    Sync sync{};
    bool has = syncOf(corr, sync);
    if (has && sync.event >= 0) nameEvent(call, sync.event);
    if (corr < 0) return;
    double device = has && sync.device >= 0 ? sync.device : in_.onlyDevice;
    switch (role) {
      case kWaitStreamSync: {
        int32_t lane = has ? laneOf(device, sync.stream) : -1;
        if (lane >= 0) cols_.callStream[call] = lane;
        if (!has) waits_.noSync++;
        if (lane >= 0) settle(call, order_.lastOnStream(lane, corr), true);
        else if (has && sync.stream >= 0 && device >= 0) settle(call, -1, true);  // a stream that ran nothing
        else settle(call, lastBefore(device, corr), false);
        break;
      }
      case kWaitDeviceSync:
        if (!has) waits_.noSync++;
        // S14 with the device taken as the trace's only one: deduced, not named by the data.
        settle(call, lastBefore(device, corr), device >= 0, has ? in_.howExact : in_.howDeduced);
        break;
      case kWaitEventSync: {
        if (!has) waits_.noSync++;
        int32_t streamOfRecord = has && sync.recordCorr >= 0 ? laneOf(device, sync.waitOnStream) : -1;
        if (streamOfRecord >= 0) {
          settle(call, order_.lastOnStream(streamOfRecord, sync.recordCorr), true);
        } else {
          if (has) waits_.noRecord++;
          settle(call, lastBefore(device, has && sync.recordCorr >= 0 ? sync.recordCorr : corr), false);
        }
        break;
      }
      case kWaitMemcpy: {
        int32_t op = opByCorr_.get(corr);
        if (op < 0 || !blocksHost(call, op)) return;
        // The host waits for earlier work in the copy's stream, then for the copy itself unless it
        // returned once the data was staged (pageable host-to-device).
        int32_t prior = order_.lastOnStream(cols_.opLane[op], corr);
        settle(call, cols_.opEnd[op] <= cols_.callEnd[call] ? op : prior, true);
        break;
      }
      case kWaitStreamWait: {
        if (!has) return;
        int32_t waiting = laneOf(sync.device, sync.stream);
        if (waiting >= 0) cols_.callStream[call] = waiting;
        int32_t recorded = sync.recordCorr >= 0 ? laneOf(device, sync.waitOnStream) : -1;
        if (waiting >= 0 && recorded >= 0) {
          int32_t from = order_.lastIssuedOnStream(recorded, sync.recordCorr);
          int32_t to = order_.firstIssuedOnStream(waiting, corr);
          if (from >= 0 && to >= 0) edge(in_.eventEdge, from, to);
        } else if (sync.recordCorr < 0) {
          waits_.noRecord++;
        }
        break;
      }
      default:  // a query: only its event is named
        break;
    }
  }

  bool blocksHost(int32_t call, int32_t op) const {
    size_t copy = in_.opCopy[op], memory = in_.opHostMemory[op];
    if (copy >= in_.copies || memory >= in_.hostMemories) return false;
    bool async = in_.asyncName[cols_.callName[call]] != 0;
    return in_.blocks[(copy * in_.hostMemories + memory) * 2 + (async ? 1 : 0)] != 0;
  }

  void settle(int32_t call, int32_t op, bool exact) { settle(call, op, exact, in_.howExact); }
  void settle(int32_t call, int32_t op, bool exact, uint8_t how) {
    if (op >= 0 && cols_.opEnd[op] > cols_.callBegin[call] && !exact) {
      out_.releasedBy[call] = in_.releasedUnknown;
      out_.blockedNs[call] = cols_.callEnd[call] - cols_.callBegin[call];
      waits_.unknown++;
    } else if (settleRelease(call, op, how)) {
      waits_.skew++;
    }
  }

  /** settleRelease in pytorch-waits.ts: whether the host returned before the op ended. */
  bool settleRelease(int32_t call, int32_t op, uint8_t how) {
    double begin = cols_.callBegin[call], end = cols_.callEnd[call];
    out_.how[call] = how;
    if (op < 0 || cols_.opEnd[op] <= begin) {
      out_.releasedBy[call] = in_.releasedNone;
      out_.blockedNs[call] = 0;
      return false;
    }
    double opEnd = cols_.opEnd[op];
    out_.releasedBy[call] = op;
    out_.blockedNs[call] = jsMax(0, jsMin(opEnd, end) - begin);
    edge(in_.releaseEdge, op, call);
    if (opEnd > end) return true;
    out_.unblockNs[call] = end - opEnd;
    return false;
  }

  const WaitsInput &in_;
  const ArrangeOut &cols_;
  Arranged &made_;
  const WaitsOut &out_;
  Waits &waits_;
  IssueLists order_;
  CorrIndex opByCorr_;
  std::unordered_map<uint64_t, size_t> syncs_;
  std::unordered_map<std::pair<uint64_t, uint64_t>, int32_t, PairHash> streamLane_;
  std::unordered_map<uint64_t, int32_t> eventIndex_;
};

}  // namespace

void resolveWaits(const WaitsInput &in, const ArrangeInput &rows, const ArrangeOut &cols, Arranged &made,
                  const WaitsOut &out, Waits &waits) {
  Resolver(in, rows, cols, made, out, waits).run();
}

}  // namespace syncscope::json
