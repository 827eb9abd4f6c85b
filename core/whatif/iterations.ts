// A host thread's calls split into the iterations of its loop, so that replay can be compared per
// iteration (docs/whatif.md): the trace's ProfilerStep ranges where it has them, else the longest run
// of a call sequence that repeats back to back.
import { CK, OK } from '../trace/kinds';
import { str, type Trace } from '../trace/model';
import { kthSmallest } from '../stats';
import { madeCompiling } from '../analyze/compile-time';
import { splitAtOptimizerSteps } from './optimizer-steps';

export interface Iteration {
  /** "ProfilerStep#3", or "iteration 2" (counted from 1) for a loop found by its calls. */
  label: string;
  /** Indices into the thread's call list: the iteration's first and last call. */
  first: number;
  last: number;
}

export interface Iterations {
  from: 'ProfilerStep' | 'loop';
  list: Iteration[];
  /** For a loop whose every repeat held this many optimizer steps: each iteration is one of them (./optimizer-steps.ts). */
  stepsPerRepeat?: number;
}

/** A repeated sequence must be found within this many calls of where a search starts. */
const STARTS_TRIED = 64;
/** Searches start at the beginning, after each of this many widest host gaps, and as many times evenly through the calls. */
const SEARCHES = 16;
/** The longest iteration looked for, in calls. */
const MAX_PERIOD = 20_000;

/** The ProfilerStep#N ranges of the trace, in time order. */
export function profilerSteps(t: Trace): { label: string; begin: number; end: number }[] {
  const out: { label: string; begin: number; end: number }[] = [];
  for (let i = 0; i < t.calls.count; i++) {
    if (t.calls.kind[i] !== CK.context) continue;
    const name = str(t, t.calls.name[i]);
    if (/^ProfilerStep#\d+$/.test(name)) out.push({ label: name, begin: t.calls.begin[i], end: t.calls.end[i] });
  }
  return out.sort((a, b) => a.begin - b.begin);
}

/** Each iteration of `calls` (one thread's, in order); undefined when no loop is found. */
export function iterationsOf(t: Trace, calls: number[], opsOf: Map<number, number[]>): Iterations | undefined {
  // One ProfilerStep around the whole run is no loop: its calls say where the iterations are.
  const steps = profilerSteps(t);
  if (steps.length > 1) {
    const list: Iteration[] = [];
    let k = 0;
    for (const s of steps) {
      while (k < calls.length && t.calls.begin[calls[k]] < s.begin) k++;
      const first = k;
      while (k < calls.length && t.calls.begin[calls[k]] < s.end) k++;
      if (k > first) list.push({ label: s.label, first, last: k - 1 });
    }
    if (list.length > 1) return { from: 'ProfilerStep', list };
  }
  // The loop is looked for in the calls that do the program's work, not in the bookkeeping around
  // them (the caching allocator's event creates and queries come when it needs them, not each step),
  // nor in torch.compile's compilation, whose own repeats can outweigh a short loop.
  const at = calls
    .map((_, k) => k)
    .filter((k) => !BOOKKEEPING.has(t.calls.kind[calls[k]]) && !madeCompiling(t, calls[k]));
  const work = at.map((k) => calls[k]);
  const loop = repeatedRun(t, work, signatures(t, work, opsOf), searchStarts(t, work), gpuBusy(t, work, opsOf));
  if (!loop) return undefined;
  const repeats: { first: number; last: number }[] = [];
  const end = loop.start + loop.reps * loop.period;
  for (let k = 0; k < loop.reps; k++) {
    const next = loop.start + (k + 1) * loop.period;
    // Up to the next iteration's first work call; the last iteration ends with its own last one.
    repeats.push({ first: at[loop.start + k * loop.period], last: next < end ? at[next] - 1 : at[end - 1] });
  }
  const split = splitAtOptimizerSteps(t, calls, repeats);
  const label = (r: { first: number; last: number }, k: number) => ({ label: `iteration ${k + 1}`, ...r });
  return split
    ? { from: 'loop', list: split.pieces.map(label), stepsPerRepeat: split.perRepeat }
    : { from: 'loop', list: repeats.map(label) };
}

/** Per call, the GPU time of the work it queued (kernels, copies, memsets, host functions). */
function gpuBusy(t: Trace, calls: number[], opsOf: Map<number, number[]>): Float64Array {
  return Float64Array.from(calls, (c) => {
    let ns = 0;
    for (const j of opsOf.get(c) ?? []) if (WORK.has(t.ops.kind[j])) ns += t.ops.end[j] - t.ops.start[j];
    return ns;
  });
}

/** Calls that are no part of a loop's work: event queries and the runtime's other calls (creates, allocations). */
const BOOKKEEPING = new Set<number>([CK.query, CK.api]);

/** Ops that are work: an event's record or wait is named after an event that may be new each iteration. */
const WORK = new Set<number>([OK.kernel, OK.memcpy, OK.memset, OK.hostFunc]);

/**
 * What each call did, as a number: its kind, name, and its work ops' names. Not their sizes: a copy's
 * size follows the data where the program's shapes do (a batch padded to its longest sequence, the
 * values a boolean mask kept), and the same step would not repeat.
 */
function signatures(t: Trace, calls: number[], opsOf: Map<number, number[]>): Int32Array {
  const ids = new Map<string, number>();
  const out = new Int32Array(calls.length);
  calls.forEach((c, k) => {
    const ops = (opsOf.get(c) ?? []).filter((j) => WORK.has(t.ops.kind[j])).map((j) => sizeless(t, j));
    const key = `${t.calls.kind[c]}:${str(t, t.calls.name[c])}:${ops.join(',')}`;
    out[k] = ids.get(key) ?? ids.set(key, ids.size).get(key)!;
  });
  return out;
}

/** An op's name without the size a capture names its copies and memsets by (`DtoH 41008 B (pageable)`). */
function sizeless(t: Trace, op: number): string {
  const name = str(t, t.ops.name[op]);
  return t.ops.kind[op] === OK.memcpy || t.ops.kind[op] === OK.memset ? name.replace(/ \d+ B\b/, '') : name;
}

/**
 * Where the searches for a loop start: the beginning; after each of the widest host gaps between
 * calls, where a loop usually begins after its set-up (a model's construction, a data set's); and
 * evenly through the calls, so that a loop past a set-up of many calls and no wide gap is met too.
 */
function searchStarts(t: Trace, calls: number[]): number[] {
  const n = calls.length;
  const gaps: { gap: number; after: number }[] = [];
  for (let k = 1; k < n; k++) {
    const gap = t.calls.begin[calls[k]] - t.calls.end[calls[k - 1]];
    if (gaps.length < SEARCHES || gap > gaps[gaps.length - 1].gap) {
      gaps.push({ gap, after: k });
      gaps.sort((x, y) => y.gap - x.gap);
      gaps.length = Math.min(gaps.length, SEARCHES);
    }
  }
  const starts = [0, ...gaps.map((g) => g.after)];
  for (let s = 1; s < SEARCHES; s++) starts.push(Math.floor((s * n) / SEARCHES));
  return starts;
}

/**
 * The run of back-to-back repeats of one call sequence that weighs most (the loop the program spends
 * its time in; `weight` below), searched from each of `from`; a sequence must repeat at least once.
 * Among runs that weigh as much, the shortest sequence: a multiple of the loop's period weighs no
 * more than the period's own run. The run found is stretched back to where its repeats begin, so
 * that its first iteration is the loop's first, whichever call a search met it at.
 */
function repeatedRun(
  t: Trace,
  calls: number[],
  sig: Int32Array,
  from: number[],
  busy: Float64Array,
): { start: number; period: number; reps: number } | undefined {
  const n = sig.length;
  let best: { start: number; period: number; reps: number } | undefined;
  const lasts = (start: number, endIndex: number) => t.calls.end[calls[endIndex]] - t.calls.begin[calls[start]];
  // busyFrom[k]: the GPU time of the work that calls k onwards queued.
  const busyFrom = new Float64Array(n + 1);
  for (let k = n - 1; k >= 0; k--) busyFrom[k] = busyFrom[k + 1] + busy[k];
  // A run's weight: per repeat, its host time or the GPU time of its work, whichever is longer (a
  // loop that queues asynchronously spends its time on the GPU), summed with the longest repeat
  // counted as the median one, so that a warm-up whose first step stalls (lazy module loading,
  // cuBLAS's set-up) outweighs no longer loop.
  let bestWeight = 0;
  const weight = (r: NonNullable<typeof best>) => {
    const d = new Float64Array(r.reps);
    let total = 0;
    let longest = -Infinity;
    for (let k = 0; k < r.reps; k++) {
      const first = r.start + k * r.period;
      const next = first + r.period;
      const until = k + 1 < r.reps ? t.calls.begin[calls[next]] : t.calls.end[calls[next - 1]];
      d[k] = Math.max(until - t.calls.begin[calls[first]], busyFrom[first] - busyFrom[next]);
      total += d[k];
      longest = Math.max(longest, d[k]);
    }
    return total - longest + kthSmallest(d, (d.length - 1) >> 1);
  };
  // What bounds the weight of a run of calls from `a` to `end` (exclusive) from above: its host
  // time plus its GPU time; and, tighter where both are busy, the sum over its calls of the longer of
  // each call's host time (to the next call's start) and its work's GPU time, since a repeat's
  // longer side is at most the sum of its calls' longer sides.
  const eachFrom = new Float64Array(n + 1);
  for (let k = n - 1; k >= 0; k--) {
    const host = Math.max(k + 1 < n ? t.calls.begin[calls[k + 1]] : 0, t.calls.end[calls[k]]) - t.calls.begin[calls[k]];
    eachFrom[k] = eachFrom[k + 1] + Math.max(host, busy[k]);
  }
  const bound = (a: number, end: number) =>
    Math.min(lasts(a, end - 1) + busyFrom[a] - busyFrom[end], eachFrom[a] - eachFrom[end]);
  const starts = new Set<number>();
  for (const s of from) for (let k = 0; k < STARTS_TRIED && s + k < n; k++) starts.add(s + k);
  const breaks = new RepeatBreaks(sig);
  for (const a of [...starts].sort((x, y) => x - y)) {
    if (bound(a, n) <= bestWeight) continue;
    for (let p = 1; p <= Math.min(MAX_PERIOD, (n - a) >> 1); p++) {
      // The best run's period, or a multiple of it, from a start inside that run: its repeats are
      // the best run's from a later call, or fewer and longer, so it weighs no more. Without this,
      // every start that meets a long loop would weigh it once more.
      if (best && p % best.period === 0 && a >= best.start && a + 2 * p <= best.start + best.period * best.reps)
        continue;
      if (sig[a] !== sig[a + p]) continue;
      const reps = Math.floor((breaks.at(a, p, best && p % best.period === 0 ? best.period : p) - a) / p);
      if (reps === 0) continue;
      const run = { start: a, period: p, reps: reps + 1 };
      if (bound(a, a + run.reps * p) <= bestWeight) continue;
      const w = weight(run);
      if (w > bestWeight) [best, bestWeight] = [run, w];
    }
  }
  return best && stretchedBack(sig, shortestPeriod(sig, best));
}

/**
 * The run with the shortest sequence that repeats throughout it: two steps of a loop weigh as much
 * as one step's run, and may win by a rounding; a run of a sequence that is itself k repeats of a
 * shorter one is that shorter one's, k times as many repeats.
 */
function shortestPeriod(sig: Int32Array, run: { start: number; period: number; reps: number }) {
  const length = run.period * run.reps;
  for (let q = 1; q < run.period; q++)
    if (run.period % q === 0 && same(sig, run.start, run.start + q, length - q))
      return { start: run.start, period: q, reps: length / q };
  return run;
}

/** A run begun where its repeats began: moved back one call at a time while the call a period later is the same; whole periods only. */
function stretchedBack(sig: Int32Array, run: { start: number; period: number; reps: number }) {
  const end = run.start + run.period * run.reps;
  let start = run.start;
  while (start > 0 && sig[start - 1] === sig[start - 1 + run.period]) start--;
  return { start, period: run.period, reps: Math.floor((end - start) / run.period) };
}

/**
 * Where a sequence stops repeating with period p: the first k from a start on where sig[k] differs
 * from sig[k + p], or where k + p runs past the end. Searches start at neighbouring calls, whose
 * walks would cover the same loop again and again, once per multiple of its period. So the last
 * walk of each period is kept, and a start inside it has the same break; and where a divisor q of p
 * repeats from the start up to its break b, so does p up to b - p + q, and the walk begins there.
 */
class RepeatBreaks {
  private readonly walked = new Map<number, { from: number; to: number }>();

  constructor(private readonly sig: Int32Array) {}

  /** The break of period p from a; `q`: a divisor of p whose walk may cover a. */
  at(a: number, p: number, q: number): number {
    const w = this.walked.get(p);
    if (w && a >= w.from && a <= w.to) return w.to;
    const d = q === p ? undefined : this.walked.get(q);
    const { sig } = this;
    let k = d && a >= d.from && a <= d.to ? Math.max(a, d.to - p + q) : a;
    while (k + p < sig.length && sig[k] === sig[k + p]) k++;
    this.walked.set(p, { from: a, to: k });
    return k;
  }
}

function same(sig: Int32Array, x: number, y: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (sig[x + k] !== sig[y + k]) return false;
  return true;
}
