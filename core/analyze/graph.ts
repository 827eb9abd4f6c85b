// The happens-before graph. Nodes are calls (ids 0..C-1) and ops (C..C+O-1). Each lane (a host
// thread, a stream) orders its own nodes: program order for calls, stream order for ops (S1).
// Cross-lane edges come from launches, the trace's stream/legacy/event/release edges (S3, S4,
// S6..S8, S12..S14) and the orderings that replaying the calls derives (bindings.ts).
import { CK } from '../trace/kinds';
import { EDGE_KINDS, Trace } from '../trace/model';
import { Bindings, bindEvents } from './bindings';
import { shiftStarts } from './csr';

export interface HbGraph {
  calls: number;
  nodes: number;
  lanes: number;
  /** Node -> its lane, or -1 for nodes outside any order (enclosing framework ranges). */
  lane: Int32Array;
  /** Node -> 1-based position in its lane. */
  seq: Int32Array;
  /** Lane l holds nodes order[laneStart[l]] .. order[laneStart[l + 1] - 1], in order. */
  order: Int32Array;
  laneStart: Int32Array;
  /** Cross-lane predecessors, in compressed rows (successors: `successors`, built when needed). */
  predStart: Int32Array;
  pred: Int32Array;
  bindings: Bindings;
}

export function buildGraph(t: Trace, bindings = bindEvents(t)): HbGraph {
  const C = t.calls.count;
  const N = C + t.ops.count;
  const L = t.lanes.length;
  const { ids: order, start: laneStart, lane, seq } = laneOrder(t);
  const { predStart, pred } = crossLaneEdges(t, bindings, lane, seq, order, laneStart);
  return { calls: C, nodes: N, lanes: L, lane, seq, order, laneStart, predStart, pred, bindings };
}

/**
 * The cross-lane edges in compressed rows of predecessors, each row in the order the edges are
 * listed: launches, the trace's edges, derived event orderings, host waits. One pass keeps the
 * edges that cross lanes and counts them per node; the rows are then filled from those alone (most
 * of a trace's edges stay within a lane). A derived event ordering that the trace also lists as its
 * last event edge into that op is left out: a repeated predecessor adds nothing.
 *
 * Each pass is a function of its own: a function run once is optimized while its loop runs, and
 * a small one is optimized sooner and at less cost than one holding every pass.
 */
function crossLaneEdges(
  t: Trace,
  bindings: Bindings,
  lane: Int32Array,
  seq: Int32Array,
  order: Int32Array,
  laneStart: Int32Array,
): { predStart: Int32Array; pred: Int32Array } {
  const C = t.calls.count;
  const N = C + t.ops.count;
  const { eventFrom, awaited } = bindings;
  // Room for every edge that might cross: pages never written cost nothing.
  const room = t.edges.count + eventFrom.length + awaited.length;
  const kept: KeptEdges = { from: new Int32Array(room), to: new Int32Array(room), count: 0 };
  const predStart = new Int32Array(N + 1);
  countLaunches(t.ops.call, lane, C, predStart);
  keepTraceEdges(t, lane, { lane, seq, order, laneStart }, predStart, kept);
  if (eventFrom.length) keepEventOrderings(t, bindings, lane, predStart, kept);
  keepHostWaits(t, bindings, { lane, seq, order, laneStart }, predStart, kept);
  for (let i = 0; i < N; i++) predStart[i + 1] += predStart[i];
  const pred = new Int32Array(predStart[N]);
  // Each row's start advances to the next row's as the row fills; moved back after.
  fillLaunches(t.ops.call, lane, C, predStart, pred);
  const { from, to, count } = kept;
  for (let k = 0; k < count; k++) pred[predStart[to[k]]++] = from[k];
  shiftStarts(predStart);
  return { predStart, pred };
}

/** Cross-lane edges other than launches, in the order they are listed, until their rows are filled. */
interface KeptEdges {
  from: Int32Array;
  to: Int32Array;
  count: number;
}

/** Whether the edge a -> b joins two nodes of different lanes. */
function crosses(lane: Int32Array, a: number, b: number): boolean {
  if (a < 0 || b < 0) return false;
  const la = lane[a];
  const lb = lane[b];
  return !(la < 0 || lb < 0 || la === lb);
}

function keep(lane: Int32Array, predStart: Int32Array, kept: KeptEdges, a: number, b: number): void {
  if (!crosses(lane, a, b)) return;
  kept.from[kept.count] = a;
  kept.to[kept.count++] = b;
  predStart[b + 1]++;
}

/** Launches come first in their rows, straight from the ops: not kept apart like the others. */
function countLaunches(opCall: Int32Array, lane: Int32Array, C: number, predStart: Int32Array): void {
  for (let j = 0; j < opCall.length; j++) if (crosses(lane, opCall[j], C + j)) predStart[C + j + 1]++;
}

function fillLaunches(opCall: Int32Array, lane: Int32Array, C: number, predStart: Int32Array, pred: Int32Array): void {
  for (let j = 0; j < opCall.length; j++) if (crosses(lane, opCall[j], C + j)) pred[predStart[C + j]++] = opCall[j];
}

const LAUNCH = EDGE_KINDS.indexOf('launch');
const RELEASE = EDGE_KINDS.indexOf('release');

/**
 * A call that waits for an op it issued itself (a blocking copy) orders that op before the calls
 * after it, not before itself: the call is also the op's launch.
 */
function keepOpToCall(t: Trace, lanes: LaneOrder, predStart: Int32Array, kept: KeptEdges, op: number, call: number) {
  const C = t.calls.count;
  keep(lanes.lane, predStart, kept, C + op, t.ops.call[op] === call ? laneNext(lanes, call) : call);
}

function keepTraceEdges(t: Trace, lane: Int32Array, lanes: LaneOrder, predStart: Int32Array, kept: KeptEdges): void {
  const C = t.calls.count;
  const opCall = t.ops.call;
  const { kind, from, to, count } = t.edges;
  for (let k = 0; k < count; k++) {
    if (kind[k] === LAUNCH) {
      if (opCall[to[k]] !== from[k]) keep(lane, predStart, kept, from[k], C + to[k]);
    } else if (kind[k] === RELEASE) keepOpToCall(t, lanes, predStart, kept, from[k], to[k]);
    else keep(lane, predStart, kept, C + from[k], C + to[k]);
  }
}

/** Derived event orderings, less those the trace lists as the last event edge into their op. */
function keepEventOrderings(t: Trace, b: Bindings, lane: Int32Array, predStart: Int32Array, kept: KeptEdges): void {
  const C = t.calls.count;
  const event = EDGE_KINDS.indexOf('event');
  const { kind, from, to, count } = t.edges;
  const eventInto = new Int32Array(t.ops.count).fill(-1);
  for (let k = 0; k < count; k++) if (kind[k] === event && to[k] >= 0) eventInto[to[k]] = from[k];
  const { eventFrom, eventTo } = b;
  for (let k = 0; k < eventFrom.length; k++)
    if (eventInto[eventTo[k]] !== eventFrom[k]) keep(lane, predStart, kept, C + eventFrom[k], C + eventTo[k]);
}

function keepHostWaits(t: Trace, b: Bindings, lanes: LaneOrder, predStart: Int32Array, kept: KeptEdges): void {
  const { awaitStart, awaited } = b;
  for (let c = 0; c < t.calls.count; c++)
    for (let q = awaitStart[c]; q < awaitStart[c + 1]; q++) keepOpToCall(t, lanes, predStart, kept, awaited[q], c);
}

/**
 * Calls and ops grouped by lane, in time order (context calls left out), with each node's lane and
 * 1-based position in it (lane -1 for nodes outside any). A counting sort groups them; items
 * usually arrive in time order already, so a lane is sorted only when it is not.
 */
function laneOrder(t: Trace): { ids: Int32Array; start: Int32Array; lane: Int32Array; seq: Int32Array } {
  const C = t.calls.count;
  const O = t.ops.count;
  const L = t.lanes.length;
  const calls = { lane: t.calls.lane, count: C, first: 0, kind: t.calls.kind, time: t.calls.begin };
  const ops = { lane: t.ops.lane, count: O, first: C, kind: undefined, time: t.ops.start };
  const start = new Int32Array(L + 1);
  countByLane(calls, start);
  countByLane(ops, start);
  for (let l = 0; l < L; l++) start[l + 1] += start[l];
  const first = start.slice(0, L);
  const placed = { ids: new Int32Array(start[L]), lane: new Int32Array(C + O), seq: new Int32Array(C + O) };
  // Each node placed at its lane's next free position, which is its place there until a sort.
  placeByLane(calls, start, first, placed);
  placeByLane(ops, start, first, placed);
  shiftStarts(start);
  const { ids, seq } = placed;
  const time = (i: number) => (i < C ? t.calls.begin[i] : t.ops.start[i - C]);
  for (let l = 0; l < L; l++) {
    if (inTimeOrder(ids, start[l], start[l + 1], C, t.calls.begin, t.ops.start)) continue;
    ids.subarray(start[l], start[l + 1]).sort((x, y) => time(x) - time(y) || x - y);
    for (let k = start[l]; k < start[l + 1]; k++) seq[ids[k]] = k - start[l] + 1;
  }
  return { ids, start, lane: placed.lane, seq };
}

/** Calls or ops: their lanes, their node ids from `first`, and the call kinds (context calls have no lane). */
interface LaneItems {
  lane: Uint32Array;
  count: number;
  first: number;
  kind: Uint8Array | undefined;
}

/** Whether item i lies in one of the L lanes. */
const inLane = (items: LaneItems, i: number, L: number): boolean =>
  items.lane[i] < L && (items.kind === undefined || items.kind[i] !== CK.context);

function countByLane(items: LaneItems, start: Int32Array): void {
  const L = start.length - 1;
  for (let i = 0; i < items.count; i++) if (inLane(items, i, L)) start[items.lane[i] + 1]++;
}

function placeByLane(
  items: LaneItems,
  start: Int32Array,
  first: Int32Array,
  out: { ids: Int32Array; lane: Int32Array; seq: Int32Array },
): void {
  const L = start.length - 1;
  const { ids, lane, seq } = out;
  for (let i = 0; i < items.count; i++) {
    const x = items.first + i;
    if (!inLane(items, i, L)) {
      lane[x] = -1;
      continue;
    }
    const l = items.lane[i];
    ids[start[l]++] = x;
    lane[x] = l;
    seq[x] = start[l] - first[l];
  }
}

/** Whether the nodes ids[a .. b) are in time order. */
function inTimeOrder(ids: Int32Array, a: number, b: number, C: number, begin: Float64Array, opStart: Float64Array) {
  for (let k = a + 1; k < b; k++) {
    const x = ids[k - 1];
    const y = ids[k];
    if (!((x < C ? begin[x] : opStart[x - C]) <= (y < C ? begin[y] : opStart[y - C]))) return false;
  }
  return true;
}

/**
 * Cross-lane successors, in compressed rows: the predecessor rows turned around. Built for the one
 * pass that needs them, so that the graph kept through the analysis holds one direction only.
 */
export function successors(g: HbGraph): { succStart: Int32Array; succ: Int32Array } {
  const { nodes: N, predStart, pred } = g;
  const succStart = new Int32Array(N + 1);
  for (let k = 0; k < pred.length; k++) succStart[pred[k] + 1]++;
  for (let i = 0; i < N; i++) succStart[i + 1] += succStart[i];
  const succ = new Int32Array(pred.length);
  // Rows filled through succStart[p], each moved one row down; shifted back below.
  for (let x = 0; x < N; x++) for (let k = predStart[x]; k < predStart[x + 1]; k++) succ[succStart[pred[k]]++] = x;
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
