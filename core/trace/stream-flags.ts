// What a trace's timing shows of its streams' flags where the trace does not give them (a
// torch.profiler trace names no flags): S3 makes a blocking stream and the legacy default stream
// wait for each other, so work of both that overlapped shows a non-blocking stream.
import { OK, OP_KINDS } from './kinds';
import type { Trace } from './model';
import { viaKernel } from '../analyze/graph-kernel';

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
    const reach = reaches(t, ref);
    for (const l of t.lanes)
      if (l.kind === 'stream' && !l.legacyDefault && l.nonBlocking === undefined && l.device === legacy.device)
        if (overlaps(t, ref, reach, work.get(l.id) ?? NONE)) out.add(l.id);
  }
  return out;
}

/**
 * Each lane's GPU work (gpuWorkByLane) and the lanes non-blocking by overlap (nonBlockingByOverlap),
 * in one pass of the native half where there is one (core/analyze/graph-kernel.ts).
 */
export function streamWorkByTiming(t: Trace): { work: Map<number, Int32Array>; nonBlocking: Set<number> } {
  const pairs = overlapPairs(t);
  const native = viaKernel((k) =>
    k.hbStreamWork({
      ops: t.ops.count,
      lanes: t.lanes.length,
      kind: t.ops.kind,
      lane: t.ops.lane,
      start: t.ops.start,
      end: t.ops.end,
      isWork: IS_GPU_WORK,
      pairs: Int32Array.from(pairs.flat()),
      overlapNs: OVERLAP_NS,
    }),
  );
  if (!native) {
    const work = gpuWorkByLane(t);
    return { work, nonBlocking: nonBlockingByOverlap(t, work) };
  }
  const work = new Map<number, Int32Array>();
  for (let l = 0; l + 1 < native.start.length; l++)
    if (native.start[l + 1] > native.start[l]) work.set(l, native.ids.subarray(native.start[l], native.start[l + 1]));
  const nonBlocking = new Set<number>();
  pairs.forEach(([, lane], p) => native.overlapped[p] && nonBlocking.add(lane));
  return { work, nonBlocking };
}

/** The (legacy lane, stream lane) pairs whose overlap nonBlockingByOverlap looks for, in its order. */
function overlapPairs(t: Trace): [number, number][] {
  const pairs: [number, number][] = [];
  for (const legacy of t.lanes) {
    if (!legacy.legacyDefault) continue;
    for (const l of t.lanes)
      if (l.kind === 'stream' && !l.legacyDefault && l.nonBlocking === undefined && l.device === legacy.device)
        pairs.push([legacy.id, l.id]);
  }
  return pairs;
}

/** Whether each op kind is GPU work that S3 orders, indexed by kind: one look-up per op on a hot path. */
const IS_GPU_WORK = Uint8Array.from({ length: OP_KINDS.length }, (_, k) => (GPU_WORK.has(k) ? 1 : 0));

/**
 * Each lane's GPU work, in order of start. A stream runs its work in issue order, so the ops of a
 * lane are in start order already unless the trace interleaved them: sorted only then. Lane ids
 * are the lanes' indices.
 */
export function gpuWorkByLane(t: Trace): Map<number, Int32Array> {
  const { kind, lane, start, count } = t.ops;
  // A lane the trace does not list still has its work counted.
  let lanes = t.lanes.length;
  for (let j = 0; j < count; j++) if (lane[j] >= lanes) lanes = lane[j] + 1;
  const counts = new Int32Array(lanes);
  for (let j = 0; j < count; j++) if (IS_GPU_WORK[kind[j]]) counts[lane[j]]++;
  const lists = Array.from(counts, (n) => new Int32Array(n));
  const filled = new Int32Array(lanes);
  for (let j = 0; j < count; j++) if (IS_GPU_WORK[kind[j]]) lists[lane[j]][filled[lane[j]]++] = j;
  const out = new Map<number, Int32Array>();
  lists.forEach((ops, l) => {
    if (!ops.length) return;
    let sorted = true;
    for (let k = 1; k < ops.length && sorted; k++) sorted = start[ops[k - 1]] <= start[ops[k]];
    if (!sorted) ops.sort((a, b) => start[a] - start[b] || a - b);
    out.set(l, ops);
  });
  return out;
}

/** The furthest end among each prefix of `sorted` (ops in order of start). */
function reaches(t: Trace, sorted: Int32Array): Float64Array {
  const reach = new Float64Array(sorted.length);
  for (let k = 0; k < sorted.length; k++) reach[k] = Math.max(t.ops.end[sorted[k]], k ? reach[k - 1] : -Infinity);
  return reach;
}

/**
 * Whether an op of `other` and an op of `sorted` (ops in order of start, `reach` their prefixes'
 * furthest ends) each start more than OVERLAP_NS before the other ends.
 */
function overlaps(t: Trace, sorted: Int32Array, reach: Float64Array, other: ArrayLike<number>): boolean {
  const { start, end } = t.ops;
  // How many ops of `sorted` start early enough for op j; ends mostly grow along `other`, so the
  // count is sought forward from the last one's, in steps that double, and back by bisection.
  let lo = 0;
  for (let o = 0; o < other.length; o++) {
    const j = other[o];
    const bound = end[j] - OVERLAP_NS;
    if (lo > 0 && start[sorted[lo - 1]] >= bound) lo = firstStartAtOrAfter(t, sorted, 0, lo, bound);
    else lo = gallopToStart(t, sorted, lo, bound);
    // Ops starting early enough: the one reaching furthest must end late enough.
    if (lo > 0 && reach[lo - 1] - start[j] > OVERLAP_NS) return true;
  }
  return false;
}

/** The first index from `from` on of `ops` (in order of start) whose op starts at or after `ns`: steps that double, then bisection, so a near one costs little. */
export function gallopToStart(t: Trace, ops: ArrayLike<number>, from: number, ns: number): number {
  let lo = from;
  let hi = from;
  for (let step = 1; hi < ops.length && t.ops.start[ops[hi]] < ns; step *= 2) {
    lo = hi + 1;
    hi = lo + step;
  }
  return firstStartAtOrAfter(t, ops, lo, Math.min(hi, ops.length), ns);
}

/** The first index in [from, to) of `ops` (in order of start) whose op starts at or after `ns`, or `to`. */
export function firstStartAtOrAfter(t: Trace, ops: ArrayLike<number>, from: number, to: number, ns: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t.ops.start[ops[mid]] < ns) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
