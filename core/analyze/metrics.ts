// How the run spent its time: host blocked, GPU busy (per stream and for the device), overlap, and
// the critical path: from the last thing to finish, back through whichever predecessor finished
// last (launch, stream, event and release edges, and host program order).
import { CK } from '../trace/kinds';
import { CALL_KINDS, OP_KINDS, Trace, str } from '../trace/model';
import { laneName, opName } from './describe';
import type { LaneIds } from './graph';
import type { HappensBefore } from './hb';
import type { Metrics } from './types';
import { rowOfKey, shiftStarts } from './csr';
import { sortRuns } from './merge-runs';

/** Op kinds that occupy the GPU (markers and host functions do not). */
const BUSY = Uint8Array.from(OP_KINDS, (k) => (k === 'kernel' || k === 'memcpy' || k === 'memset' ? 1 : 0));

/**
 * The GPU-busy ops' start and end times (kernels, copies, memsets that took time), each sorted, and
 * each lane's busy time: gathered and sorted once for the metrics and for the idle gaps of loopSyncs.
 * Read only: the times may be the trace's own columns.
 */
export interface BusyTimes {
  starts: Float64Array;
  ends: Float64Array;
  perLane: Float64Array;
  /**
   * The one device that ran every busy op when every busy op has well-formed, positive times, else
   * -1: then these times are that device's busy intervals' too, and every other device's are empty.
   */
  device: number;
}

export function busyTimes(t: Trace): BusyTimes {
  const L = t.lanes.length;
  const perLane = new Float64Array(L);
  const { kind, start, end, lane, count } = t.ops;
  let device = 0;
  let devices = 0;
  // A lane the trace does not list counts as device 0's; its ops form one run after the others.
  const laneDevice = Array.from(t.lanes, (l) => l?.device ?? 0);
  const run = (l: number) => (l >= 0 && l < L ? l : L);
  // Each lane's ops are one run of times, usually in order already: bounds[r] .. bounds[r + 1].
  // Ops usually come in start order, and often in end order too: then the times are taken in op
  // order, sorted as taken.
  const bounds = new Int32Array(L + 2);
  let startsInOrder = true;
  let endsInOrder = true;
  let lastStart = -Infinity;
  let lastEnd = -Infinity;
  for (let j = 0; j < count; j++) {
    if (!BUSY[kind[j]]) continue;
    if (end[j] > start[j]) {
      bounds[(lane[j] < L ? lane[j] : L) + 1]++;
      perLane[lane[j]] += end[j] - start[j];
      if (!(lastStart <= start[j])) startsInOrder = false;
      if (!(lastEnd <= end[j])) endsInOrder = false;
      lastStart = start[j];
      lastEnd = end[j];
    } else devices = 2;
    const d = laneDevice[lane[j]] ?? 0;
    if (devices === 0) devices = 1;
    else if (d !== device) devices = 2;
    device = d;
  }
  const one = devices <= 1 ? device : -1;
  for (let r = 0; r <= L; r++) bounds[r + 1] += bounds[r];
  const n = bounds[L + 1];
  // Every op busy, in start and in end order (a trace of kernels and copies, serial per stream):
  // the trace's own columns are the sorted times, and a copy of them would be memory touched for nothing.
  if (n === count && startsInOrder && endsInOrder) return { starts: start, ends: end, perLane, device: one };
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let j = 0, k = 0; j < count; j++) {
    if (!BUSY[kind[j]] || !(end[j] > start[j])) continue;
    const at = bounds[run(lane[j])]++;
    starts[startsInOrder ? k : at] = start[j];
    ends[endsInOrder ? k : at] = end[j];
    k++;
  }
  shiftStarts(bounds);
  // Touched only where runs are merged.
  const spare = new Float64Array(n);
  const sortedStarts = startsInOrder ? starts : sortRuns(starts, bounds, spare);
  const sortedEnds = endsInOrder ? ends : sortRuns(ends, bounds, sortedStarts === starts ? spare : starts);
  return { starts: sortedStarts, ends: sortedEnds, perLane, device: one };
}

export function computeMetrics(t: Trace, hb: HappensBefore, busyOps: BusyTimes = busyTimes(t)): Metrics {
  const g = hb.graph;
  // One pass over each table: its extent, the calls' blocked time, and the node that finished last.
  const last: LastToFinish = { node: -1, end: 0 };
  const calls = callTotals(t, g.lane, last);
  const ops = opTotals(t, g.lane, g.calls, last);
  // The extent of calls and ops together, as traceExtent takes it.
  const from = Math.min(calls.start, ops.start);
  const to = Math.max(calls.end, ops.end);
  const wallNs = from <= to ? to - from : 0;
  const pct = (ns: number) => (wallNs > 0 ? (100 * ns) / wallNs : 0);
  const threads = t.lanes.filter((l) => l.kind === 'thread').length || 1;

  const { busy, overlap } = busyAndOverlap(busyOps);
  const { perLane } = busyOps;
  const nodes = criticalNodes(t, hb, last.node);
  const C = g.calls;
  let path: Metrics['criticalPath'] | undefined;
  return {
    hostBlockedPct: pct(calls.blocked / threads),
    gpuBusyPct: pct(busy),
    overlapPct: busy > 0 ? (100 * overlap) / busy : 0,
    perStream: t.lanes.filter((l) => l.kind === 'stream').map((l) => ({ stream: l.name, busyPct: pct(perLane[l.id]) })),
    // The walk is done now, while the graph exists; the entries are built on first use, since a
    // run of a million launches has a path of a million host calls that most consumers never read.
    get criticalPath() {
      return (path ??= pathEntries(t, C, nodes));
    },
    wallNs,
  };
}

/**
 * A sweep over the sorted busy times: the time with at least one op running, and with two or
 * more. A function of its own, small, so that the engine optimizes its loop early.
 */
function busyAndOverlap({ starts, ends }: BusyTimes): { busy: number; overlap: number } {
  const n = starts.length;
  let busy = 0;
  let overlap = 0;
  let running = 0;
  let last = 0;
  for (let a = 0, b = 0; a < n || b < n;) {
    const at = a < n && starts[a] < ends[b] ? starts[a] : ends[b];
    if (running >= 1) busy += at - last;
    if (running >= 2) overlap += at - last;
    last = at;
    if (a < n && starts[a] < ends[b]) {
      running++;
      a++;
    } else {
      running--;
      b++;
    }
  }
  return { busy, overlap };
}

/** The node on a lane that finished last, calls before ops, the first of equal finishes: where the critical path ends. */
interface LastToFinish {
  node: number;
  end: number;
}

/** The calls' extent (NaN left out), their blocked time (context calls left out), and the last to finish so far. */
function callTotals(t: Trace, lane: LaneIds, last: LastToFinish): { start: number; end: number; blocked: number } {
  const { kind, begin, end, blockedNs, count } = t.calls;
  const context = CK.context;
  let from = Infinity;
  let to = -Infinity;
  let blocked = 0;
  let node = last.node;
  let nodeEnd = last.end;
  for (let i = 0; i < count; i++) {
    if (begin[i] < from) from = begin[i];
    if (end[i] > to) to = end[i];
    if (kind[i] !== context) blocked += blockedNs[i];
    // The first node taken, then only a later finish.
    if (lane[i] >= 0 && (node < 0 || end[i] > nodeEnd)) {
      node = i;
      nodeEnd = end[i];
    }
  }
  last.node = node;
  last.end = nodeEnd;
  return { start: from, end: to, blocked };
}

/** The ops' extent (NaN left out), and the last node to finish, taken on from the calls'. */
function opTotals(t: Trace, lane: LaneIds, C: number, last: LastToFinish): { start: number; end: number } {
  const { start, end, count } = t.ops;
  let from = Infinity;
  let to = -Infinity;
  let node = last.node;
  let nodeEnd = last.end;
  for (let j = 0; j < count; j++) {
    if (start[j] < from) from = start[j];
    if (end[j] > to) to = end[j];
    if (lane[C + j] >= 0 && (node < 0 || end[j] > nodeEnd)) {
      node = C + j;
      nodeEnd = end[j];
    }
  }
  last.node = node;
  last.end = nodeEnd;
  return { start: from, end: to };
}

/** The critical path's nodes, last first, from the node that finished last. */
function criticalNodes(t: Trace, hb: HappensBefore, from: number): Int32Array {
  const g = hb.graph;
  const C = g.calls;
  // The finish times are read where they lie: a copy for calls and ops alike costs more than it saves.
  const callEnd = t.calls.end;
  const opEnd = t.ops.end;
  const finish = (n: number) => (n < C ? callEnd[n] : opEnd[n - C]);
  const { lane, seq, order, laneStart, launcher, preds } = g;
  let x = from;
  // Room for every node; only the path's entries are written, and the view keeps those.
  const nodes = new Int32Array(g.nodes);
  let count = 0;
  // A bit per node: a path through edges that contradict each other (clock skew) stops where it comes back.
  const seen = new Int32Array((g.nodes >>> 5) + 1);
  while (x >= 0 && !(seen[x >>> 5] & (1 << (x & 31)))) {
    seen[x >>> 5] |= 1 << (x & 31);
    nodes[count++] = x;
    // The lane predecessor, then the launch, then the other predecessors: of equal finishes, the first.
    let best = seq[x] > 1 ? order[laneStart[lane[x]] + seq[x] - 2] : -1;
    let bestEnd = best < 0 ? 0 : finish(best);
    const c = x < C ? -1 : launcher[x - C];
    if (c >= 0 && (best < 0 || finish(c) > bestEnd)) {
      best = c;
      bestEnd = finish(c);
    }
    const row = preds.has[x >>> 5] & (1 << (x & 31)) ? rowOfKey(preds, x) : -1;
    for (let k = row < 0 ? 0 : preds.start[row], last = row < 0 ? 0 : preds.start[row + 1]; k < last; k++) {
      const p = preds.ids[k];
      const end = finish(p);
      if (best < 0 || end > bestEnd) {
        best = p;
        bestEnd = end;
      }
    }
    x = best;
  }
  return nodes.subarray(0, count);
}

function pathEntries(t: Trace, C: number, nodes: Int32Array): Metrics['criticalPath'] {
  // Long paths repeat a few names: build each label once.
  const callLabels: string[] = [];
  const opLabels = new Map<number, string>();
  const path: Metrics['criticalPath'] = [];
  for (let k = 0; k < nodes.length; k++) {
    const n = nodes[nodes.length - 1 - k];
    if (n < C) {
      const key = t.calls.name[n] * CALL_KINDS.length + t.calls.kind[n];
      const name = callLabels[key] ?? (callLabels[key] = str(t, t.calls.name[n]) || CALL_KINDS[t.calls.kind[n]]);
      path.push({ kind: 'call', id: n, name, startNs: t.calls.begin[n], endNs: t.calls.end[n] });
    } else {
      const j = n - C;
      const key = t.ops.name[j] * t.lanes.length + t.ops.lane[j];
      let name = opLabels.get(key);
      if (name === undefined) opLabels.set(key, (name = `${opName(t, j)} (${laneName(t, t.ops.lane[j])})`));
      path.push({ kind: 'op', id: j, name, startNs: t.ops.start[j], endNs: t.ops.end[j] });
    }
  }
  return path;
}
