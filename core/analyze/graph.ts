// The happens-before graph. Nodes are calls (ids 0..C-1) and ops (C..C+O-1). Each lane (a host
// thread, a stream) orders its own nodes: program order for calls, stream order for ops (S1).
// Cross-lane edges come from launches, the trace's stream/legacy/event/release edges (S3, S4,
// S6..S8, S12..S14) and the orderings that replaying the calls derives (bindings.ts). A launch is
// each op's one edge from its own call: kept per op (`launcher`, usually the ops' calls
// themselves), apart from the other edges, which few nodes have.
//
// The graph takes memory by what it must: each new array is memory touched for the first time,
// which costs more than most passes over it, so per-node facts are kept in the narrowest arrays
// that hold them and the other edges in rows for the nodes that have them only.
import { CK } from '../trace/kinds';
import { EDGE_KINDS, Trace } from '../trace/model';
import { Bindings, bindEvents } from './bindings';
import { int32Tables, rowEnd, rowFirst, shiftStarts, sparseRows, type SparseRows } from './csr';
import { viaKernel, type KernelGraph, type KernelLanes, type LaneIds } from './graph-kernel';

export type { LaneIds } from './graph-kernel';

/** The graph: its lanes, launchers and cross-lane predecessors (KernelGraph, which the native half reads too), and what else the analyses read of it. */
export interface HbGraph extends KernelGraph {
  /** How many edges of each kind (EDGE_KINDS) the trace lists: a check of one kind skips a trace without any. */
  edgeCounts: Int32Array;
  bindings: Bindings;
}

export function buildGraph(t: Trace, given?: Bindings): HbGraph {
  const C = t.calls.count;
  const N = C + t.ops.count;
  const L = t.lanes.length;
  const { ids: order, start: laneStart, lane, seq, launcher, callOrder } = nativeLaneOrder(t) ?? laneOrder(t);
  const bindings = given ?? bindEvents(t, callOrder);
  const lanes = { calls: C, nodes: N, lanes: L, lane, seq, order, laneStart };
  const native = nativeCrossLanes(t, bindings, lanes);
  const edgeCounts = native?.edgeCounts ?? new Int32Array(EDGE_KINDS.length);
  const preds = native?.preds ?? crossLaneEdges(t, bindings, lanes, edgeCounts);
  return { ...lanes, launcher, preds, edgeCounts, bindings };
}

/** laneOrder by the native half (graph-kernel.ts), where there is one and it takes the trace. */
function nativeLaneOrder(t: Trace): ReturnType<typeof laneOrder> | undefined {
  return viaKernel((k) => {
    const r = k.hbLaneOrder({
      calls: t.calls.count,
      ops: t.ops.count,
      lanes: t.lanes.length,
      callLane: t.calls.lane,
      callKind: t.calls.kind,
      callBegin: t.calls.begin,
      opLane: t.ops.lane,
      opStart: t.ops.start,
      opCall: t.ops.call,
      contextKind: CK.context,
    });
    return {
      ids: r.order,
      start: r.start,
      lane: r.lane,
      seq: r.seq,
      launcher: r.launcher ?? t.ops.call,
      callOrder: r.callOrderFrom >= 0 ? r.order.subarray(r.callOrderFrom, r.callOrderTo) : undefined,
    };
  });
}

/** crossLaneEdges by the native half, with the edge counts, where there is one and it takes the trace. */
function nativeCrossLanes(
  t: Trace,
  b: Bindings,
  lanes: KernelLanes,
): { preds: SparseRows; edgeCounts: Int32Array } | undefined {
  return viaKernel((k) => {
    const { edgeCounts, ...preds } = k.hbCrossLanes(lanes, {
      opCall: t.ops.call,
      edges: t.edges.count,
      edgeKind: t.edges.kind,
      edgeFrom: t.edges.from,
      edgeTo: t.edges.to,
      edgeKinds: EDGE_KINDS.length,
      launchEdge: LAUNCH,
      releaseEdge: RELEASE,
      eventEdge: EDGE_KINDS.indexOf('event'),
      eventFrom: b.eventFrom,
      eventTo: b.eventTo,
      waitKeys: b.awaits.keys,
      waitStart: b.awaits.start,
      waitIds: b.awaits.ids,
    });
    return { preds, edgeCounts };
  });
}

/** The call whose launch reaches node x from another lane (x's first predecessor), or -1. */
export const launcherOf = (g: Pick<HbGraph, 'calls' | 'launcher'>, x: number): number =>
  x < g.calls ? -1 : g.launcher[x - g.calls];

/**
 * Per op, the call that launched it where that call is on another lane, else -1: looked up
 * several times per node while the clocks are made, so found once per op. Usually every op's call
 * is on another lane (or it has none), and the ops' own column is the answer (see laneOrder).
 */
function launchers(opCall: Int32Array, lane: LaneIds, C: number): Int32Array {
  const launcher = new Int32Array(opCall.length);
  for (let j = 0; j < opCall.length; j++) launcher[j] = crosses(lane, opCall[j], C + j) ? opCall[j] : -1;
  return launcher;
}

/**
 * The cross-lane edges other than launches as rows of predecessors, each row in the order the
 * edges are listed: the trace's edges, derived event orderings, host waits. One pass keeps the
 * edges that cross lanes; the rows are then made from those alone (most of a trace's edges stay
 * within a lane). A derived event ordering that the trace also lists as its last event edge into
 * that op is left out: a repeated predecessor adds nothing.
 *
 * Each pass is a function of its own: a function run once is optimized while its loop runs, and
 * a small one is optimized sooner and at less cost than one holding every pass.
 */
function crossLaneEdges(t: Trace, bindings: Bindings, lanes: LaneOrder, edgeCounts: Int32Array): SparseRows {
  const N = t.calls.count + t.ops.count;
  const { eventFrom, awaits } = bindings;
  const { lane } = lanes;
  // Room for every edge that might cross: pages never written cost nothing.
  const room = t.edges.count + eventFrom.length + awaits.ids.length;
  const [from, to] = int32Tables(room, room);
  const kept: KeptEdges = { from, to, count: 0 };
  keepTraceEdges(t, lanes, kept, edgeCounts);
  if (eventFrom.length) keepEventOrderings(t, bindings, lane, kept);
  keepHostWaits(t, bindings, lanes, kept);
  return sparseRows(kept.to, kept.from, kept.count, N);
}

/** Cross-lane edges other than launches, in the order they are listed, until their rows are made. */
interface KeptEdges {
  from: Int32Array;
  to: Int32Array;
  count: number;
}

/** Whether the edge a -> b joins two nodes of different lanes. */
function crosses(lane: LaneIds, a: number, b: number): boolean {
  if (a < 0 || b < 0) return false;
  const la = lane[a];
  const lb = lane[b];
  return !(la < 0 || lb < 0 || la === lb);
}

function keep(lane: LaneIds, kept: KeptEdges, a: number, b: number): void {
  if (!crosses(lane, a, b)) return;
  kept.from[kept.count] = a;
  kept.to[kept.count++] = b;
}

const LAUNCH = EDGE_KINDS.indexOf('launch');
const RELEASE = EDGE_KINDS.indexOf('release');

/**
 * A call that waits for an op it issued itself (a blocking copy) orders that op before the calls
 * after it, not before itself: the call is also the op's launch.
 */
function keepOpToCall(t: Trace, lanes: LaneOrder, kept: KeptEdges, op: number, call: number) {
  const C = t.calls.count;
  keep(lanes.lane, kept, C + op, t.ops.call[op] === call ? laneNext(lanes, call) : call);
}

/** The trace's edges that cross lanes, and how many edges of each kind it lists. */
function keepTraceEdges(t: Trace, lanes: LaneOrder, kept: KeptEdges, counts: Int32Array): void {
  const C = t.calls.count;
  const opCall = t.ops.call;
  const { lane } = lanes;
  const { kind, from, to, count } = t.edges;
  for (let k = 0; k < count; k++) {
    counts[kind[k]]++;
    if (kind[k] === LAUNCH) {
      if (opCall[to[k]] !== from[k]) keep(lane, kept, from[k], C + to[k]);
    } else if (kind[k] === RELEASE) keepOpToCall(t, lanes, kept, from[k], to[k]);
    // Most op -> op edges are stream order, within a lane: passed over here, without a call.
    else if (lane[C + from[k]] !== lane[C + to[k]]) keep(lane, kept, C + from[k], C + to[k]);
  }
}

/** Derived event orderings, less those the trace lists as the last event edge into their op. */
function keepEventOrderings(t: Trace, b: Bindings, lane: LaneIds, kept: KeptEdges): void {
  const C = t.calls.count;
  const event = EDGE_KINDS.indexOf('event');
  const { kind, from, to, count } = t.edges;
  const eventInto = new Int32Array(t.ops.count).fill(-1);
  for (let k = 0; k < count; k++) if (kind[k] === event && to[k] >= 0) eventInto[to[k]] = from[k];
  const { eventFrom, eventTo } = b;
  for (let k = 0; k < eventFrom.length; k++)
    if (eventInto[eventTo[k]] !== eventFrom[k]) keep(lane, kept, C + eventFrom[k], C + eventTo[k]);
}

/** Each waiting call's awaited ops, the calls in id order. */
function keepHostWaits(t: Trace, b: Bindings, lanes: LaneOrder, kept: KeptEdges): void {
  const { keys, start, ids } = b.awaits;
  for (let r = 0; r < keys.length; r++)
    for (let q = start[r]; q < start[r + 1]; q++) keepOpToCall(t, lanes, kept, ids[q], keys[r]);
}

/**
 * Calls and ops grouped by lane, in time order (context calls left out), with each node's lane and
 * 1-based position in it (lane -1 for nodes outside any). A counting sort groups them; items
 * usually arrive in time order already, so a lane is sorted only when it is not.
 */
function laneOrder(t: Trace): {
  ids: Int32Array;
  start: Int32Array;
  lane: LaneIds;
  seq: Int32Array;
  launcher: Int32Array;
  /** Where every call (context calls aside) is on one lane, that lane's order: the calls in time order. */
  callOrder: Int32Array | undefined;
} {
  const C = t.calls.count;
  const O = t.ops.count;
  const L = t.lanes.length;
  const start = new Int32Array(L + 1);
  const callsOutside = countByLane(t.calls.lane, t.calls.kind, C, start);
  const callLane = callsOutside ? -1 : onlyLane(start);
  const callsOnIt = callLane < 0 ? 0 : start[callLane + 1];
  countByLane(t.ops.lane, undefined, O, start);
  for (let l = 0; l < L; l++) start[l + 1] += start[l];
  const first = start.slice(0, L);
  const [ids, seq] = int32Tables(start[L], C + O);
  const placed: Placed = {
    ids,
    lane: laneIds(L, C + O),
    seq,
    last: new Float64Array(L),
    unordered: new Uint8Array(L),
    notLaunches: 0,
  };
  // Each node placed at its lane's next free position, which is its place there until a sort.
  placeByLane(t.calls.lane, t.calls.kind, t.calls.begin, 0, C, start, first, placed);
  placeByLane(t.ops.lane, undefined, t.ops.start, C, O, start, first, placed, t.ops.call);
  shiftStarts(start);
  const time = (i: number) => (i < C ? t.calls.begin[i] : t.ops.start[i - C]);
  for (let l = 0; l < L; l++) {
    if (!placed.unordered[l]) continue;
    ids.subarray(start[l], start[l + 1]).sort((x, y) => time(x) - time(y) || x - y);
    for (let k = start[l]; k < start[l + 1]; k++) seq[ids[k]] = k - start[l] + 1;
  }
  // The one lane's calls in the order they were placed (call order) are the calls in time order
  // where the lane needed no sort: then no time order of the calls is made apart.
  const callOrder =
    callLane >= 0 && !placed.unordered[callLane] && start[callLane + 1] - start[callLane] === callsOnIt
      ? ids.subarray(start[callLane], start[callLane + 1])
      : undefined;
  return {
    ids,
    start,
    lane: placed.lane,
    seq,
    callOrder,
    // Where every op's call is its launch from another lane, the launchers are the ops' calls.
    launcher: placed.notLaunches ? launchers(t.ops.call, placed.lane, C) : t.ops.call,
  };
}

/** An array for n nodes' lanes, of the narrowest signed type that holds lanes 0 .. L - 1 and -1. */
function laneIds(L: number, n: number): LaneIds {
  if (L <= 0x7f) return new Int8Array(n);
  return L <= 0x7fff ? new Int16Array(n) : new Int32Array(n);
}

/**
 * Counts items i < n per lane into start[lane + 1]: those on one of the lanes, context calls left
 * out (`kind` for calls). Returns how many others, not context calls, are on no lane.
 */
function countByLane(lanes: Uint32Array, kind: Uint8Array | undefined, n: number, start: Int32Array): number {
  const L = start.length - 1;
  const context = kind ? CK.context : -1;
  let outside = 0;
  for (let i = 0; i < n; i++) {
    if (kind !== undefined && kind[i] === context) continue;
    if (lanes[i] < L) start[lanes[i] + 1]++;
    else outside++;
  }
  return outside;
}

/** The one lane counted in start[lane + 1] with any item, or -1 where there are none or several. */
function onlyLane(start: Int32Array): number {
  let only = -1;
  for (let l = 0; l + 1 < start.length; l++) {
    if (!start[l + 1]) continue;
    if (only >= 0) return -1;
    only = l;
  }
  return only;
}

/**
 * What placeByLane writes: the grouped ids, each node's lane and position, per lane its last time
 * and whether one went back, and how many ops name a call that is not their launch from another lane.
 */
interface Placed {
  ids: Int32Array;
  lane: LaneIds;
  seq: Int32Array;
  last: Float64Array;
  unordered: Uint8Array;
  notLaunches: number;
}

/**
 * Places items i < n (node ids from `first`) at their lanes' next free positions, and marks the
 * lanes where an item's time is not at or after the time placed before it there. For ops (`calls`
 * given, the calls placed before them), also counts those whose call is not their launch from
 * another lane (launchers): a call on the op's lane or on none, or one past the calls.
 */
function placeByLane(
  lanes: Uint32Array,
  kind: Uint8Array | undefined,
  time: Float64Array,
  firstNode: number,
  n: number,
  next: Int32Array,
  laneFirst: Int32Array,
  out: Placed,
  calls?: Int32Array,
): void {
  const L = next.length - 1;
  const context = kind ? CK.context : -1;
  const { ids, lane, seq, last, unordered } = out;
  for (let i = 0; i < n; i++) {
    const x = firstNode + i;
    const l = lanes[i];
    const placed = l < L && (kind === undefined || kind[i] !== context);
    if (calls) {
      const c = calls[i];
      if (c >= 0 && !(c < firstNode && placed && lane[c] >= 0 && lane[c] !== l)) out.notLaunches++;
    }
    if (!placed) {
      lane[x] = -1;
      continue;
    }
    const k = next[l]++;
    ids[k] = x;
    lane[x] = l;
    seq[x] = k - laneFirst[l] + 1;
    if (k > laneFirst[l] && !(last[l] <= time[i])) unordered[l] = 1;
    last[l] = time[i];
  }
}

/**
 * Cross-lane successors, launches included, in compressed rows: the predecessor rows turned
 * around. Built for the one pass that needs them, so that the graph kept through the analysis
 * holds one direction only.
 */
export function successors(g: HbGraph): { succStart: Int32Array; succ: Int32Array } {
  const { nodes: N, preds } = g;
  const succStart = new Int32Array(N + 1);
  for (let x = 0; x < N; x++) {
    const c = launcherOf(g, x);
    if (c >= 0) succStart[c + 1]++;
  }
  for (let k = 0; k < preds.ids.length; k++) succStart[preds.ids[k] + 1]++;
  for (let i = 0; i < N; i++) succStart[i + 1] += succStart[i];
  const succ = new Int32Array(succStart[N]);
  // Rows filled through succStart[p], each moved one row down; shifted back below.
  for (let x = 0; x < N; x++) {
    const c = launcherOf(g, x);
    if (c >= 0) succ[succStart[c]++] = x;
    for (let k = rowFirst(preds, x), end = rowEnd(preds, x); k < end; k++) succ[succStart[preds.ids[k]]++] = x;
  }
  shiftStarts(succStart);
  return { succStart, succ };
}

/** What a walk along the lanes reads of the graph. */
type LaneOrder = Pick<HbGraph, 'lane' | 'seq' | 'order' | 'laneStart'>;

/** The node before `node` in its lane, or -1. */
export function lanePrev(g: LaneOrder, node: number): number {
  return g.seq[node] > 1 ? g.order[g.laneStart[g.lane[node]] + g.seq[node] - 2] : -1;
}

/** The node after `node` in its lane, or -1. */
export function laneNext(g: LaneOrder, node: number): number {
  if (g.lane[node] < 0) return -1;
  const k = g.laneStart[g.lane[node]] + g.seq[node];
  return k < g.laneStart[g.lane[node] + 1] ? g.order[k] : -1;
}
