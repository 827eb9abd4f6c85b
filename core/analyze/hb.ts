// Happens-before with vector clocks, one component per lane (host thread or stream), in the style
// of PyTorch's CUDA sanitizer. A node's clock says, for every lane, how many of that lane's nodes
// happen before it, so "A before B" is one comparison and a cone is a prefix or suffix per lane.
//
// Clocks change only where a cross-lane edge arrives; every other node shares the row of the node
// before it in its lane (its own component is its position, kept apart). Calls rarely receive
// edges, so a trace of a million launches stores about one row per op.
import type { Trace } from '../trace/model';
import { buildGraph, HbGraph, successors } from './graph';

export interface NodeRef {
  kind: 'call' | 'op';
  id: number;
}

export interface NodeSet {
  calls: Int32Array;
  ops: Int32Array;
}

export interface HappensBefore {
  graph: HbGraph;
  /** Whether `a` happens before `b` (never true for a node and itself). */
  before(a: NodeRef, b: NodeRef): boolean;
  /** Everything that happens before `x`, and everything that `x` happens before. */
  cone(x: NodeRef): { before: NodeSet; after: NodeSet };
  /** The same on graph node ids (calls 0..C-1, then ops C..C+O-1). */
  beforeNode(a: number, b: number): boolean;
  /** Component `lane` of node's clock: how many nodes of that lane happen before or are it. */
  clock(node: number, lane: number): number;
}

export const nodeId = (g: HbGraph, r: NodeRef): number => (r.kind === 'call' ? r.id : g.calls + r.id);

export function happensBefore(t: Trace, graph: HbGraph = buildGraph(t)): HappensBefore {
  const g = graph;
  const { lane, seq, lanes: L } = g;
  const { rows, rowOf } = vectorClocks(g);
  const clock = (x: number, d: number): number => (lane[x] === d ? seq[x] : lane[x] < 0 ? 0 : rows[rowOf[x] * L + d]);
  const beforeNode = (a: number, b: number): boolean => {
    if (a === b || lane[a] < 0 || lane[b] < 0) return false;
    return clock(b, lane[a]) >= seq[a];
  };
  return {
    graph: g,
    before: (a, b) => beforeNode(nodeId(g, a), nodeId(g, b)),
    beforeNode,
    clock,
    cone: (r) => cone(g, clock, nodeId(g, r)),
  };
}

/** Every node's clock: `rows` holds the distinct rows, L components each, and `rowOf` each node's row. */
function vectorClocks(g: HbGraph): { rows: Int32Array; rowOf: Int32Array } {
  const { lane, seq, nodes: N, lanes: L } = g;
  let rowCount = 1; // row 0: the empty clock
  for (let x = 0; x < N; x++) if (lane[x] >= 0 && g.predStart[x + 1] > g.predStart[x]) rowCount++;
  const rows = new Int32Array(rowCount * L);
  const rowOf = new Int32Array(N);
  const done = new Uint8Array(N);
  let nextRow = 1;

  let partial = false; // set for the nodes of a cycle, whose predecessors may not be done
  const compute = (x: number) => {
    const p = seq[x] > 1 ? g.order[g.laneStart[lane[x]] + seq[x] - 2] : -1;
    const k0 = g.predStart[x];
    const k1 = g.predStart[x + 1];
    if (k0 === k1) {
      rowOf[x] = p >= 0 ? rowOf[p] : 0;
      done[x] = 1;
      return;
    }
    const r = nextRow++ * L;
    // The first join also copies the lane predecessor's row.
    let base = p >= 0 ? rowOf[p] * L : 0;
    for (let k = k0; k < k1; k++) {
      const q = g.pred[k];
      if (partial && !done[q]) continue;
      const rq = rowOf[q] * L;
      for (let d = 0; d < L; d++) {
        const a = rows[base + d];
        const v = rows[rq + d];
        rows[r + d] = v > a ? v : a;
      }
      if (seq[q] > rows[r + lane[q]]) rows[r + lane[q]] = seq[q];
      base = r;
    }
    if (base !== r) rows.copyWithin(r, base, base + L);
    rows[r + lane[x]] = seq[x];
    rowOf[x] = r / L;
    done[x] = 1;
  };

  // Kahn's order over lane order plus cross-lane edges.
  const { succStart, succ } = successors(g);
  const indeg = new Int32Array(N);
  const queue = new Int32Array(N);
  let tail = 0;
  for (let x = 0; x < N; x++) {
    if (lane[x] < 0) continue;
    indeg[x] = g.predStart[x + 1] - g.predStart[x] + (seq[x] > 1 ? 1 : 0);
    if (indeg[x] === 0) queue[tail++] = x;
  }
  for (let head = 0; head < tail; head++) {
    const x = queue[head];
    compute(x);
    const k = g.laneStart[lane[x]] + seq[x];
    if (k < g.laneStart[lane[x] + 1] && --indeg[g.order[k]] === 0) queue[tail++] = g.order[k];
    for (let s = succStart[x]; s < succStart[x + 1]; s++) if (--indeg[succ[s]] === 0) queue[tail++] = succ[s];
  }
  // Edges that contradict each other (clock skew in an imported trace) leave a cycle: take its
  // nodes in lane order with what is known.
  if (tail < g.order.length) {
    partial = true;
    for (const x of g.order) if (!done[x]) compute(x);
  }
  return { rows, rowOf };
}

/** The nodes in ranges of lane order, split into calls and ops. */
function collect(g: HbGraph, ranges: [number, number][]): NodeSet {
  const calls: number[] = [];
  const ops: number[] = [];
  for (const [a, b] of ranges)
    for (let k = a; k < b; k++) {
      const n = g.order[k];
      if (n < g.calls) calls.push(n);
      else ops.push(n - g.calls);
    }
  return { calls: Int32Array.from(calls), ops: Int32Array.from(ops) };
}

/** What happens before node `x` and what `x` happens before: a prefix and a suffix of each lane. */
function cone(g: HbGraph, clock: (x: number, d: number) => number, x: number): { before: NodeSet; after: NodeSet } {
  const { lane, seq, lanes: L } = g;
  if (lane[x] < 0) return { before: collect(g, []), after: collect(g, []) };
  const lx = lane[x];
  const before: [number, number][] = [];
  const after: [number, number][] = [];
  for (let d = 0; d < L; d++) {
    const a = g.laneStart[d];
    const b = g.laneStart[d + 1];
    if (a === b) continue;
    if (d === lx) {
      before.push([a, a + seq[x] - 1]);
      after.push([a + seq[x], b]);
      continue;
    }
    before.push([a, a + clock(x, d)]);
    // Clocks only grow along a lane: the first node that has seen x starts the suffix.
    let lo = a;
    let hi = b;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (clock(g.order[mid], lx) >= seq[x]) hi = mid;
      else lo = mid + 1;
    }
    after.push([lo, b]);
  }
  return { before: collect(g, before), after: collect(g, after) };
}
