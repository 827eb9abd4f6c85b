// Happens-before with vector clocks, one component per lane (host thread or stream), in the style
// of PyTorch's CUDA sanitizer. A node's clock says, for every lane, how many of that lane's nodes
// happen before it, so "A before B" is one comparison and a cone is a prefix or suffix per lane.
//
// Clocks change only where a cross-lane edge arrives; every other node shares the row of the node
// before it in its lane (its own component is its position, kept apart). Calls rarely receive
// edges, so a trace of a million launches stores about one row per op.
import { checkClockRoom, type MemoryBudget } from '../memory';
import type { Trace } from '../trace/model';
import { int32Tables, rowOfKey } from './csr';
import { buildGraph, HbGraph, launcherOf } from './graph';
import { viaKernel } from './graph-kernel';

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
  const { rows, rowOf } = vectorClocks(g, memory);
  const clock = (x: number, d: number): number => {
    if (lane[x] === d) return seq[x];
    if (lane[x] < 0) return 0;
    const v = rows[rowOf[x] * L + d];
    const c = launcherOf(g, x);
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
 * Every node's clock: `rows` holds the distinct rows, L components each, and `rowOf` each node's
 * row; a node's own component and its launcher's position are kept apart from it. A node's clock
 * is its row raised by its launcher's position: the ops a thread launches in a row then share the
 * row of the op before them, where their launch taught their stream nothing but the launch itself.
 */
function vectorClocks(g: HbGraph, memory: MemoryBudget | undefined): { rows: Int32Array; rowOf: Int32Array } {
  // The native half counts the rows it needs, exactly, before it makes them.
  const rows = viaKernel((k) => k.hbClockRows(g));
  if (rows !== undefined && memory) checkClockRoom(memory, { rows, lanes: g.lanes, calls: g.calls });
  return (rows !== undefined && viaKernel((k) => k.hbClocks(g, rows))) || clocksHere(g, memory);
}

/** vectorClocks in TypeScript: the reference, and where there is no native half. */
function clocksHere(g: HbGraph, memory: MemoryBudget | undefined): { rows: Int32Array; rowOf: Int32Array } {
  const { lane, seq, nodes: N, lanes: L, calls: C, order, laneStart, preds } = g;
  const launchers = g.launcher;
  const launcher = (x: number) => (x < C ? -1 : launchers[x - C]);
  const rowCount = memory ? countRows(g) : rowBound(g);
  if (memory) checkClockRoom(memory, { rows: rowCount, lanes: L, calls: C });
  const [rows, rowOf] = int32Tables(rowCount * L, N);
  // How many nodes of each lane have their clocks: always a prefix of the lane.
  const doneIn = new Int32Array(L);
  const done = (q: number) => seq[q] <= doneIn[lane[q]];
  let nextRow = 1;
  // Whether launcher c knows nothing beyond p's row but its own lane (x's own lane is kept apart).
  const known = (c: number, p: number, own: number) => {
    const rc = rowOf[c] * L;
    const rp = p >= 0 ? rowOf[p] * L : 0;
    for (let d = 0; d < L; d++) if (d !== lane[c] && d !== own && rows[rc + d] > rows[rp + d]) return false;
    return true;
  };
  /** Joins node q's clock (its row, its own position and its launcher's) into row r. */
  const join = (r: number, q: number) => {
    const rq = rowOf[q] * L;
    for (let d = 0; d < L; d++) if (rows[rq + d] > rows[r + d]) rows[r + d] = rows[rq + d];
    if (seq[q] > rows[r + lane[q]]) rows[r + lane[q]] = seq[q];
    const c = launcher(q);
    if (c >= 0 && seq[c] > rows[r + lane[c]]) rows[r + lane[c]] = seq[c];
  };

  let partial = false; // set for the nodes of a cycle, whose predecessors may not be done
  /** Node x's clock, p being the node before it in its lane or -1. */
  const compute = (x: number, p: number) => {
    const cx = x < C ? -1 : launchers[x - C];
    const cp = p < C ? -1 : launchers[p - C];
    // Whether x's launcher stands for p's launcher too (same thread, later).
    const covered = cp < 0 || (cx >= 0 && lane[cx] === lane[cp] && seq[cx] >= seq[cp]);
    // Whether x's launch adds nothing to what p's clock and the launcher's position tell.
    const implied = covered && cx >= 0 && (!partial || done(cx)) && known(cx, p, lane[x]);
    const joinsLaunch = cx >= 0 && !implied && !(partial && !done(cx));
    // Most nodes have no other predecessor: their bit says so without the row's look-up.
    const row = preds.has[x >>> 5] & (1 << (x & 31)) ? rowOfKey(preds, x) : -1;
    const k0 = row < 0 ? 0 : preds.start[row];
    const k1 = row < 0 ? 0 : preds.start[row + 1];
    const pred = preds.ids;
    let any = joinsLaunch;
    for (let k = k0; k < k1 && !any; k++) any = !(partial && !done(pred[k]));
    if (!any && covered) {
      rowOf[x] = p >= 0 ? rowOf[p] : 0;
      return;
    }
    const r = nextRow++ * L;
    if (p >= 0) {
      rows.copyWithin(r, rowOf[p] * L, rowOf[p] * L + L);
      // Stored whether or not it raises the row: a store made every time is one the optimized code
      // has seen, where a rare one would send it back to the interpreter when first met.
      if (cp >= 0) rows[r + lane[cp]] = Math.max(rows[r + lane[cp]], seq[cp]);
    }
    if (joinsLaunch) join(r, cx);
    for (let k = k0; k < k1; k++) if (!(partial && !done(pred[k]))) join(r, pred[k]);
    rows[r + lane[x]] = seq[x];
    rowOf[x] = r / L;
  };

  sweepLanes(g, doneIn, rowOf, compute);
  // Edges that contradict each other (clock skew in an imported trace) leave a cycle: take its
  // nodes in lane order with what is known.
  partial = true;
  for (let l = 0; l < L; l++)
    for (let k = laneStart[l] + doneIn[l]; k < laneStart[l + 1]; k++) {
      compute(order[k], k > laneStart[l] ? order[k - 1] : -1);
      doneIn[l]++;
    }
  // There was room for a row for every node that might need one; the view keeps those used. The
  // rows never written were never touched, so no memory backs them; a copy would touch them again.
  return { rows: rows.subarray(0, nextRow * L), rowOf };
}

/**
 * Room for the rows where no budget asks for their count: one per node on a lane and the empty
 * row, which saves countRows' pass over every node. Only the rows made are ever touched, so the
 * room costs nothing; where it would reach past MAX_ROOM_BYTES, the rows are counted.
 */
function rowBound(g: HbGraph): number {
  const rows = g.laneStart[g.lanes] + 1;
  return rows * g.lanes * 4 <= MAX_ROOM_BYTES ? rows : countRows(g);
}

const MAX_ROOM_BYTES = 64 << 20;

/**
 * How many rows the clocks may take: the empty row, and one per node that has cross-lane
 * predecessors (its launch or others) or follows an op with a launcher in its lane.
 */
function countRows(g: HbGraph): number {
  const { lanes: L, order, laneStart, preds } = g;
  let rows = 1;
  for (let l = 0; l < L; l++)
    for (let k = laneStart[l]; k < laneStart[l + 1]; k++) {
      const x = order[k];
      const p = k > laneStart[l] ? order[k - 1] : -1;
      if (launcherOf(g, x) >= 0 || rowOfKey(preds, x) >= 0 || (p >= 0 && launcherOf(g, p) >= 0)) rows++;
    }
  return rows;
}

/**
 * Visits every node after its lane predecessor and its cross-lane predecessors (a topological
 * order), lane by lane: a lane runs until its next node waits for a node not yet done, and waits
 * on that node's lane until the node is done. Nodes on a cycle are left undone. `doneIn[l]`
 * counts the nodes of lane l visited, a prefix of the lane.
 */
function sweepLanes(g: HbGraph, doneIn: Int32Array, rowOf: Int32Array, visit: (x: number, prev: number) => void): void {
  const { lane, seq, lanes: L, calls: C, order, laneStart, launcher, preds } = g;
  const { has, ids: pred } = preds;
  const blocker = new Int32Array(L); // the node a waiting lane waits for
  const waiters = new Int32Array(L).fill(-1); // lane -> first lane waiting on it, then nextWaiter
  const nextWaiter = new Int32Array(L);
  const ready = new Int32Array(L);
  let readyCount = 0;
  for (let l = L - 1; l >= 0; l--) ready[readyCount++] = l;
  while (readyCount > 0) {
    const l = ready[--readyCount];
    const from = laneStart[l] + doneIn[l];
    const end = laneStart[l + 1];
    let k = from;
    for (; k < end; k++) {
      const x = order[k];
      const p = k > laneStart[l] ? order[k - 1] : -1;
      // A call after a call (or first in its lane) with no cross-lane predecessor has the clock of
      // the call before it (of none, first): most of a thread's calls, taken here without a visit.
      if (x < C && p < C && !(has[x >>> 5] & (1 << (x & 31)))) {
        rowOf[x] = p >= 0 ? rowOf[p] : 0;
        doneIn[l]++;
        continue;
      }
      // The first predecessor not yet done, the launch first.
      let waitFor = x < C ? -1 : launcher[x - C];
      if (waitFor >= 0 && seq[waitFor] <= doneIn[lane[waitFor]]) waitFor = -1;
      const row = preds.has[x >>> 5] & (1 << (x & 31)) ? rowOfKey(preds, x) : -1;
      if (row >= 0)
        for (let e = preds.start[row]; e < preds.start[row + 1] && waitFor < 0; e++)
          if (seq[pred[e]] > doneIn[lane[pred[e]]]) waitFor = pred[e];
      if (waitFor >= 0) {
        blocker[l] = waitFor;
        nextWaiter[l] = waiters[lane[waitFor]];
        waiters[lane[waitFor]] = l;
        break;
      }
      visit(x, p);
      doneIn[l]++;
    }
    if (k === from) continue;
    // Lanes whose node is now done run again; the others keep waiting.
    let w = waiters[l];
    waiters[l] = -1;
    while (w >= 0) {
      const next = nextWaiter[w];
      if (seq[blocker[w]] <= doneIn[lane[blocker[w]]]) ready[readyCount++] = w;
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
