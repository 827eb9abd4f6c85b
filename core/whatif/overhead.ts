// The recorder's own cost in a trace's host gaps (core/simulate/trace-overhead.ts), for the what-if:
// which kind of trace this is, read from its data, and what the profile's model subtracts from the
// gaps of the scenario made from it. The replay subtracts nothing: it reproduces the trace as recorded.
import {
  NONE_MEASURED,
  overheadCost,
  type TraceKind,
  type TraceOverhead,
  type TraceOverheadCost,
} from '../simulate/trace-overhead';
import { isPythonCall } from '../import/python-sites';
import { countAtMost } from '../stats';
import { CK } from '../trace/kinds';
import { formatNs } from '../units';
import type { Trace } from '../trace/model';

/** What the calibration to the program's plain speed found (calibrate.ts), as every prediction states it. */
export interface PlainCalibration {
  /** The program's step without the recorder, and over how many steps it was measured. */
  plainStepNs: number;
  steps: number;
  /** The step --step-on named, where it was not the optimizer's (TraceMeta.plainStep). */
  stepOn?: string;
  /**
   * The unchanged program's simulated step with the work as recorded, and as calibrated: its pace
   * after the window's first iteration, as savings per iteration are read.
   */
  recordedStepNs: number;
  calibratedStepNs: number;
  /** The recorder's cost taken out of host work for each call and range it logged there (ops, user ranges, Python calls). */
  perRangeNs: number;
  /** The share of the recorded host work kept after that: 1 where the cost per range was enough. */
  hostScale: number;
  /** The share of the recorded GPU work (kernels and copies) kept: below 1 only where the step without host work was longer than the plain one. */
  gpuScale: number;
  /** The recorder's GPU time taken out of each op's lead, after the scale (calibrate.ts's RECORDER_OP_NS). */
  gpuPerOpNs?: number;
  /** Where the plain step timed autograd's backward pass (TraceMeta.plainStep.backwardNs): that time per step. */
  backwardNs?: number;
  /** The unchanged program's simulated time per iteration on the engine's threads with the work as recorded (engine-threads.ts). */
  recordedBackwardNs?: number;
  /** The unchanged program's simulated time per iteration on the engine's threads after the calibration, to compare with backwardNs. */
  calibratedBackwardNs?: number;
  /** The recorder's cost taken out of the engine's threads' host work per call and range, so that their time takes backwardNs; perRangeNs is then the rest's. */
  enginePerRangeNs?: number;
  /** The least perRangeNs taken, where the recorder's cost per call was measured (a capture of a Python program: CAPTURE_CALL_NS). */
  leastPerRangeNs?: number;
  /**
   * Where the sync clock timed the plain steps' waits (plain-waits.ts): their time per step in
   * synchronizing calls, which perRangeNs was then moved to match where a cost per range with the
   * step within STEP_BAND of the plain step does (else the step's fit is kept), and the unchanged
   * program's simulated waits at the end.
   */
  waitsNs?: number;
  calibratedWaitsNs?: number;
  /**
   * Where the plain steps timed the script's thread receiving each DataLoader batch (batchReceiveNs)
   * and the trace shows where it received them: that time, which the host work there kept whatever
   * was taken out per range.
   */
  batchReceiveNs?: number;
}

/** The overhead model a prediction used, as every prediction states it. */
export interface OverheadUsed {
  /** The model's name, or "none measured". */
  model: string;
  /** The kind of trace, where it is one that a recorder slowed (a profiler trace, a capture). */
  kind?: TraceKind;
  perCudaCallNs: number;
  perRecordFunctionNs: number;
  /** Host time taken out of the scenario's gaps in all. */
  subtractedNs: number;
  /** The host work scaled to the program's plain speed, where the trace measured it (calibrate.ts). */
  plain?: PlainCalibration;
  /** Why the trace's plain step was not used (loop-step.ts). */
  plainUnused?: string;
}

/**
 * How the trace was recorded, from its data: a capture says so; a torch.profiler trace whose event
 * calls name their event had cuda_sync events, one whose calls carry Python frames was taken with
 * stacks. A simulated or GPU-run trace has no recorder in its host gaps.
 */
export function traceKindOf(t: Trace): TraceKind | undefined {
  if (t.meta.source === 'capture') return 'capture';
  if (t.meta.source !== 'pytorch') return undefined;
  for (let i = 0; i < t.calls.count; i++) {
    const k = t.calls.kind[i];
    if ((k === CK.eventSync || k === CK.streamWait || k === CK.record) && t.calls.event[i]) return 'profiler-cuda-sync';
  }
  return t.sites.length ? 'profiler-stacks' : 'profiler-default';
}

/** The costs to take out of a trace's gaps under `model`; undefined where none were measured for its kind. */
export function overheadFor(t: Trace, model: TraceOverhead | undefined): TraceOverheadCost | undefined {
  const kind = traceKindOf(t);
  return kind ? overheadCost(model, kind) : undefined;
}

/** What a prediction says of the overhead it took out. */
export function overheadUsed(t: Trace, model: TraceOverhead | undefined, subtractedNs: number): OverheadUsed {
  const kind = traceKindOf(t);
  const cost = kind ? overheadCost(model, kind) : undefined;
  return {
    model: cost && model ? model.name : NONE_MEASURED,
    ...(kind ? { kind } : {}),
    perCudaCallNs: cost?.perCudaCallNs ?? 0,
    perRecordFunctionNs: cost?.perRecordFunctionNs ?? 0,
    subtractedNs,
  };
}

/** "trace overhead: none measured (profiler-default trace); its host gaps include the recorder's own cost". */
export function overheadText(o: OverheadUsed): string {
  if (o.plainUnused) return `${modelText(o, false)}; ${o.plainUnused}`;
  if (!o.plain) return modelText(o);
  const kind = o.kind ? ` (${o.kind} trace)` : '';
  // Scaled to the plain speed, the recorder's cost goes with the host work it inflated.
  return `${o.model === NONE_MEASURED ? `trace overhead: ${NONE_MEASURED}${kind}` : modelText(o)}; ${plainText(o.plain, recorderOf(o.kind))}`;
}

/** More than any recorder was measured to add to a CUDA call or a range (bench/results/trace-overhead.md). */
const MOST_A_CALL_COSTS_NS = 50_000;

const recorderOf = (kind: TraceKind | undefined) => (kind === 'capture' ? 'the capture' : 'the profiler');

/** What the host work lost per call or range; a cost no recorder has could only come from a host slowed elsewhere too. */
function perRangeText(ns: number, recorder: string): string {
  const taken = `host work less ${formatNs(ns)} per call or range ${recorder} logged in it`;
  if (ns <= MOST_A_CALL_COSTS_NS) return taken;
  return `${taken} (far more than ${recorder} costs a call: inferred from the plain step, the recording's host ran slower for more than its calls)`;
}

/** What the engine's threads lost, to the backward pass's plain time. */
function engineText(p: PlainCalibration, recorder: string): string {
  const timed = `its backward pass took ${formatNs(p.backwardNs ?? 0)} per step without ${recorder}, ${formatNs(p.recordedBackwardNs ?? 0)} recorded`;
  return p.enginePerRangeNs
    ? `on autograd's engine threads, host work less ${formatNs(p.enginePerRangeNs)} per call or range (${timed})`
    : `autograd's engine threads as recorded (${timed})`;
}

/** "host work less 5.48 µs per call or range the profiler logged in it so that the unchanged program's step takes 4.13 ms, its plain speed (...)". */
function plainText(p: PlainCalibration, recorder: string): string {
  const steps = p.stepOn ? `${p.steps} steps (each ended by ${p.stepOn})` : `${p.steps} steps`;
  const measured = `measured over ${steps} without ${recorder}; recorded, its step took ${formatNs(p.recordedStepNs)}`;
  const least = p.leastPerRangeNs !== undefined && p.perRangeNs <= p.leastPerRangeNs;
  const hostParts = [
    p.perRangeNs > 0
      ? perRangeText(p.perRangeNs, recorder) + (least ? ` (${recorder}'s measured cost per call, the least taken)` : '')
      : '',
    p.hostScale < 1 ? `${p.perRangeNs > 0 ? 'the rest' : 'host work'} scaled to ${percent(p.hostScale)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const kept =
    p.batchReceiveNs !== undefined
      ? `the host work that received each DataLoader batch keeping the ${formatNs(p.batchReceiveNs)} the plain steps timed`
      : '';
  const host = [
    p.enginePerRangeNs !== undefined
      ? `${engineText(p, recorder)}; elsewhere ${hostParts || 'host work as recorded'}`
      : hostParts,
    kept,
  ]
    .filter(Boolean)
    .join(', ');
  const gpu = [
    p.gpuScale < 1 ? `GPU work scaled to ${percent(p.gpuScale)}` : '',
    p.gpuPerOpNs
      ? `each op started up to ${formatNs(p.gpuPerOpNs)} sooner (${recorder}'s measured time per op on the GPU)`
      : '',
  ];
  const taken = [...gpu, host].filter(Boolean).join(', ');
  if (!taken)
    return p.recordedStepNs < (1 - PLAIN_TOLERANCE) * p.plainStepNs
      ? `the recording ran faster than the program's plain speed of ${formatNs(p.plainStepNs)} per step, and nothing was taken out (${measured})`
      : `the recording ran at the program's plain speed, ${formatNs(p.plainStepNs)} per step (${measured})`;
  if (p.waitsNs !== undefined && p.calibratedWaitsNs !== undefined)
    return `${taken} ${waitsText(p, recorder)} (${measured})`;
  const reached = Math.abs(p.calibratedStepNs - p.plainStepNs) <= PLAIN_TOLERANCE * p.plainStepNs;
  return reached
    ? `${taken} so that the unchanged program's step takes ${formatNs(p.calibratedStepNs)}, its plain speed of ${formatNs(p.plainStepNs)} (${measured})`
    : `${taken}: even so the simulated step takes ${formatNs(p.calibratedStepNs)}, ${p.calibratedStepNs > p.plainStepNs ? 'over' : 'under'} the plain ${formatNs(p.plainStepNs)} (${measured})`;
}

/**
 * "so that the unchanged program has waits of 603 µs per step in synchronizing calls, as the program
 * without the profiler waited (600 µs ...), and a step of ...", or where no cost per range in the
 * band gives those waits, the step kept and the waits that were not matched.
 */
function waitsText(p: PlainCalibration, recorder: string): string {
  const waits = `so that the unchanged program has waits of ${formatNs(p.calibratedWaitsNs!)} per step in synchronizing calls`;
  const timed = `${formatNs(p.waitsNs!)}, timed by the sync clock`;
  const step = `a step of ${formatNs(p.calibratedStepNs)}, within ${percent(STEP_BAND)} of its plain speed of ${formatNs(p.plainStepNs)}`;
  return Math.abs(p.calibratedWaitsNs! - p.waitsNs!) <= WAITS_TOLERANCE * p.waitsNs! + 1000
    ? `${waits}, as the program without ${recorder} waited (${timed}), and ${step}`
    : `so that the unchanged program's step takes ${formatNs(p.calibratedStepNs)}, its plain speed of ${formatNs(p.plainStepNs)}; its waits of ${formatNs(p.calibratedWaitsNs!)} per step in synchronizing calls are not the program's without ${recorder} (${timed}) at any cost per range that keeps the step within ${percent(STEP_BAND)} of it, so that the step's split between host and GPU is less sure`;
}

/** How close to the plain step a calibration must come: the plain step is one measurement of a few steps, noisier than this. */
export const PLAIN_TOLERANCE = 0.005;

/**
 * How far the calibrated step may stray from the plain step to match the plain waits: two plain
 * measurements of one program, in processes of their own, differ by this much (the what-if truth
 * recordings: a profile's plain step and its capture's, 1% to 4% apart).
 */
export const STEP_BAND = 0.03;

/** How close to the plain waits a calibration must come: this share of them, and a microsecond. */
export const WAITS_TOLERANCE = 0.05;

const percent = (share: number) => `${Math.round(share * 1000) / 10}%`;

/** `hint`: say how to get a plain step, where the trace has none. */
function modelText(o: OverheadUsed, hint = true): string {
  const kind = o.kind ? ` (${o.kind} trace)` : '';
  if (o.model === NONE_MEASURED)
    return o.kind
      ? `trace overhead: ${NONE_MEASURED}${kind}; its host gaps include the recorder's own cost, so a saving may be overstated${hint ? " (a recording with plain steps, --plain-steps, is scaled to the program's own speed)" : ''}`
      : `trace overhead: ${NONE_MEASURED}`;
  return `trace overhead: ${o.model}${kind}, ${o.perCudaCallNs} ns per CUDA call and ${o.perRecordFunctionNs} ns per record_function, ${o.subtractedNs} ns taken out of the host gaps`;
}

/**
 * Per gap between a thread's consecutive calls, the host time the recorder added there: the call's
 * own callback and those of the framework ranges that begin before the next call (`ranges`,
 * rangesPerGap's counts).
 */
export const gapOverhead = (ranges: Float64Array, cost: TraceOverheadCost): Float64Array =>
  ranges.map((n) => cost.perCudaCallNs + n * cost.perRecordFunctionNs);

/**
 * What the profiler's Python tracer logs for a Python call (or a built-in one) costs the host
 * against an op's range: about a fifth (bench/results/trace-overhead.md: about 0.24 µs against
 * 1.1 µs, within one process). A range count weighs each Python call's range by it.
 */
export const PYTHON_CALL_SHARE = 0.2;

/** Each thread lane's framework range begins, ascending: ops and user ranges, and Python calls. */
interface LaneBegins {
  ranges: Float64Array;
  python: Float64Array;
}

/** Made once per trace: a what-if makes a scenario per fix. */
const rangeBeginsOf = new WeakMap<Trace, Map<number, LaneBegins>>();

function rangeBegins(t: Trace): Map<number, LaneBegins> {
  let byLane = rangeBeginsOf.get(t);
  if (byLane) return byLane;
  const python = t.strings.map(isPythonCall);
  const lists = new Map<number, { ranges: number[]; python: number[] }>();
  for (let i = 0; i < t.calls.count; i++) {
    if (t.calls.kind[i] !== CK.context) continue;
    const lane = t.calls.lane[i];
    const list = lists.get(lane) ?? lists.set(lane, { ranges: [], python: [] }).get(lane)!;
    (python[t.calls.name[i]] ? list.python : list.ranges).push(t.calls.begin[i]);
  }
  const sorted = (xs: number[]) => Float64Array.from(xs).sort();
  byLane = new Map(
    [...lists].map(([lane, l]) => [lane, { ranges: sorted(l.ranges), python: sorted(l.python) }] as const),
  );
  rangeBeginsOf.set(t, byLane);
  return byLane;
}

/**
 * Per gap between a thread's consecutive calls (`calls`, in begin order, of one lane or of several
 * that take turns), how many framework ranges the trace recorded on those lanes beginning in it,
 * from the call's begin to the next one's (ops, user ranges, and with stacks each Python call):
 * the recorder paid for each.
 */
export function rangesPerGap(
  t: Trace,
  calls: number[],
  between: (from: number, to: number) => number = rangeCounter(t, calls),
): Float64Array {
  const out = new Float64Array(calls.length);
  for (let k = 0; k < calls.length; k++) {
    const next = calls[k + 1];
    out[k] = between(t.calls.begin[calls[k]], next === undefined ? Infinity : t.calls.begin[next]);
  }
  return out;
}

/**
 * How many framework ranges begin in [from, to) on the lanes of `calls`, as rangesPerGap counts
 * them: each Python call's range as PYTHON_CALL_SHARE of one.
 */
export function rangeCounter(t: Trace, calls: number[]): (from: number, to: number) => number {
  const all = rangeBegins(t);
  const lanes = [...new Set(calls.map((i) => t.calls.lane[i]))]
    .map((l) => all.get(l))
    .filter((begins): begins is LaneBegins => begins !== undefined);
  const count = (begins: Float64Array, x: number) => countAtMost(begins.length, (k) => (begins[k] < x ? 0 : 1), 0);
  const before = (x: number) =>
    lanes.reduce((n, l) => n + count(l.ranges, x) + PYTHON_CALL_SHARE * count(l.python, x), 0);
  return (from, to) => before(to) - before(from);
}
