// What a trace's timing shows of its streams' flags where the trace does not give them (a
// torch.profiler trace names no flags): S3 makes a blocking stream and the legacy default stream
// wait for each other, so work of both that overlapped shows a non-blocking stream.
import { OK } from './kinds';
import type { Trace } from './model';

/** GPU work that S3 orders: markers (an event's record or wait) take no time. */
export const GPU_WORK = new Set<number>([OK.kernel, OK.memcpy, OK.memset, OK.hostFunc]);
/** Overlap shorter than this is read as clock rounding (a profiler's µs with three decimals), not as evidence. */
const OVERLAP_NS = 1000;
const NONE = new Int32Array(0);

/**
 * Stream lanes whose flag the trace does not give (a torch.profiler trace) and whose work overlapped
 * work on the legacy default stream of their device: under S3 a blocking stream and the legacy one
 * wait for each other, so such a stream was created non-blocking.
 */
export function nonBlockingByOverlap(t: Trace, work = gpuWorkByLane(t)): Set<number> {
  const out = new Set<number>();
  for (const legacy of t.lanes) {
    if (!legacy.legacyDefault) continue;
    const ref = work.get(legacy.id) ?? NONE;
    if (!ref.length) continue;
    for (const l of t.lanes)
      if (l.kind === 'stream' && !l.legacyDefault && l.nonBlocking === undefined && l.device === legacy.device)
        if (overlaps(t, ref, work.get(l.id) ?? NONE)) out.add(l.id);
  }
  return out;
}

/**
 * Each lane's GPU work, in order of start. A stream runs its work in issue order, so the ops of a
 * lane are in start order already unless the trace interleaved them: sorted only then.
 */
export function gpuWorkByLane(t: Trace): Map<number, Int32Array> {
  const { kind, lane, start } = t.ops;
  const counts = new Map<number, number>();
  for (let j = 0; j < t.ops.count; j++) if (GPU_WORK.has(kind[j])) counts.set(lane[j], (counts.get(lane[j]) ?? 0) + 1);
  const out = new Map<number, Int32Array>();
  const filled = new Map<number, number>();
  for (const [l, n] of counts) {
    out.set(l, new Int32Array(n));
    filled.set(l, 0);
  }
  for (let j = 0; j < t.ops.count; j++) {
    if (!GPU_WORK.has(kind[j])) continue;
    const at = filled.get(lane[j])!;
    out.get(lane[j])![at] = j;
    filled.set(lane[j], at + 1);
  }
  for (const ops of out.values()) {
    let sorted = true;
    for (let k = 1; k < ops.length && sorted; k++) sorted = start[ops[k - 1]] <= start[ops[k]];
    if (!sorted) ops.sort((a, b) => start[a] - start[b] || a - b);
  }
  return out;
}

/** Whether any op of `other` overlaps an op of `sorted` (ops in order of start) by more than OVERLAP_NS. */
function overlaps(t: Trace, sorted: ArrayLike<number>, other: ArrayLike<number>): boolean {
  const { start, end } = t.ops;
  // The longest op reaching past each start: enough to test one op against all before it.
  const reach = new Float64Array(sorted.length);
  for (let k = 0; k < sorted.length; k++) reach[k] = Math.max(end[sorted[k]], k ? reach[k - 1] : -Infinity);
  for (let o = 0; o < other.length; o++) {
    const j = other[o];
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (start[sorted[mid]] < end[j] - OVERLAP_NS) lo = mid + 1;
      else hi = mid;
    }
    // Ops starting before this one ends: the one reaching furthest must reach into it.
    if (lo > 0 && reach[lo - 1] - start[j] > OVERLAP_NS) return true;
  }
  return false;
}
