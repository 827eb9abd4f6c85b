// The recorded window of the overview (docs/overview.md): the iterations of the main host thread's
// loop that the per-iteration figures count, how they were found, and those left out with why.
import { countAtMost, median } from '../stats';
import { CK } from '../trace/kinds';
import { str, traceExtent, type Trace } from '../trace/model';
import { formatNs } from '../units';
import { iterationsOf, profilerSteps, type Iterations } from '../whatif/iterations';
import type { OverviewWindow } from './types';
import type { ScenarioWindow } from '../whatif/from-trace';

/** An iteration's time on the host clock: [beginNs, endNs). */
export interface IterationSpan {
  label: string;
  beginNs: number;
  endNs: number;
}

export interface RecordedWindow {
  /** The window as the overview gives it. */
  summary: OverviewWindow;
  /** The main host thread's lane: the one whose recorded calls span longest; -1 where the trace has none. */
  thread: number;
  /** The counted iterations in time order (summary.labels); one span of the whole trace where none were found. */
  spans: IterationSpan[];
  /** Iterations, counted or left out, that lie within [beginNs, endNs]: what a saving over the window is shared by. */
  seen: IterationSpan[];
}

/** A leading iteration this many times longer than the median one is warm-up. */
export const WARMUP_RATIO = 2;
/** The optimizer's step as torch.profiler names it: `Optimizer.step#SGD.step`. */
const OPTIMIZER_STEP = /^Optimizer\.step#/;
/** GradScaler's check for inf and NaN gradients, which makes it skip the optimizer's step. */
const AMP_CHECK = /^aten::_amp_foreach_non_finite_check_and_unscale_/;
/** torch.compile's own ranges: a step that holds one compiled or looked up compiled code. */
const COMPILE = /^(Torch-Compiled Region|TorchDynamo Cache Lookup|CompiledFunction)/;

/** Calls that are the program's recorded API calls: not framework ranges, not a simulator's host work. */
export const isRecordedCall = (t: Trace, i: number): boolean =>
  t.calls.kind[i] !== CK.context && t.calls.kind[i] !== CK.hostWork;

/** The thread lane whose recorded calls span longest, from the first one's begin to the last one's end; -1 for none. */
export function mainThread(t: Trace): number {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  for (let i = 0; i < t.calls.count; i++) {
    if (!isRecordedCall(t, i)) continue;
    const lane = t.calls.lane[i];
    first.set(lane, Math.min(first.get(lane) ?? Infinity, t.calls.begin[i]));
    last.set(lane, Math.max(last.get(lane) ?? -Infinity, t.calls.end[i]));
  }
  let best = -1;
  let longest = -Infinity;
  for (const [lane, b] of first) {
    const span = last.get(lane)! - b;
    if (span > longest || (span === longest && lane < best)) [best, longest] = [lane, span];
  }
  return best;
}

/**
 * The call kinds a scenario made from the trace has a step for (core/whatif/from-trace.ts): the loop
 * is looked for among these, as replay looks for it, so that an API query the first iteration alone
 * makes (a host allocation) does not hide the loop.
 */
const STEP_KINDS = new Set<number>([
  CK.launch,
  CK.record,
  CK.streamWait,
  CK.query,
  CK.eventSync,
  CK.streamSync,
  CK.deviceSync,
  CK.memcpy,
  CK.memset,
  CK.hostFunc,
]);

/** A lane's calls of STEP_KINDS, in begin order. */
function loopCalls(t: Trace, lane: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < t.calls.count; i++) if (t.calls.lane[i] === lane && STEP_KINDS.has(t.calls.kind[i])) out.push(i);
  return out.sort((a, b) => t.calls.begin[a] - t.calls.begin[b] || a - b);
}

function opsByCall(t: Trace): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (let j = 0; j < t.ops.count; j++) {
    const c = t.ops.call[j];
    if (c >= 0) (out.get(c) ?? out.set(c, []).get(c)!).push(j);
  }
  return out;
}

/**
 * Each iteration's span: a ProfilerStep's own range; an iteration of a loop found by its calls runs
 * from its first call to the next iteration's first, the last one to the end of its last call.
 */
function spansOf(
  t: Trace,
  calls: number[],
): { from: 'ProfilerStep' | 'loop'; spans: IterationSpan[]; stepsPerRepeat?: number } | undefined {
  const found = iterationsOf(t, calls, opsByCall(t));
  if (!found) return undefined;
  if (found.from === 'ProfilerStep') {
    const ranges = new Map(profilerSteps(t).map((s) => [s.label, s]));
    const spans = found.list.map((it) => {
      const r = ranges.get(it.label)!;
      return { label: it.label, beginNs: r.begin, endNs: r.end };
    });
    return { from: 'ProfilerStep', spans };
  }
  const spans = found.list.map((it, k) => {
    const next = found.list[k + 1];
    let end = -Infinity;
    for (let x = it.first; x <= it.last; x++) end = Math.max(end, t.calls.end[calls[x]]);
    return {
      label: it.label,
      beginNs: t.calls.begin[calls[it.first]],
      endNs: next ? t.calls.begin[calls[next.first]] : end,
    };
  });
  return { from: 'loop', spans, ...(found.stepsPerRepeat ? { stepsPerRepeat: found.stepsPerRepeat } : {}) };
}

/** The names of the framework ranges that begin in each span (any thread). */
function rangesIn(t: Trace, spans: IterationSpan[], wanted: RegExp[]): Set<RegExp>[] {
  const out = spans.map(() => new Set<RegExp>());
  for (let i = 0; i < t.calls.count; i++) {
    if (t.calls.kind[i] !== CK.context) continue;
    const name = str(t, t.calls.name[i]);
    const hits = wanted.filter((w) => w.test(name));
    if (!hits.length) continue;
    const k = spanAt(spans, t.calls.begin[i]);
    if (k >= 0) for (const w of hits) out[k].add(w);
  }
  return out;
}

/** The index of the span holding time `at`, or -1 (spans in time order, not overlapping). */
export function spanAt(spans: readonly IterationSpan[], at: number): number {
  const k = countAtMost(spans.length, (j) => spans[j].endNs, at);
  return k < spans.length && spans[k].beginNs <= at ? k : -1;
}

const ratio = (x: number): string => `${x.toFixed(1)}x`;

/**
 * Which iterations are not representative, and why: the leading ones much longer than the median
 * (warm-up), and, where most iterations run the optimizer's step, one that does not (its step was
 * skipped).
 */
function leftOutOf(t: Trace, spans: IterationSpan[], unit: string): Map<number, string> {
  const out = new Map<number, string>();
  const ranges = rangesIn(t, spans, [OPTIMIZER_STEP, AMP_CHECK, COMPILE]);
  if (spans.length >= 3) {
    const typical = median(spans.map((s) => s.endNs - s.beginNs));
    for (let k = 0; k < spans.length - 1; k++) {
      const times = (spans[k].endNs - spans[k].beginNs) / typical;
      if (!(times > WARMUP_RATIO)) break;
      const compiled = ranges[k].has(COMPILE) ? ", and it holds torch.compile's compilation" : '';
      out.set(k, `warm-up, ${ratio(times)} the median ${unit}${compiled}`);
    }
  }
  const stepping = ranges.filter((r) => r.has(OPTIMIZER_STEP)).length;
  if (stepping >= 2 && stepping * 2 > spans.length)
    ranges.forEach((r, k) => {
      if (r.has(OPTIMIZER_STEP) || out.has(k)) return;
      const scaler = r.has(AMP_CHECK) ? "; GradScaler's inf/NaN check ran in it, so the scaler likely skipped it" : '';
      out.set(
        k,
        `the optimizer's step was skipped: no Optimizer.step in it, which ${stepping} of ${spans.length} ${unit}s run${scaler}`,
      );
    });
  return out;
}

/** "ProfilerStep#2 to ProfilerStep#6" */
const labelRange = (spans: IterationSpan[]): string =>
  spans.length > 1 ? `${spans[0].label} to ${spans[spans.length - 1].label}` : spans[0].label;

/** The iterations the overview counts (docs/overview.md, "The recorded window"). */
export function recordedWindow(t: Trace): RecordedWindow {
  const thread = mainThread(t);
  const found = thread >= 0 ? spansOf(t, loopCalls(t, thread)) : undefined;
  if (!found) {
    const { start, end } = traceExtent(t);
    const why = thread >= 0 ? 'neither step markers nor a run of calls that repeats' : 'the trace has no host calls';
    const spans = [{ label: 'whole trace', beginNs: start, endNs: end }];
    return {
      summary: {
        detectedBy: 'none',
        labels: ['whole trace'],
        leftOut: [],
        beginNs: start,
        endNs: end,
        text: `no iterations found (${why}): the whole trace, ${formatNs(end - start)}, as one window`,
      },
      thread,
      spans,
      seen: spans,
    };
  }
  const unit = found.from === 'ProfilerStep' ? 'step' : 'iteration';
  const why = leftOutOf(t, found.spans, unit);
  const counted = found.spans.filter((_s, k) => !why.has(k));
  const beginNs = counted[0].beginNs;
  const endNs = counted[counted.length - 1].endNs;
  const leftOut = [...why].sort((a, b) => a[0] - b[0]).map(([k, w]) => ({ label: found.spans[k].label, why: w }));
  const how =
    found.from === 'ProfilerStep'
      ? "the profiler's step markers"
      : found.stepsPerRepeat
        ? `a run of calls that repeats every ${found.stepsPerRepeat} training steps, split at each (by the optimizer steps in its Python stacks)`
        : 'a run of calls that repeats';
  const n = counted.length;
  const text = [
    `${n} ${unit}${n > 1 ? 's' : ''}, ${labelRange(counted)}, from ${how}`,
    ...leftOut.map((l) => `${l.label} left out: ${l.why}`),
  ].join('; ');
  return {
    summary: { detectedBy: found.from, labels: counted.map((s) => s.label), leftOut, beginNs, endNs, text },
    thread,
    spans: counted,
    seen: found.spans.filter((s) => s.beginNs >= beginNs && s.endNs <= endNs),
  };
}

/**
 * The window's first `n` counted iterations as a window of their own (n at least 1, at most the
 * window's): where simulating the whole window would cost too much, its leading part stands for it.
 */
export function leadingWindow(rw: RecordedWindow, n: number): RecordedWindow {
  const spans = rw.spans.slice(0, n);
  const beginNs = spans[0].beginNs;
  const endNs = spans[spans.length - 1].endNs;
  const seen = rw.seen.filter((s) => s.beginNs >= beginNs && s.endNs <= endNs);
  const inside = new Set(seen.map((s) => s.label));
  const unit = rw.summary.detectedBy === 'ProfilerStep' ? 'step' : 'iteration';
  return {
    summary: {
      ...rw.summary,
      labels: spans.map((s) => s.label),
      leftOut: rw.summary.leftOut.filter((l) => inside.has(l.label)),
      beginNs,
      endNs,
      text: `the first ${n} of its ${rw.spans.length} ${unit}s, ${labelRange(spans)}`,
    },
    thread: rw.thread,
    spans,
    seen,
  };
}

/** The window's part of the trace that the what-if simulates: all of it where no iterations were found. */
export const scenarioWindowOf = (rw: RecordedWindow): ScenarioWindow =>
  rw.summary.detectedBy === 'none' ? {} : { from: rw.summary.beginNs, to: rw.summary.endNs };

/** The iterations a trace holds, as one window of host time: from the first one's first call to the last one's last. */
export interface IterationWindow {
  count: number;
  from: Iterations['from'];
  beginNs: number;
  endNs: number;
}

/**
 * The counted iterations as one window of host time, for figures given per step (the editor's heat
 * on lines): from the first one's begin to the last one's end. Undefined where no loop was found.
 */
export function iterationWindow(t: Trace, rw: RecordedWindow = recordedWindow(t)): IterationWindow | undefined {
  const { detectedBy } = rw.summary;
  if (detectedBy === 'none' || !rw.spans.length) return undefined;
  return { count: rw.spans.length, from: detectedBy, beginNs: rw.spans[0].beginNs, endNs: rw.spans.at(-1)!.endNs };
}

/** How many iterations the figures per step count (iterationWindow), or undefined. */
export const iterationCount = (t: Trace): number | undefined => iterationWindow(t)?.count;
