// Where each iteration's time goes (docs/overview.md, "Host and GPU time"): the main host thread's
// span split into running in recorded calls, blocked in them by call kind, and the rest; and each
// stream's busy time, the union of its ops' intervals within the iteration.
import { OK } from '../trace/kinds';
import { callKind, type Trace } from '../trace/model';
import type { OverviewIteration } from './types';
import { isRecordedCall, type IterationSpan } from './window';

/** Intervals sorted by begin, with the greatest end up to each: what a window's first interval is found by. */
interface Intervals {
  ids: number[];
  begin: (id: number) => number;
  end: (id: number) => number;
  /** reach[k]: the greatest end of ids[0..k]. */
  reach: number[];
}

function intervals(ids: number[], begin: (id: number) => number, end: (id: number) => number): Intervals {
  ids.sort((a, b) => begin(a) - begin(b) || a - b);
  const reach: number[] = [];
  let far = -Infinity;
  for (const id of ids) reach.push((far = Math.max(far, end(id))));
  return { ids, begin, end, reach };
}

/** The ids whose interval meets [from, to), in begin order. */
function meeting(s: Intervals, from: number, to: number): number[] {
  let lo = 0;
  let hi = s.ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s.reach[mid] <= from) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let k = lo; k < s.ids.length && s.begin(s.ids[k]) < to; k++) if (s.end(s.ids[k]) > from) out.push(s.ids[k]);
  return out;
}

/** The length of the union of intervals sorted by begin, each clipped to [from, to). */
function unionNs(list: [number, number][], from: number, to: number): number {
  let total = 0;
  let reached = from;
  for (const [a, b] of list) {
    const lo = Math.max(a, reached);
    const hi = Math.min(b, to);
    if (hi > lo) {
      total += hi - lo;
      reached = hi;
    }
  }
  return total;
}

/** Ops that are work on a stream: an event's record or wait marks a point, not busy time. */
const WORK = new Set<number>([OK.kernel, OK.memcpy, OK.memset, OK.hostFunc]);

/** The host and GPU time of each span; `thread` is the main host thread's lane. */
export function iterationTimes(t: Trace, thread: number, spans: IterationSpan[]): OverviewIteration[] {
  const callIds: number[] = [];
  for (let i = 0; i < t.calls.count; i++) if (t.calls.lane[i] === thread && isRecordedCall(t, i)) callIds.push(i);
  const calls = intervals(
    callIds,
    (i) => t.calls.begin[i],
    (i) => t.calls.end[i],
  );
  const byStream = new Map<number, number[]>();
  for (let j = 0; j < t.ops.count; j++) {
    if (!WORK.has(t.ops.kind[j]) || !(t.ops.end[j] > t.ops.start[j])) continue;
    const lane = t.ops.lane[j];
    (byStream.get(lane) ?? byStream.set(lane, []).get(lane)!).push(j);
  }
  const from = spans[0]?.beginNs ?? 0;
  const to = spans[spans.length - 1]?.endNs ?? 0;
  const streams = [...byStream]
    .sort((a, b) => a[0] - b[0])
    .map(([lane, ops]) => ({
      name: t.lanes[lane]?.name ?? `lane ${lane}`,
      ops: intervals(
        ops,
        (j) => t.ops.start[j],
        (j) => t.ops.end[j],
      ),
    }))
    .filter((s) => meeting(s.ops, from, to).length > 0);
  return spans.map((s) => {
    const gpu = streams.map(({ name, ops }) => {
      const list = meeting(ops, s.beginNs, s.endNs).map((j): [number, number] => [t.ops.start[j], t.ops.end[j]]);
      const busyNs = unionNs(list, s.beginNs, s.endNs);
      return { stream: name, busyNs, idleNs: s.endNs - s.beginNs - busyNs };
    });
    return {
      label: s.label,
      beginNs: s.beginNs,
      endNs: s.endNs,
      host: hostSplit(t, meeting(calls, s.beginNs, s.endNs), s),
      gpu,
    };
  });
}

/**
 * A span's host time: in calls (their union), of which blocked (each call's blocked time taken as
 * the end of the call, where it waits for the GPU; time two calls block at once counts once, for the
 * one that began blocking first), and the rest of the span. The three add up to the span exactly.
 */
function hostSplit(t: Trace, calls: number[], s: IterationSpan): OverviewIteration['host'] {
  const inCalls = unionNs(
    calls.map((i) => [t.calls.begin[i], t.calls.end[i]]),
    s.beginNs,
    s.endNs,
  );
  const waits = calls
    .filter((i) => t.calls.blockedNs[i] > 0)
    .map((i) => {
      const end = t.calls.end[i];
      const begin = Math.max(t.calls.begin[i], end - t.calls.blockedNs[i]);
      return { kind: callKind(t, i), begin, end };
    })
    .sort((a, b) => a.begin - b.begin);
  const byKind = new Map<string, number>();
  let reached = s.beginNs;
  for (const w of waits) {
    const lo = Math.max(w.begin, reached);
    const hi = Math.min(w.end, s.endNs);
    if (hi <= lo) continue;
    byKind.set(w.kind, (byKind.get(w.kind) ?? 0) + hi - lo);
    reached = hi;
  }
  const blocked = [...byKind]
    .map(([kind, ns]) => ({ kind, ns }))
    .sort((a, b) => b.ns - a.ns || (a.kind < b.kind ? -1 : 1));
  const blockedNs = blocked.reduce((n, b) => n + b.ns, 0);
  return { runningNs: inCalls - blockedNs, blocked, otherNs: s.endNs - s.beginNs - inCalls };
}
