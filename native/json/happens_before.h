// The happens-before graph's lane order, cross-lane edges and vector clocks in native code: the same
// rules as core/analyze/graph.ts and core/analyze/hb.ts, which stay the reference and the fallback
// (test/native/hb-native.test.ts compares them on every fixture). Comments here say only where the
// code departs from the TypeScript in form; the rules are documented there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace syncscope::hb {

/** laneOrder's input: the trace's call and op columns. */
struct LaneOrderInput {
  size_t calls = 0, ops = 0, lanes = 0;
  const uint32_t *callLane = nullptr;
  const uint8_t *callKind = nullptr;
  const double *callBegin = nullptr;
  const uint32_t *opLane = nullptr;
  const double *opStart = nullptr;
  const int32_t *opCall = nullptr;
  uint8_t contextKind = 0;
};

/** laneOrder's result; `order` (room for every node) and `seq` (per node, zeroed) are the caller's. */
struct LaneOrder {
  int32_t *order = nullptr, *seq = nullptr;
  std::vector<int32_t> start;
  /** Per node its lane, -1 outside any. */
  std::vector<int32_t> lane;
  /** Empty where every op's call is its launch from another lane: the launchers are the ops' calls. */
  std::vector<int32_t> launcher;
  /** The one call lane's range of `order` where it is the calls in time order, else [-1, -1). */
  int32_t callOrderFrom = -1, callOrderTo = -1;
};

void laneOrder(const LaneOrderInput &in, LaneOrder &r);

/** The graph's lanes as crossLanes and the clocks read them. */
struct LaneView {
  size_t calls = 0, nodes = 0, lanes = 0;
  const int32_t *lane = nullptr;  // per node
  const int32_t *seq = nullptr;
  const int32_t *order = nullptr;
  const int32_t *laneStart = nullptr;
};

/** Compressed rows for the few keys that have one (SparseRows in core/analyze/csr.ts). */
struct SparseRows {
  std::vector<int32_t> has, before, keys, start, ids;
};

struct CrossLaneInput {
  const int32_t *opCall = nullptr;
  size_t edges = 0;
  const uint8_t *edgeKind = nullptr;
  const int32_t *edgeFrom = nullptr, *edgeTo = nullptr;
  size_t edgeKinds = 0;
  uint8_t launchEdge = 0, releaseEdge = 0, eventEdge = 0;
  size_t eventOrderings = 0;
  const int32_t *eventFrom = nullptr, *eventTo = nullptr;
  size_t waitRows = 0;
  const int32_t *waitKeys = nullptr, *waitStart = nullptr, *waitIds = nullptr;
};

/** crossLaneEdges: the rows of cross-lane predecessors other than launches; counts edges per kind. */
SparseRows crossLanes(const LaneView &g, const CrossLaneInput &in, std::vector<int32_t> &edgeCounts);

/** bindEvents' input: the columns the replay of the calls reads (bindings.ts). */
struct BindInput {
  size_t calls = 0, ops = 0, lanes = 0, strings = 0;
  const uint8_t *kind = nullptr, *answer = nullptr, *device = nullptr;
  const int32_t *event = nullptr, *event2 = nullptr, *stream = nullptr, *releasedBy = nullptr;
  const uint32_t *lane = nullptr;
  const double *blockedNs = nullptr;
  const int32_t *opCall = nullptr;
  const uint32_t *opLane = nullptr;
  const uint8_t *opKind = nullptr, *copyKind = nullptr;
  /** Per lane its device, -1 where the lane names none. */
  const int32_t *laneDevice = nullptr;
  /** The stream lanes, in lane order, and each one's device (-1: none). */
  size_t streams = 0;
  const int32_t *streamLane = nullptr, *streamDevice = nullptr;
  size_t timed = 0;
  const int32_t *timeOrder = nullptr;
  uint8_t streamWaitKind = 0, eventSyncKind = 0, queryKind = 0, elapsedKind = 0, streamSyncKind = 0, deviceSyncKind = 0,
          recordKind = 0, memcpyKind = 0, memsetKind = 0;
  uint8_t eventRecordOp = 0, dtoh = 0, ready = 0;
};

/**
 * bindEvents in bindings.ts: its columns as they are stored there (biased), `bound2` as (call,
 * record) pairs. The per-call columns are the caller's, zeroed, written only where they are not 0:
 * memory never written is never touched.
 */
struct Bound {
  int32_t *opsStart = nullptr;  // calls + 1
  int32_t *opsOf = nullptr;     // room for every op; opsOfCount used
  int32_t *bound = nullptr, *recordOp = nullptr, *replaced = nullptr, *consumers = nullptr;  // calls each
  size_t opsOfCount = 0;
  std::vector<int32_t> bound2, waits, syncCopies, eventFrom, eventTo;
  SparseRows awaits;
};

void bindEvents(const BindInput &in, Bound &b);

/** gpuWorkByLane and nonBlockingByOverlap's input (core/trace/stream-flags.ts). */
struct StreamWorkInput {
  size_t ops = 0, lanes = 0;
  const uint8_t *kind = nullptr;
  const uint32_t *lane = nullptr;
  const double *start = nullptr, *end = nullptr;
  /** Per op kind, whether it is GPU work that S3 orders. */
  size_t kinds = 0;
  const uint8_t *isWork = nullptr;
  /** (legacy lane, candidate lane) pairs to test for overlap. */
  size_t pairs = 0;
  const int32_t *pairs2 = nullptr;
  double overlapNs = 0;
};

struct StreamWork {
  /** Lane l's work is ids[start[l] .. start[l + 1]), in order of start (then id). */
  std::vector<int32_t> start, ids;
  /** Per pair, whether the two lanes' work overlapped by more than overlapNs. */
  std::vector<uint8_t> overlapped;
};

StreamWork streamWork(const StreamWorkInput &in);

/** holdCandidates' input (core/analyze/legacy-timing.ts): two streams' work, each in order of start. */
struct HoldInput {
  size_t ops = 0, others = 0;
  const int32_t *op = nullptr, *other = nullptr;
  const double *start = nullptr, *end = nullptr;
  const uint8_t *kind = nullptr;
  const int32_t *call = nullptr;
  const double *callEnd = nullptr, *callBlockedNs = nullptr;
  uint8_t kernelKind = 0;
  double maxStartGapNs = 0, minDelayNs = 0, holdRatio = 0;
};

/** holdCandidates: (op held, op it waited for, the op before it or -1) per hold, and each delay. */
void holdCandidates(const HoldInput &in, std::vector<int32_t> &ops, std::vector<double> &delayNs);

/** The graph as the clocks read it: the lanes, each op's launcher from another lane, the predecessor rows. */
struct ClockGraph {
  LaneView lanes;
  const int32_t *launcher = nullptr;  // per op
  const int32_t *predHas = nullptr, *predBefore = nullptr, *predStart = nullptr, *predIds = nullptr;
};

/** countRows in hb.ts: how many rows the clocks may take. */
size_t clockRows(const ClockGraph &g);

/** vectorClocks in hb.ts: `rows` (rowCount x lanes, zeroed) and `rowOf` (per node) filled; returns the rows used. */
size_t vectorClocks(const ClockGraph &g, int32_t *rows, size_t rowCount, int32_t *rowOf);

}  // namespace syncscope::hb
