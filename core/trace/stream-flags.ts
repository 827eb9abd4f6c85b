// What a trace's timing shows of its streams' flags where the trace does not give them (a
// torch.profiler trace names no flags): S3 makes a blocking stream and the legacy default stream
// wait for each other, so work of both that overlapped shows a non-blocking stream.
import { OK } from './kinds';
import type { Trace } from './model';

/** GPU work that S3 orders: markers (an event's record or wait) take no time. */
export const GPU_WORK = new Set<number>([OK.kernel, OK.memcpy, OK.memset, OK.hostFunc]);
/** Overlap shorter than this is read as clock rounding (a profiler's µs with three decimals), not as evidence. */
const OVERLAP_NS = 1000;

/**
 * Stream lanes whose flag the trace does not give (a torch.profiler trace) and whose work overlapped
 * work on the legacy default stream of their device: under S3 a blocking stream and the legacy one
 * wait for each other, so such a stream was created non-blocking.
 */
export function nonBlockingByOverlap(t: Trace): Set<number> {
  const out = new Set<number>();
  const spans = new Map<number, [number, number][]>();
  for (let j = 0; j < t.ops.count; j++) {
    if (!GPU_WORK.has(t.ops.kind[j])) continue;
    const lane = t.ops.lane[j];
    (spans.get(lane) ?? spans.set(lane, []).get(lane)!).push([t.ops.start[j], t.ops.end[j]]);
  }
  for (const legacy of t.lanes) {
    if (!legacy.legacyDefault) continue;
    const ref = (spans.get(legacy.id) ?? []).sort((a, b) => a[0] - b[0]);
    if (!ref.length) continue;
    for (const l of t.lanes)
      if (l.kind === 'stream' && !l.legacyDefault && l.nonBlocking === undefined && l.device === legacy.device)
        if (overlaps(ref, spans.get(l.id) ?? [])) out.add(l.id);
  }
  return out;
}

/** Whether any span of `other` overlaps a span of `sorted` (sorted by start) by more than OVERLAP_NS. */
function overlaps(sorted: [number, number][], other: [number, number][]): boolean {
  // The longest span reaching past each start: enough to test one span against all before it.
  const reach = new Float64Array(sorted.length);
  sorted.forEach(([, e], k) => (reach[k] = Math.max(e, k ? reach[k - 1] : -Infinity)));
  for (const [a, b] of other) {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid][0] < b - OVERLAP_NS) lo = mid + 1;
      else hi = mid;
    }
    // Spans starting before this one ends: the one reaching furthest must reach into it.
    if (lo > 0 && reach[lo - 1] - a > OVERLAP_NS) return true;
  }
  return false;
}
