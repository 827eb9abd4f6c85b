#include "happens_before.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace syncscope::hb {

namespace {

int popcount(uint32_t v) { return __builtin_popcount(v); }

/** Math.max of two numbers: NaN where either is. */
double maxOf(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

/** Whether the edge a -> b joins two nodes of different lanes (crosses in graph.ts). */
bool crosses(const int32_t *lane, int64_t a, int64_t b) {
  if (a < 0 || b < 0) return false;
  int32_t la = lane[a], lb = lane[b];
  return !(la < 0 || lb < 0 || la == lb);
}

/** The node after `node` in its lane, or -1 (laneNext in graph.ts). */
int32_t laneNext(const LaneView &g, int64_t node) {
  if (node < 0 || g.lane[node] < 0) return -1;
  int32_t l = g.lane[node];
  int64_t k = int64_t(g.laneStart[l]) + g.seq[node];
  return k < g.laneStart[l + 1] ? g.order[k] : -1;
}

/** The row of `key` in rows marked by `has` (rowOfKey in csr.ts), or -1. */
int32_t rowOfKey(const int32_t *has, const int32_t *before, int64_t key) {
  uint32_t word = uint32_t(has[key >> 5]);
  uint32_t bit = 1u << (key & 31);
  return word & bit ? before[key >> 5] + popcount(word & (bit - 1)) : -1;
}

/** values[i] grouped by keys[i] in rows for the keys that have any, each row in item order (sparseRows in csr.ts). */
SparseRows sparseRows(const std::vector<int32_t> &keys, const std::vector<int32_t> &values, size_t keyCount) {
  SparseRows r;
  size_t words = (keyCount >> 5) + 1, n = keys.size();
  r.has.assign(words, 0);
  for (int32_t k : keys) r.has[k >> 5] = int32_t(uint32_t(r.has[k >> 5]) | (1u << (k & 31)));
  r.before.assign(words, 0);
  int32_t rows = 0;
  for (size_t w = 0; w < words; w++) {
    r.before[w] = rows;
    rows += popcount(uint32_t(r.has[w]));
  }
  r.keys.assign(size_t(rows), 0);
  r.start.assign(size_t(rows) + 1, 0);
  r.ids.assign(n, 0);
  for (int32_t k : keys) r.start[rowOfKey(r.has.data(), r.before.data(), k) + 1]++;
  for (int32_t q = 0; q < rows; q++) r.start[q + 1] += r.start[q];
  std::vector<int32_t> next(r.start.begin(), r.start.end() - 1);
  for (size_t i = 0; i < n; i++) {
    int32_t q = rowOfKey(r.has.data(), r.before.data(), keys[i]);
    r.keys[q] = keys[i];
    r.ids[next[q]++] = values[i];
  }
  return r;
}

}  // namespace

void laneOrder(const LaneOrderInput &in, LaneOrder &r) {
  const size_t C = in.calls, O = in.ops, L = in.lanes, N = C + O;
  r.start.assign(L + 1, 0);
  size_t callsOutside = 0;
  for (size_t i = 0; i < C; i++) {
    if (in.callKind[i] == in.contextKind) continue;
    if (in.callLane[i] < L) r.start[in.callLane[i] + 1]++;
    else callsOutside++;
  }
  int32_t callLane = -1;
  if (!callsOutside)
    for (size_t l = 0; l < L; l++) {
      if (!r.start[l + 1]) continue;
      if (callLane >= 0) {
        callLane = -1;
        break;
      }
      callLane = int32_t(l);
    }
  const int32_t callsOnIt = callLane < 0 ? 0 : r.start[callLane + 1];
  for (size_t i = 0; i < O; i++)
    if (in.opLane[i] < L) r.start[in.opLane[i] + 1]++;
  for (size_t l = 0; l < L; l++) r.start[l + 1] += r.start[l];
  r.lane.assign(N, -1);
  std::vector<int32_t> next(r.start.begin(), r.start.end() - 1);
  std::vector<double> last(L, 0);
  std::vector<uint8_t> unordered(L, 0);
  size_t notLaunches = 0;
  auto place = [&](size_t x, uint32_t l, double time) {
    int32_t k = next[l]++;
    r.order[k] = int32_t(x);
    r.lane[x] = int32_t(l);
    r.seq[x] = k - r.start[l] + 1;
    if (k > r.start[l] && !(last[l] <= time)) unordered[l] = 1;
    last[l] = time;
  };
  for (size_t i = 0; i < C; i++)
    if (in.callLane[i] < L && in.callKind[i] != in.contextKind) place(i, in.callLane[i], in.callBegin[i]);
  for (size_t i = 0; i < O; i++) {
    const uint32_t l = in.opLane[i];
    const bool placed = l < L;
    const int32_t c = in.opCall[i];
    if (c >= 0 && !(size_t(c) < C && placed && r.lane[c] >= 0 && r.lane[c] != int32_t(l))) notLaunches++;
    if (placed) place(C + i, l, in.opStart[i]);
  }
  auto time = [&](int32_t x) { return size_t(x) < C ? in.callBegin[x] : in.opStart[x - C]; };
  for (size_t l = 0; l < L; l++) {
    if (!unordered[l]) continue;
    // (time, id): the TypeScript comparator `time(x) - time(y) || x - y`, a difference that is 0 or NaN falling to the
    // ids.
    std::sort(r.order + r.start[l], r.order + r.start[l + 1], [&](int32_t x, int32_t y) {
      double d = time(x) - time(y);
      return d != 0 && !std::isnan(d) ? d < 0 : x < y;
    });
    for (int32_t k = r.start[l]; k < r.start[l + 1]; k++) r.seq[r.order[k]] = k - r.start[l] + 1;
  }
  if (callLane >= 0 && !unordered[callLane] && r.start[callLane + 1] - r.start[callLane] == callsOnIt) {
    r.callOrderFrom = r.start[callLane];
    r.callOrderTo = r.start[callLane + 1];
  }
  if (notLaunches) {
    r.launcher.assign(O, -1);
    for (size_t j = 0; j < O; j++)
      if (crosses(r.lane.data(), in.opCall[j], int64_t(C + j))) r.launcher[j] = in.opCall[j];
  }
}

SparseRows crossLanes(const LaneView &g, const CrossLaneInput &in, std::vector<int32_t> &edgeCounts) {
  const int64_t C = int64_t(g.calls);
  std::vector<int32_t> from, to;
  auto keep = [&](int64_t a, int64_t b) {
    if (!crosses(g.lane, a, b)) return;
    from.push_back(int32_t(a));
    to.push_back(int32_t(b));
  };
  // A call that waits for an op it issued itself orders that op before the calls after it.
  auto keepOpToCall = [&](int32_t op, int32_t call) { keep(C + op, in.opCall[op] == call ? laneNext(g, call) : call); };
  edgeCounts.assign(in.edgeKinds, 0);
  for (size_t k = 0; k < in.edges; k++) {
    const uint8_t kind = in.edgeKind[k];
    edgeCounts[kind]++;
    if (kind == in.launchEdge) {
      if (in.opCall[in.edgeTo[k]] != in.edgeFrom[k]) keep(in.edgeFrom[k], C + in.edgeTo[k]);
    } else if (kind == in.releaseEdge) keepOpToCall(in.edgeFrom[k], in.edgeTo[k]);
    else if (g.lane[C + in.edgeFrom[k]] != g.lane[C + in.edgeTo[k]]) keep(C + in.edgeFrom[k], C + in.edgeTo[k]);
  }
  if (in.eventOrderings) {
    std::vector<int32_t> eventInto(g.nodes - g.calls, -1);
    for (size_t k = 0; k < in.edges; k++)
      if (in.edgeKind[k] == in.eventEdge && in.edgeTo[k] >= 0) eventInto[in.edgeTo[k]] = in.edgeFrom[k];
    for (size_t k = 0; k < in.eventOrderings; k++)
      if (eventInto[in.eventTo[k]] != in.eventFrom[k]) keep(C + in.eventFrom[k], C + in.eventTo[k]);
  }
  for (size_t r = 0; r < in.waitRows; r++)
    for (int32_t q = in.waitStart[r]; q < in.waitStart[r + 1]; q++) keepOpToCall(in.waitIds[q], in.waitKeys[r]);
  return sparseRows(to, from, g.nodes);
}

void bindEvents(const BindInput &in, Bound &b) {
  const size_t C = in.calls, O = in.ops, L = in.lanes;
  constexpr int32_t kBoundBias = 2, kIdBias = 1;
  // groupByKey(t.ops.call, O, C): the ops of each call, in op order.
  for (size_t j = 0; j < O; j++)
    if (in.opCall[j] >= 0 && size_t(in.opCall[j]) < C) b.opsStart[in.opCall[j] + 1]++;
  for (size_t c = 0; c < C; c++) b.opsStart[c + 1] += b.opsStart[c];
  b.opsOfCount = size_t(b.opsStart[C]);
  {
    std::vector<int32_t> next(b.opsStart, b.opsStart + C);
    for (size_t j = 0; j < O; j++)
      if (in.opCall[j] >= 0 && size_t(in.opCall[j]) < C) b.opsOf[next[in.opCall[j]]++] = int32_t(j);
  }
  std::vector<int32_t> lastOp(L, -1), lastCopy(L + 1, -1), awaitCall, awaitOp;
  std::vector<std::vector<int32_t>> pendingWaits(L);
  // Event string id -> the record call that holds it, biased (0: never recorded).
  int64_t events = int64_t(in.strings);
  for (size_t i = 0; i < C; i++) events = std::max<int64_t>(events, std::max(in.event[i], in.event2[i]) + int64_t(1));
  std::vector<int32_t> current(size_t(events), 0);
  auto copySlot = [&](size_t i) { return std::min<size_t>(in.lane[i], L); };
  auto wait = [&](int32_t call, int32_t op) {
    awaitCall.push_back(call);
    awaitOp.push_back(op);
  };
  auto bind = [&](int32_t ev) {
    const int32_t r = (ev >= 0 ? current[ev] : 0) - kIdBias;
    if (r >= 0) b.consumers[r]++;
    return r;
  };
  for (size_t k = 0; k < in.timed; k++) {
    const int32_t i = in.timeOrder[k];
    const uint8_t ki = in.kind[i];
    if (ki == in.eventSyncKind || ki == in.streamSyncKind || ki == in.deviceSyncKind || in.blockedNs[i] > 0)
      b.waits.push_back(i);
    if (ki == in.streamWaitKind || ki == in.eventSyncKind || ki == in.queryKind) {
      const int32_t r = bind(in.event[i]);
      b.bound[i] = r + kBoundBias;
      const int32_t op = r >= 0 ? b.recordOp[r] - kIdBias : -1;
      if (op >= 0 && ki == in.streamWaitKind && in.stream[i] >= 0) pendingWaits[in.stream[i]].push_back(op);
      if (op >= 0 && (ki == in.eventSyncKind || (ki == in.queryKind && in.answer[i] == in.ready))) wait(i, op);
    } else if (ki == in.elapsedKind) {
      b.bound[i] = bind(in.event[i]) + kBoundBias;
      b.bound2.push_back(i);
      b.bound2.push_back(bind(in.event2[i]));
    } else if (ki == in.streamSyncKind) {
      const int32_t st = in.stream[i];
      if (st >= 0 && lastOp[st] >= 0) wait(i, lastOp[st]);
      b.syncCopies.push_back(i);
      b.syncCopies.push_back(lastCopy[copySlot(i)]);
    } else if (ki == in.deviceSyncKind) {
      // S21: the device the call names; traces that do not say (device 0) mean the thread's device.
      const int32_t laneDevice = in.lane[i] < L ? in.laneDevice[in.lane[i]] : -1;
      const int32_t device = in.device[i] ? in.device[i] : laneDevice >= 0 ? laneDevice : 0;
      for (size_t q = 0; q < in.streams; q++)
        if (in.streamDevice[q] == device && lastOp[in.streamLane[q]] >= 0) wait(i, lastOp[in.streamLane[q]]);
    }
    // The ops call i issued, each following the stream waits pending on its stream (S8).
    for (int32_t q = b.opsStart[i]; q < b.opsStart[i + 1]; q++) {
      const int32_t j = b.opsOf[q];
      std::vector<int32_t> &pending = pendingWaits[in.opLane[j]];
      for (int32_t from : pending) {
        b.eventFrom.push_back(from);
        b.eventTo.push_back(j);
      }
      pending.clear();
      lastOp[in.opLane[j]] = j;
    }
    if (ki == in.recordKind && in.event[i]) {
      int32_t op = in.stream[i] >= 0 ? lastOp[in.stream[i]] : -1;
      for (int32_t q = b.opsStart[i]; q < b.opsStart[i + 1]; q++)
        if (in.opKind[b.opsOf[q]] == in.eventRecordOp) {
          op = b.opsOf[q];
          break;
        }
      b.recordOp[i] = op + kIdBias;
      const int32_t ev = in.event[i];
      b.replaced[i] = ev >= 0 ? current[ev] : 0;
      if (ev >= 0) current[ev] = i + kIdBias;
    }
    const bool issued = b.opsStart[i + 1] > b.opsStart[i];
    if (ki == in.memcpyKind && issued && in.copyKind[b.opsOf[b.opsStart[i]]] == in.dtoh) lastCopy[copySlot(i)] = i;
    // A copy or memset that blocked until its own op completed (S17, S18).
    const int32_t released = in.releasedBy[i];
    if ((ki == in.memcpyKind || ki == in.memsetKind) && in.blockedNs[i] > 0 && released >= 0 && size_t(released) < O &&
        in.opCall[released] == i)
      for (int32_t q = b.opsStart[i]; q < b.opsStart[i + 1]; q++) wait(i, b.opsOf[q]);
  }
  if (!std::is_sorted(b.waits.begin(), b.waits.end())) std::sort(b.waits.begin(), b.waits.end());
  b.awaits = sparseRows(awaitCall, awaitOp, C);
}

StreamWork streamWork(const StreamWorkInput &in) {
  StreamWork w;
  size_t lanes = in.lanes;
  for (size_t j = 0; j < in.ops; j++) lanes = std::max<size_t>(lanes, size_t(in.lane[j]) + 1);
  w.start.assign(lanes + 1, 0);
  auto isWork = [&](size_t j) { return in.kind[j] < in.kinds && in.isWork[in.kind[j]]; };
  for (size_t j = 0; j < in.ops; j++)
    if (isWork(j)) w.start[in.lane[j] + 1]++;
  for (size_t l = 0; l < lanes; l++) w.start[l + 1] += w.start[l];
  w.ids.resize(size_t(w.start[lanes]));
  std::vector<int32_t> next(w.start.begin(), w.start.end() - 1);
  for (size_t j = 0; j < in.ops; j++)
    if (isWork(j)) w.ids[next[in.lane[j]]++] = int32_t(j);
  for (size_t l = 0; l < lanes; l++) {
    auto first = w.ids.begin() + w.start[l], last = w.ids.begin() + w.start[l + 1];
    // In order where each start is at or after the one before (a NaN start is not).
    bool sorted = true;
    for (auto k = first; k != last && k + 1 != last && sorted; ++k) sorted = in.start[*k] <= in.start[*(k + 1)];
    // (start, id): the TypeScript comparator `start[a] - start[b] || a - b`.
    if (!sorted)
      std::sort(first, last, [&](int32_t a, int32_t b) {
        double d = in.start[a] - in.start[b];
        return d != 0 && !std::isnan(d) ? d < 0 : a < b;
      });
  }
  // overlaps() in stream-flags.ts: an op of the other lane and one of the legacy lane each start
  // more than overlapNs before the other ends; the legacy lane's prefixes keep their furthest end.
  w.overlapped.assign(in.pairs, 0);
  for (size_t p = 0; p < in.pairs; p++) {
    const int32_t legacy = in.pairs2[2 * p], other = in.pairs2[2 * p + 1];
    if (legacy < 0 || size_t(legacy) >= lanes || other < 0 || size_t(other) >= lanes) continue;
    const int32_t *ref = w.ids.data() + w.start[legacy];
    const size_t n = size_t(w.start[legacy + 1] - w.start[legacy]);
    std::vector<double> reach(n);
    for (size_t k = 0; k < n; k++) reach[k] = maxOf(in.end[ref[k]], k ? reach[k - 1] : -INFINITY);
    size_t lo = 0;
    for (int32_t q = w.start[other]; q < w.start[other + 1]; q++) {
      const int32_t j = w.ids[q];
      const double bound = in.end[j] - in.overlapNs;
      // How many ops of the legacy lane start before `bound` (a start, then a search either way).
      auto firstAtOrAfter = [&](size_t from, size_t to) {
        while (from < to) {
          const size_t mid = (from + to) >> 1;
          if (in.start[ref[mid]] < bound) from = mid + 1;
          else to = mid;
        }
        return from;
      };
      if (lo > 0 && in.start[ref[lo - 1]] >= bound) lo = firstAtOrAfter(0, lo);
      else {
        size_t a = lo, b = lo;
        for (size_t step = 1; b < n && in.start[ref[b]] < bound; step *= 2) {
          a = b + 1;
          b = a + step;
        }
        lo = firstAtOrAfter(a, std::min(b, n));
      }
      if (lo > 0 && reach[lo - 1] - in.start[j] > in.overlapNs) {
        w.overlapped[p] = 1;
        break;
      }
    }
  }
  return w;
}

void holdCandidates(const HoldInput &in, std::vector<int32_t> &found, std::vector<double> &delays) {
  const int32_t *ops = in.op, *others = in.other;
  const int64_t n = int64_t(in.ops), m = int64_t(in.others);
  int64_t k = 0;
  for (int64_t q = 0; q < n; q++) {
    const int32_t y = ops[q];
    while (k < m && in.end[others[k]] <= in.start[y]) k++;
    const int32_t x = k > 0 ? others[k - 1] : -1;
    const double gap = x >= 0 ? in.start[y] - in.end[x] : INFINITY;
    if (gap > in.maxStartGapNs) {
      if (k >= m) break;
      // gallopToStart in stream-flags.ts: the first op from q + 1 on that starts at or after the other's next end.
      const double bound = in.end[others[k]];
      int64_t lo = q + 1, hi = q + 1;
      for (int64_t step = 1; hi < n && in.start[ops[hi]] < bound; step *= 2) {
        lo = hi + 1;
        hi = lo + step;
      }
      hi = std::min(hi, n);
      while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (in.start[ops[mid]] < bound) lo = mid + 1;
        else hi = mid;
      }
      q = lo - 1;
      continue;
    }
    const int32_t call = in.call[y];
    const int32_t prev = q > 0 ? ops[q - 1] : -1;
    double ready = call >= 0 ? in.callEnd[call] - in.callBlockedNs[call] : -INFINITY;
    if (prev >= 0) ready = maxOf(ready, in.end[prev]);
    if (!(in.end[x] > ready)) continue;
    const double delay = in.end[x] - ready;
    if (delay < in.minDelayNs || delay < in.holdRatio * gap) continue;
    if ((in.kind[y] == in.kernelKind) == (in.kind[x] == in.kernelKind)) continue;
    found.insert(found.end(), {y, x, prev});
    delays.push_back(delay);
  }
}

size_t clockRows(const ClockGraph &g) {
  const LaneView &v = g.lanes;
  const int64_t C = int64_t(v.calls);
  auto launcherOf = [&](int64_t x) { return x < C ? -1 : g.launcher[x - C]; };
  size_t rows = 1;
  for (size_t l = 0; l < v.lanes; l++)
    for (int32_t k = v.laneStart[l]; k < v.laneStart[l + 1]; k++) {
      const int32_t x = v.order[k], p = k > v.laneStart[l] ? v.order[k - 1] : -1;
      if (launcherOf(x) >= 0 || rowOfKey(g.predHas, g.predBefore, x) >= 0 || (p >= 0 && launcherOf(p) >= 0)) rows++;
    }
  return rows;
}

size_t vectorClocks(const ClockGraph &g, int32_t *rows, size_t rowCount, int32_t *rowOf) {
  const LaneView &v = g.lanes;
  const int64_t C = int64_t(v.calls);
  const int64_t L = int64_t(v.lanes);
  const int32_t *lane = v.lane, *seq = v.seq, *launcher = g.launcher, *pred = g.predIds;
  std::vector<int32_t> doneIn(size_t(L), 0);
  auto done = [&](int32_t q) { return seq[q] <= doneIn[lane[q]]; };
  auto hasPreds = [&](int64_t x) { return (uint32_t(g.predHas[x >> 5]) >> (x & 31)) & 1u; };
  size_t nextRow = 1;
  bool partial = false;  // set for the nodes of a cycle, whose predecessors may not be done

  auto known = [&](int32_t c, int32_t p, int32_t own) {
    const int64_t rc = int64_t(rowOf[c]) * L, rp = p >= 0 ? int64_t(rowOf[p]) * L : 0;
    for (int64_t d = 0; d < L; d++)
      if (d != lane[c] && d != own && rows[rc + d] > rows[rp + d]) return false;
    return true;
  };
  auto join = [&](int64_t r, int32_t q) {
    const int64_t rq = int64_t(rowOf[q]) * L;
    for (int64_t d = 0; d < L; d++) rows[r + d] = std::max(rows[r + d], rows[rq + d]);
    if (seq[q] > rows[r + lane[q]]) rows[r + lane[q]] = seq[q];
    const int32_t c = q < C ? -1 : launcher[q - C];
    if (c >= 0 && seq[c] > rows[r + lane[c]]) rows[r + lane[c]] = seq[c];
  };
  auto compute = [&](int32_t x, int32_t p) {
    const int32_t cx = x < C ? -1 : launcher[x - C];
    const int32_t cp = p < C ? -1 : launcher[p - C];
    const bool covered = cp < 0 || (cx >= 0 && lane[cx] == lane[cp] && seq[cx] >= seq[cp]);
    const bool implied = covered && cx >= 0 && (!partial || done(cx)) && known(cx, p, lane[x]);
    const bool joinsLaunch = cx >= 0 && !implied && !(partial && !done(cx));
    const int32_t row = hasPreds(x) ? rowOfKey(g.predHas, g.predBefore, x) : -1;
    const int32_t k0 = row < 0 ? 0 : g.predStart[row], k1 = row < 0 ? 0 : g.predStart[row + 1];
    bool any = joinsLaunch;
    for (int32_t k = k0; k < k1 && !any; k++) any = !(partial && !done(pred[k]));
    if (!any && covered) {
      rowOf[x] = p >= 0 ? rowOf[p] : 0;
      return;
    }
    if (nextRow >= rowCount) throw std::length_error("vectorClocks(): more rows than counted");
    const int64_t r = int64_t(nextRow++) * L;
    if (p >= 0) {
      std::copy(rows + int64_t(rowOf[p]) * L, rows + int64_t(rowOf[p]) * L + L, rows + r);
      if (cp >= 0) rows[r + lane[cp]] = std::max(rows[r + lane[cp]], seq[cp]);
    }
    if (joinsLaunch) join(r, cx);
    for (int32_t k = k0; k < k1; k++)
      if (!(partial && !done(pred[k]))) join(r, pred[k]);
    rows[r + lane[x]] = seq[x];
    rowOf[x] = int32_t(r / L);
  };

  // sweepLanes in hb.ts: every node after its lane predecessor and its cross-lane predecessors.
  std::vector<int32_t> blocker(size_t(L), 0), waiters(size_t(L), -1), nextWaiter(size_t(L), 0), ready(size_t(L), 0);
  size_t readyCount = 0;
  for (int64_t l = L - 1; l >= 0; l--) ready[readyCount++] = int32_t(l);
  while (readyCount > 0) {
    const int32_t l = ready[--readyCount];
    const int32_t from = v.laneStart[l] + doneIn[l], end = v.laneStart[l + 1];
    int32_t k = from;
    for (; k < end; k++) {
      const int32_t x = v.order[k], p = k > v.laneStart[l] ? v.order[k - 1] : -1;
      if (x < C && p < C && !hasPreds(x)) {
        rowOf[x] = p >= 0 ? rowOf[p] : 0;
        doneIn[l]++;
        continue;
      }
      int32_t waitFor = x < C ? -1 : launcher[x - C];
      if (waitFor >= 0 && seq[waitFor] <= doneIn[lane[waitFor]]) waitFor = -1;
      const int32_t row = hasPreds(x) ? rowOfKey(g.predHas, g.predBefore, x) : -1;
      if (row >= 0)
        for (int32_t e = g.predStart[row]; e < g.predStart[row + 1] && waitFor < 0; e++)
          if (seq[pred[e]] > doneIn[lane[pred[e]]]) waitFor = pred[e];
      if (waitFor >= 0) {
        blocker[l] = waitFor;
        nextWaiter[l] = waiters[lane[waitFor]];
        waiters[lane[waitFor]] = l;
        break;
      }
      compute(x, p);
      doneIn[l]++;
    }
    if (k == from) continue;
    int32_t w = waiters[l];
    waiters[l] = -1;
    while (w >= 0) {
      const int32_t nextW = nextWaiter[w];
      if (seq[blocker[w]] <= doneIn[lane[blocker[w]]]) ready[readyCount++] = w;
      else {
        nextWaiter[w] = waiters[l];
        waiters[l] = w;
      }
      w = nextW;
    }
  }
  // A cycle (edges that contradict each other): its nodes in lane order with what is known.
  partial = true;
  for (int64_t l = 0; l < L; l++)
    for (int32_t k = v.laneStart[l] + doneIn[l]; k < v.laneStart[l + 1]; k++) {
      compute(v.order[k], k > v.laneStart[l] ? v.order[k - 1] : -1);
      doneIn[l]++;
    }
  return nextRow;
}

}  // namespace syncscope::hb
