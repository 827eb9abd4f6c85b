// How the run spent its time: host blocked, GPU busy (per stream and for the device), overlap, and
// the critical path: from the last thing to finish, back through whichever predecessor finished
// last (launch, stream, event and release edges, and host program order).
import { CK } from '../trace/kinds';
import { CALL_KINDS, OP_KINDS, Trace, str, traceExtent } from '../trace/model';
import { laneName, opName } from './describe';
import { lanePrev } from './graph';
import type { HappensBefore } from './hb';
import type { Metrics } from './types';
import { shiftStarts } from './csr';
import { sortRuns } from './merge-runs';

/** Op kinds that occupy the GPU (markers and host functions do not). */
const BUSY = Uint8Array.from(OP_KINDS, (k) => (k === 'kernel' || k === 'memcpy' || k === 'memset' ? 1 : 0));

/**
 * The GPU-busy ops' start and end times (kernels, copies, memsets that took time), each sorted, and
 * each lane's busy time: gathered and sorted once for the metrics and for the idle gaps of loopSyncs.
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
  const bounds = new Int32Array(L + 2);
  for (let j = 0; j < count; j++) {
    if (!BUSY[kind[j]]) continue;
    if (end[j] > start[j]) bounds[run(lane[j]) + 1]++;
    else devices = 2;
    const d = laneDevice[lane[j]] ?? 0;
    if (devices === 0) devices = 1;
    else if (d !== device) devices = 2;
    device = d;
  }
  for (let r = 0; r <= L; r++) bounds[r + 1] += bounds[r];
  const n = bounds[L + 1];
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let j = 0; j < count; j++) {
    if (!BUSY[kind[j]] || !(end[j] > start[j])) continue;
    const k = bounds[run(lane[j])]++;
    starts[k] = start[j];
    ends[k] = end[j];
    perLane[lane[j]] += end[j] - start[j];
  }
  shiftStarts(bounds);
  const spare = new Float64Array(n);
  const sortedStarts = sortRuns(starts, bounds, spare);
  const sortedEnds = sortRuns(ends, bounds, sortedStarts === starts ? spare : starts);
  return { starts: sortedStarts, ends: sortedEnds, perLane, device: devices <= 1 ? device : -1 };
}

export function computeMetrics(t: Trace, hb: HappensBefore, busyOps: BusyTimes = busyTimes(t)): Metrics {
  const { start, end } = traceExtent(t);
  const wallNs = end - start;
  const pct = (ns: number) => (wallNs > 0 ? (100 * ns) / wallNs : 0);
  const threads = t.lanes.filter((l) => l.kind === 'thread').length || 1;
  let blocked = 0;
  const context = CK.context;
  const { kind, blockedNs, count } = t.calls;
  for (let i = 0; i < count; i++) if (kind[i] !== context) blocked += blockedNs[i];

  const { starts, ends, perLane } = busyOps;
  const n = starts.length;
  // Sweep: time with at least one op running, and with two or more.
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
  const nodes = criticalNodes(t, hb);
  const calls = hb.graph.calls;
  let path: Metrics['criticalPath'] | undefined;
  return {
    hostBlockedPct: pct(blocked / threads),
    gpuBusyPct: pct(busy),
    overlapPct: busy > 0 ? (100 * overlap) / busy : 0,
    perStream: t.lanes.filter((l) => l.kind === 'stream').map((l) => ({ stream: l.name, busyPct: pct(perLane[l.id]) })),
    // The walk is done now, while the graph exists; the entries are built on first use, since a
    // run of a million launches has a path of a million host calls that most consumers never read.
    get criticalPath() {
      return (path ??= pathEntries(t, calls, nodes));
    },
    wallNs,
  };
}

/** The critical path's nodes, last first. */
function criticalNodes(t: Trace, hb: HappensBefore): Int32Array {
  const g = hb.graph;
  const C = g.calls;
  // The finish times are read where they lie: a copy for calls and ops alike costs more than it saves.
  const callEnd = t.calls.end;
  const opEnd = t.ops.end;
  const finish = (n: number) => (n < C ? callEnd[n] : opEnd[n - C]);
  const { lane, predStart, pred } = g;
  let x = -1;
  let xEnd = 0;
  for (let n = 0; n < g.nodes; n++) {
    if (lane[n] < 0) continue;
    const end = finish(n);
    if (x < 0 || end > xEnd) {
      x = n;
      xEnd = end;
    }
  }
  const nodes = new Int32Array(g.nodes);
  let count = 0;
  const seen = new Uint8Array(g.nodes);
  while (x >= 0 && !seen[x]) {
    seen[x] = 1;
    nodes[count++] = x;
    let best = lanePrev(g, x);
    let bestEnd = best < 0 ? 0 : finish(best);
    for (let k = predStart[x]; k < predStart[x + 1]; k++) {
      const p = pred[k];
      const end = finish(p);
      if (best < 0 || end > bestEnd) {
        best = p;
        bestEnd = end;
      }
    }
    x = best;
  }
  return nodes.slice(0, count);
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
