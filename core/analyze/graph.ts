// The happens-before graph. Nodes are calls (ids 0..C-1) and ops (C..C+O-1). Each lane (a host
// thread, a stream) orders its own nodes: program order for calls, stream order for ops (S1).
// Cross-lane edges come from launches, the trace's stream/legacy/event/release edges (S3, S4,
// S6..S8, S12..S14) and the orderings that replaying the calls derives (bindings.ts).
import { CK } from '../trace/kinds';
import { EDGE_KINDS, Trace } from '../trace/model';
import { Bindings, bindEvents } from './bindings';

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
  const { ids: order, start: laneStart } = laneOrder(t);
  const lane = new Int32Array(N).fill(-1);
  const seq = new Int32Array(N);
  for (let l = 0; l < L; l++) {
    for (let k = laneStart[l]; k < laneStart[l + 1]; k++) {
      lane[order[k]] = l;
      seq[order[k]] = k - laneStart[l] + 1;
    }
  }
  const next = (node: number) => {
    const k = laneStart[lane[node]] + seq[node];
    return k < laneStart[lane[node] + 1] ? order[k] : -1;
  };

  // The cross-lane edges are counted per node, then stored in place in compressed rows: most of a
  // trace's edges stay within a lane.
  const predStart = new Int32Array(N + 1);
  let pred = new Int32Array(0);
  let filling = false;
  const add = (a: number, b: number) => {
    if (a < 0 || b < 0 || lane[a] < 0 || lane[b] < 0 || lane[a] === lane[b]) return;
    if (filling) pred[predStart[b]++] = a;
    else predStart[b + 1]++;
  };
  // A call that waits for an op it issued itself (a blocking copy) orders that op before the
  // calls after it, not before itself: the call is also the op's launch.
  const opToCall = (op: number, call: number) => add(C + op, t.ops.call[op] === call ? next(call) : call);
  const e = t.edges;
  const launch = EDGE_KINDS.indexOf('launch');
  const release = EDGE_KINDS.indexOf('release');
  const addAll = () => {
    for (let j = 0; j < t.ops.count; j++) if (t.ops.call[j] >= 0) add(t.ops.call[j], C + j);
    for (let k = 0; k < e.count; k++) {
      if (e.kind[k] === launch) {
        if (t.ops.call[e.to[k]] !== e.from[k]) add(e.from[k], C + e.to[k]);
      } else if (e.kind[k] === release) opToCall(e.from[k], e.to[k]);
      else add(C + e.from[k], C + e.to[k]);
    }
    for (let k = 0; k < bindings.eventFrom.length; k++) add(C + bindings.eventFrom[k], C + bindings.eventTo[k]);
    for (let c = 0; c < C; c++) {
      for (let q = bindings.awaitStart[c]; q < bindings.awaitStart[c + 1]; q++) opToCall(bindings.awaited[q], c);
    }
  };
  addAll();
  for (let i = 0; i < N; i++) predStart[i + 1] += predStart[i];
  pred = new Int32Array(predStart[N]);
  filling = true;
  // Each row's start advances to the next row's as the row fills; moved back after.
  addAll();
  shiftStarts(predStart);

  return { calls: C, nodes: N, lanes: L, lane, seq, order, laneStart, predStart, pred, bindings };
}

/**
 * Calls and ops grouped by lane, in time order (context calls left out). A counting sort groups
 * them; items usually arrive in time order already, so a lane is sorted only when it is not.
 */
function laneOrder(t: Trace): { ids: Int32Array; start: Int32Array } {
  const C = t.calls.count;
  const L = t.lanes.length;
  const context = CK.context;
  const { kind, lane: callLane, begin } = t.calls;
  const { lane: opLane, start: opStart } = t.ops;
  const start = new Int32Array(L + 1);
  for (let c = 0; c < C; c++) if (kind[c] !== context && callLane[c] >= 0) start[callLane[c] + 1]++;
  for (let j = 0; j < t.ops.count; j++) if (opLane[j] >= 0) start[opLane[j] + 1]++;
  for (let l = 0; l < L; l++) start[l + 1] += start[l];
  const ids = new Int32Array(start[L]);
  for (let c = 0; c < C; c++) if (kind[c] !== context && callLane[c] >= 0) ids[start[callLane[c]]++] = c;
  for (let j = 0; j < t.ops.count; j++) if (opLane[j] >= 0) ids[start[opLane[j]]++] = C + j;
  shiftStarts(start);
  const time = (i: number) => (i < C ? begin[i] : opStart[i - C]);
  for (let l = 0; l < L; l++) {
    let sorted = true;
    for (let k = start[l] + 1; k < start[l + 1] && sorted; k++) sorted = time(ids[k - 1]) <= time(ids[k]);
    if (!sorted) ids.subarray(start[l], start[l + 1]).sort((x, y) => time(x) - time(y) || x - y);
  }
  return { ids, start };
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

/** After a fill that advanced each row's start to the next row's, the starts moved back: no copy of them is needed. */
function shiftStarts(start: Int32Array): void {
  start.copyWithin(1, 0, start.length - 1);
  start[0] = 0;
}

/** The node before `node` in its lane, or -1. */
export function lanePrev(g: HbGraph, node: number): number {
  return g.seq[node] > 1 ? g.order[g.laneStart[g.lane[node]] + g.seq[node] - 2] : -1;
}

/** The node after `node` in its lane, or -1. */
export function laneNext(g: HbGraph, node: number): number {
  if (g.lane[node] < 0) return -1;
  const k = g.laneStart[g.lane[node]] + g.seq[node];
  return k < g.laneStart[g.lane[node] + 1] ? g.order[k] : -1;
}
