// Call-site markers of `syncscope profile`: a zero-length record_function named
// `syncscope.site:{"stack":[["file",line,"function"],...]}`, emitted on the calling thread just
// before a synchronizing call. Each names the line of the first call after it on its thread, and
// of every call inside that one, before its next marker (the framework op, or the runtime call
// itself); the marker itself is not a call. A marker named `syncscope.after:` is emitted just
// after a call instead, where the launcher learned its line only once the op had returned: it
// names the line of the last wait before it on its thread, since the marker before it, that has
// no line yet. A line marker (`"line":1`) is emitted where a line of the user's code starts or
// goes on after a call returned: it names every call on its thread until the thread's next line
// marker that no other marker gave a line, the kernel launches among them.
import { countAtMost } from '../stats';
import { CK } from '../trace/kinds';
import { isWait, TraceBuilder, type PlainStep } from '../trace/model';
import { placeInBackwardSpans, type BackwardSpan } from './backward-lines';
import { isProfilerFrame, isPythonCall, parseMarker, SiteTable } from './python-sites';

export interface Marker {
  /** Staging lane (before lanes are ordered). */
  lane: number;
  /** Kineto time in ns, before the trace's time origin is taken off. */
  time: number;
  /** String id of the record_function name. */
  name: number;
  /** Emitted after its call (SITE_AFTER_MARKER), not before it. */
  after: boolean;
}

export interface SiteMarkers {
  malformed: number;
  /** Why the first malformed marker is not one (python-sites.ts parseMarker). */
  firstFault?: string;
  unjoined: number;
  /** Whether any line marker was read: the trace's lines come from them (TraceMeta.python). */
  lines: boolean;
  /** The launcher's measure of the script's steps without the profiler (TraceMeta.plainStep). */
  plain?: PlainStep;
}

/** Gives each marker's site (precision 'line') to the wait it precedes; waits resolved already. */
export function attachMarkers(
  b: TraceBuilder,
  sites: SiteTable,
  markers: Marker[],
  laneMap: Int32Array,
  t0: number,
): SiteMarkers {
  const counts: SiteMarkers = { malformed: 0, unjoined: 0, lines: false };
  if (!markers.length) return counts;
  // Per lane, markers in time order, each with its site (-1: malformed or no user frame); line
  // markers apart.
  const byLane = new Map<number, { time: number; site: number; after: boolean; profiler?: boolean }[]>();
  const linesByLane: typeof byLane = new Map();
  for (const m of markers) {
    const parsed = parseMarker(b.strings.get(m.name));
    if (typeof parsed === 'string' && counts.malformed++ === 0) counts.firstFault = parsed;
    if (typeof parsed !== 'string' && parsed.plain) {
      counts.plain = parsed.plain;
      continue;
    }
    const profiler = typeof parsed !== 'string' && !parsed.line && parsed.stack.some(isProfilerFrame);
    const site = typeof parsed === 'string' || profiler ? -1 : sites.add(parsed.stack, 'line');
    const lane = laneMap[m.lane];
    const into = typeof parsed !== 'string' && parsed.line && !m.after ? linesByLane : byLane;
    let list = into.get(lane);
    if (!list) into.set(lane, (list = []));
    list.push({ time: m.time - t0, site, after: m.after, ...(profiler ? { profiler } : {}) });
  }
  for (const list of [...byLane.values(), ...linesByLane.values()]) list.sort((x, y) => x.time - y.time);
  counts.lines = linesByLane.size > 0;

  // A marker is emitted just before the user's call: its site goes to the first call that begins
  // after it on its lane and to every call inside it (aten::item's copy and stream sync, or the
  // bare cudaDeviceSynchronize of torch.cuda.synchronize()), and to no call after that one ends.
  const c = b.calls.cols;
  const callsByLane = new Map<number, number[]>();
  /** Calls the profiler made itself: no line marker gives them the line they were made under. */
  const profilerCalls = new Set<number>();
  const python = pythonFrameNames(b);
  for (let i = 0; i < b.calls.count; i++) {
    // Python frames (the marker's own __exit__, the wrapper's callee) are not the marked call.
    if ((!byLane.has(c.lane[i]) && !linesByLane.has(c.lane[i])) || python.has(c.name[i])) continue;
    let list = callsByLane.get(c.lane[i]);
    if (!list) callsByLane.set(c.lane[i], (list = []));
    list.push(i);
  }
  for (const [lane, list] of byLane) {
    const calls = callsByLane.get(lane) ?? [];
    let k = 0;
    for (let n = 0; n < list.length; n++) {
      const m = list[n];
      if (m.after) {
        if (!attachAfter(b, sites, calls, m, list[n - 1]?.time ?? -Infinity)) counts.unjoined++;
        continue;
      }
      while (k < calls.length && c.begin[calls[k]] < m.time) k++;
      let joinedAny = false;
      // A call after the lane's next marker is that marker's.
      const own = k < calls.length && c.begin[calls[k]] < (list[n + 1]?.time ?? Infinity);
      const end = own ? c.end[calls[k]] : -Infinity;
      for (let j = k; j < calls.length && c.begin[calls[j]] <= end; j++) {
        const i = calls[j];
        // Every call inside the marked one was made by the marked line: the copy that `.item()`
        // launches as well as the stream sync that waits for it.
        if (m.site >= 0) c.site[i] = m.site + 1;
        if (m.profiler) profilerCalls.add(i);
        if (isWait({ calls: c }, i)) joinedAny = true;
      }
      if (!joinedAny && m.site >= 0 && !m.profiler) counts.unjoined++;
    }
  }
  for (const [lane, list] of linesByLane) attachLines(b, sites, callsByLane.get(lane) ?? [], list, profilerCalls);
  deduceBackwardLines(b, sites, linesByLane);
  return counts;
}

/** A Python frame of torch's named `backward` (Tensor.backward, torch.autograd.backward), as Kineto names it. */
const BACKWARD_FRAME = /\(\d+\): backward$/;
/** The op range around autograd's work on its engine thread. */
const ENGINE_OP = 'autograd::engine::evaluate_function';

/**
 * The engine's calls (inside an `autograd::engine::evaluate_function` op, on a thread without line
 * markers) made while a thread with line markers was inside a `backward` frame go to the line that
 * called backward() (backward-lines.ts).
 */
function deduceBackwardLines(
  b: TraceBuilder,
  sites: SiteTable,
  linesByLane: Map<number, { time: number; site: number }[]>,
) {
  const c = b.calls.cols;
  const spans: BackwardSpan[] = [];
  for (let i = 0; i < b.calls.count; i++) {
    const list = c.kind[i] === CK.context ? linesByLane.get(c.lane[i]) : undefined;
    if (!list || !BACKWARD_FRAME.test(b.strings.get(c.name[i]))) continue;
    // An outer backward frame holds the inner ones (Tensor.backward calls torch.autograd.backward).
    const last = spans[spans.length - 1];
    if (last && c.begin[i] >= last.begin && c.end[i] <= last.end) continue;
    const site = lineAt(list, c.begin[i]);
    if (site >= 0) spans.push({ begin: c.begin[i], end: c.end[i], site });
  }
  placeInBackwardSpans(
    b,
    sites,
    spans,
    (i) =>
      c.kind[i] !== CK.context &&
      !linesByLane.has(c.lane[i]) &&
      c.context[i] > 0 &&
      b.strings.get(c.context[i]).startsWith(ENGINE_OP),
  );
}

/** The site of the last line marker at or before `time`; -1 for none. */
function lineAt(list: { time: number; site: number }[], time: number): number {
  const n = countAtMost(list.length, (k) => list[k].time, time);
  return n > 0 ? list[n - 1].site : -1;
}

/**
 * Each line marker's site goes to the calls on its lane that begin from it to the lane's next line
 * marker, where no other marker gave one a line and the profiler did not make it (`skip`): calls in
 * time order (as the lane's calls are listed for the markers above), markers in time order.
 */
function attachLines(
  b: TraceBuilder,
  sites: SiteTable,
  calls: number[],
  list: { time: number; site: number }[],
  skip: Set<number>,
) {
  const c = b.calls.cols;
  let n = -1;
  for (const i of calls) {
    while (n + 1 < list.length && list[n + 1].time <= c.begin[i]) n++;
    if (n < 0 || list[n].site < 0 || skip.has(i)) continue;
    if (c.site[i] > 0 && sites.sites[c.site[i] - 1].precision === 'line') continue;
    c.site[i] = list[n].site + 1;
  }
}

/**
 * An after-marker's site goes to the wait on its lane that ended last before it, after the marker
 * before it (`since`), among those without a line: the op that synchronized returned just before
 * the launcher learned its line. Whether a wait took it.
 */
function attachAfter(
  b: TraceBuilder,
  sites: SiteTable,
  calls: number[],
  m: { time: number; site: number },
  since: number,
): boolean {
  const c = b.calls.cols;
  let last = -1;
  for (const i of calls) {
    if (c.begin[i] >= m.time) break;
    if (c.end[i] > m.time || c.end[i] <= since || !isWait({ calls: c }, i)) continue;
    if (c.site[i] > 0 && sites.sites[c.site[i] - 1].precision === 'line') continue;
    if (last < 0 || c.end[i] >= c.end[last]) last = i;
  }
  if (last < 0) return false;
  if (m.site >= 0) c.site[last] = m.site + 1;
  return true;
}

/** String ids of Kineto python_function names: `file(line): function`, and built-in calls. */
function pythonFrameNames(b: TraceBuilder): Set<number> {
  const ids = new Set<number>();
  const list = b.strings.list;
  for (let id = 0; id < list.length; id++) if (isPythonCall(list[id])) ids.add(id);
  return ids;
}
