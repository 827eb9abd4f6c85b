// The happens-before graph. Nodes are calls (ids 0..C-1) and ops (C..C+O-1). Each lane (a host
// thread, a stream) orders its own nodes: program order for calls, stream order for ops (S1).
// Cross-lane edges come from launches, the trace's stream/legacy/event/release edges (S3, S4,
// S6..S8, S12..S14) and the orderings that replaying the calls derives (bindings.ts).
import { CK } from '../trace/kinds';
import { EDGE_KINDS, Trace } from '../trace/model';
import { Bindings, bindEvents } from './bindings';
import { IntList, shiftStarts } from './csr';

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
  const O = t.ops.count;
  const N = C + O;
  const opCall = t.ops.call;
  const { kind: edgeKind, from: edgeFrom, to: edgeTo, count: E } = t.edges;
  const { eventFrom, eventTo, awaitStart, awaited } = bindings;
  const src = new IntList(1024);
  const dst = new IntList(1024);
  const predStart = new Int32Array(N + 1);
  const crosses = (a: number, b: number) => {
    if (a < 0 || b < 0) return false;
    const la = lane[a];
    const lb = lane[b];
    return !(la < 0 || lb < 0 || la === lb);
  };
  const add = (a: number, b: number) => {
    if (!crosses(a, b)) return;
    src.push(a);
    dst.push(b);
    predStart[b + 1]++;
  };
  // A call that waits for an op it issued itself (a blocking copy) orders that op before the
  // calls after it, not before itself: the call is also the op's launch.
  const lanes = { lane, seq, order, laneStart };
  const opToCall = (op: number, call: number) => add(C + op, opCall[op] === call ? laneNext(lanes, call) : call);
  const launch = EDGE_KINDS.indexOf('launch');
  const release = EDGE_KINDS.indexOf('release');
  const event = EDGE_KINDS.indexOf('event');
  const eventInto = new Int32Array(O).fill(-1);
  // Launches come first in their rows, straight from the ops: not kept apart like the others.
  for (let j = 0; j < O; j++) if (crosses(opCall[j], C + j)) predStart[C + j + 1]++;
  for (let k = 0; k < E; k++) {
    const kind = edgeKind[k];
    if (kind === launch) {
      if (opCall[edgeTo[k]] !== edgeFrom[k]) add(edgeFrom[k], C + edgeTo[k]);
    } else if (kind === release) opToCall(edgeFrom[k], edgeTo[k]);
    else {
      if (kind === event && edgeTo[k] >= 0) eventInto[edgeTo[k]] = edgeFrom[k];
      add(C + edgeFrom[k], C + edgeTo[k]);
    }
  }
  for (let k = 0; k < eventFrom.length; k++)
    if (eventInto[eventTo[k]] !== eventFrom[k]) add(C + eventFrom[k], C + eventTo[k]);
  for (let c = 0; c < C; c++) for (let q = awaitStart[c]; q < awaitStart[c + 1]; q++) opToCall(awaited[q], c);

  for (let i = 0; i < N; i++) predStart[i + 1] += predStart[i];
  const pred = new Int32Array(predStart[N]);
  // Each row's start advances to the next row's as the row fills; moved back after.
  for (let j = 0; j < O; j++) if (crosses(opCall[j], C + j)) pred[predStart[C + j]++] = opCall[j];
  const from = src.view();
  const to = dst.view();
  for (let k = 0; k < to.length; k++) pred[predStart[to[k]]++] = from[k];
  shiftStarts(predStart);
  return { predStart, pred };
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
  const context = CK.context;
  const { kind, lane: callLane, begin } = t.calls;
  const { lane: opLane, start: opStart } = t.ops;
  const start = new Int32Array(L + 1);
  for (let c = 0; c < C; c++) if (kind[c] !== context && callLane[c] >= 0) start[callLane[c] + 1]++;
  for (let j = 0; j < O; j++) if (opLane[j] >= 0) start[opLane[j] + 1]++;
  for (let l = 0; l < L; l++) start[l + 1] += start[l];
  const first = start.slice(0, L);
  const ids = new Int32Array(start[L]);
  const lane = new Int32Array(C + O).fill(-1);
  const seq = new Int32Array(C + O);
  // Each node placed at its lane's next free position, which is its place there until a sort.
  for (let c = 0; c < C; c++) {
    const l = callLane[c];
    if (kind[c] === context || !(l >= 0 && l < L)) continue;
    ids[start[l]++] = c;
    lane[c] = l;
    seq[c] = start[l] - first[l];
  }
  for (let j = 0; j < O; j++) {
    const l = opLane[j];
    if (!(l >= 0 && l < L)) continue;
    ids[start[l]++] = C + j;
    lane[C + j] = l;
    seq[C + j] = start[l] - first[l];
  }
  shiftStarts(start);
  const time = (i: number) => (i < C ? begin[i] : opStart[i - C]);
  for (let l = 0; l < L; l++) {
    let sorted = true;
    for (let k = start[l] + 1; k < start[l + 1] && sorted; k++) sorted = time(ids[k - 1]) <= time(ids[k]);
    if (sorted) continue;
    ids.subarray(start[l], start[l + 1]).sort((x, y) => time(x) - time(y) || x - y);
    for (let k = start[l]; k < start[l + 1]; k++) seq[ids[k]] = k - start[l] + 1;
  }
  return { ids, start, lane, seq };
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
