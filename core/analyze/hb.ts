// Happens-before with vector clocks, one component per lane (host thread or stream), in the style
// of PyTorch's CUDA sanitizer. A node's clock says, for every lane, how many of that lane's nodes
// happen before it, so "A before B" is one comparison and a cone is a prefix or suffix per lane.
//
// Clocks change only where a cross-lane edge arrives; every other node shares the row of the node
// before it in its lane (its own component is its position, kept apart). Calls rarely receive
// edges, so a trace of a million launches stores about one row per op.
import { checkClockRoom, type MemoryBudget } from '../memory';
import type { Trace } from '../trace/model';
import { buildGraph, HbGraph } from './graph';

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

/** `memory`: the clocks are checked against it before they are made (they grow with lanes x nodes). */
export function happensBefore(t: Trace, graph: HbGraph = buildGraph(t), memory?: MemoryBudget): HappensBefore {
  const g = graph;
  const { lane, seq, lanes: L } = g;
  const launcher = launcherOf(t, g);
  const { rows, rowOf } = vectorClocks(g, launcher, memory);
  const clock = (x: number, d: number): number => {
    if (lane[x] === d) return seq[x];
    if (lane[x] < 0) return 0;
    const v = rows[rowOf[x] * L + d];
    const c = launcher(x);
    return c >= 0 && lane[c] === d && seq[c] > v ? seq[c] : v;
  };
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

/**
 * The call whose launch edge reaches op node `x` from another lane, or -1. A node's clock is its
 * row raised by its launcher's position: the ops a thread launches in a row then share the row of
 * the op before them, where their launch taught their stream nothing but the launch itself.
 */
function launcherOf(t: Trace, g: HbGraph): (x: number) => number {
  const { lane, calls: C } = g;
  const opCall = t.ops.call;
  // Looked up several times per node while the clocks are built: found once per op.
  const launchers = new Int32Array(t.ops.count);
  for (let j = 0; j < launchers.length; j++) {
    const c = opCall[j];
    launchers[j] = c >= 0 && lane[c] >= 0 && lane[C + j] >= 0 && lane[c] !== lane[C + j] ? c : -1;
  }
  return (x) => (x < C ? -1 : launchers[x - C]);
}

/**
 * Every node's clock: `rows` holds the distinct rows, L components each, and `rowOf` each node's
 * row; a node's own component and its launcher's position (launcherOf) are kept apart from it.
 */
function vectorClocks(
  g: HbGraph,
  launcher: (x: number) => number,
  memory: MemoryBudget | undefined,
): { rows: Int32Array; rowOf: Int32Array } {
  const { lane, seq, nodes: N, lanes: L, order, laneStart, predStart, pred } = g;
  // Whether x's launcher `c` stands for its lane predecessor p's launcher too (same thread, later).
  const covers = (p: number, c: number) => {
    const cp = p >= 0 ? launcher(p) : -1;
    return cp < 0 || (c >= 0 && lane[c] === lane[cp] && seq[c] >= seq[cp]);
  };
  // A node takes a row of its own only where it has cross-lane predecessors or is not covered,
  // which needs a launcher before it in its lane: counted without asking about its own.
  let rowCount = 1; // row 0: the empty clock
  for (let l = 0; l < L; l++)
    for (let k = laneStart[l]; k < laneStart[l + 1]; k++) {
      const x = order[k];
      if (predStart[x + 1] > predStart[x] || (k > laneStart[l] && launcher(order[k - 1]) >= 0)) rowCount++;
    }
  if (memory) checkClockRoom(memory, { rows: rowCount, lanes: L, calls: g.calls });
  const rows = new Int32Array(rowCount * L);
  const rowOf = new Int32Array(N);
  const done = new Uint8Array(N);
  let nextRow = 1;
  const raise = (r: number, c: number) => {
    if (c >= 0 && seq[c] > rows[r + lane[c]]) rows[r + lane[c]] = seq[c];
  };
  // Whether launcher c knows nothing beyond p's row but its own lane (x's own lane is kept apart).
  const known = (c: number, p: number, own: number) => {
    const rc = rowOf[c] * L;
    const rp = p >= 0 ? rowOf[p] * L : 0;
    for (let d = 0; d < L; d++) if (d !== lane[c] && d !== own && rows[rc + d] > rows[rp + d]) return false;
    return true;
  };

  let partial = false; // set for the nodes of a cycle, whose predecessors may not be done
  // Whether predecessor q's clock joins x's: not where x's launcher cx already implies it.
  const joins = (q: number, cx: number, implied: boolean) => !(q === cx && implied) && !(partial && !done[q]);
  /** Node x's clock, p being the node before it in its lane or -1. */
  const compute = (x: number, p: number) => {
    const cx = launcher(x);
    const covered = covers(p, cx);
    const implied = covered && cx >= 0 && (!partial || done[cx] === 1) && known(cx, p, lane[x]);
    const k0 = predStart[x];
    const k1 = predStart[x + 1];
    let any = false;
    for (let k = k0; k < k1 && !any; k++) any = joins(pred[k], cx, implied);
    if (!any && covered) {
      rowOf[x] = p >= 0 ? rowOf[p] : 0;
      done[x] = 1;
      return;
    }
    const r = nextRow++ * L;
    if (p >= 0) {
      const rp = rowOf[p] * L;
      for (let d = 0; d < L; d++) rows[r + d] = rows[rp + d];
      raise(r, launcher(p));
    }
    for (let k = k0; k < k1; k++) {
      const q = pred[k];
      if (!joins(q, cx, implied)) continue;
      const rq = rowOf[q] * L;
      for (let d = 0; d < L; d++) if (rows[rq + d] > rows[r + d]) rows[r + d] = rows[rq + d];
      if (seq[q] > rows[r + lane[q]]) rows[r + lane[q]] = seq[q];
      raise(r, launcher(q));
    }
    rows[r + lane[x]] = seq[x];
    rowOf[x] = r / L;
    done[x] = 1;
  };

  sweepLanes(g, done, compute);
  // Edges that contradict each other (clock skew in an imported trace) leave a cycle: take its
  // nodes in lane order with what is known.
  partial = true;
  for (let l = 0; l < L; l++)
    for (let k = laneStart[l]; k < laneStart[l + 1]; k++)
      if (!done[order[k]]) compute(order[k], k > laneStart[l] ? order[k - 1] : -1);
  // Rows were counted for every node that might need one; the view keeps those used. The rows
  // never written were never touched, so no memory backs them; a copy would touch the rest again.
  return { rows: rows.subarray(0, nextRow * L), rowOf };
}

/**
 * Visits every node after its lane predecessor and its cross-lane predecessors (a topological
 * order), lane by lane: a lane runs until its next node waits for a node not yet done, and waits
 * on that node's lane until the node is done. Nodes on a cycle are left undone.
 */
function sweepLanes(g: HbGraph, done: Uint8Array, visit: (x: number, prev: number) => void): void {
  const { lane, lanes: L, order, laneStart, predStart, pred } = g;
  const pos = laneStart.slice(0, L);
  const blocker = new Int32Array(L); // the node a waiting lane waits for
  const waiters = new Int32Array(L).fill(-1); // lane -> first lane waiting on it, then nextWaiter
  const nextWaiter = new Int32Array(L);
  const ready = new Int32Array(L);
  let readyCount = 0;
  for (let l = L - 1; l >= 0; l--) ready[readyCount++] = l;
  while (readyCount > 0) {
    const l = ready[--readyCount];
    const from = pos[l];
    const end = laneStart[l + 1];
    for (let k = from; k < end; k++) {
      const x = order[k];
      let waitFor = -1;
      for (let e = predStart[x]; e < predStart[x + 1] && waitFor < 0; e++) if (!done[pred[e]]) waitFor = pred[e];
      if (waitFor >= 0) {
        blocker[l] = waitFor;
        nextWaiter[l] = waiters[lane[waitFor]];
        waiters[lane[waitFor]] = l;
        break;
      }
      visit(x, k > laneStart[l] ? order[k - 1] : -1);
      pos[l] = k + 1;
    }
    if (pos[l] === from) continue;
    // Lanes whose node is now done run again; the others keep waiting.
    let w = waiters[l];
    waiters[l] = -1;
    while (w >= 0) {
      const next = nextWaiter[w];
      if (done[blocker[w]]) ready[readyCount++] = w;
      else {
        nextWaiter[w] = waiters[l];
        waiters[l] = w;
      }
      w = next;
    }
  }
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
