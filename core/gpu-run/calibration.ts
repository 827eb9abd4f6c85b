// `syncscope calibrate`: the simulator's cost model (core/simulate/profile.ts) from the traces of a
// few scenarios run on the GPU (runner/calibration-runs.ts runs them). Each number is a median over repeats.
import { compileScenario } from '../scenario/parse';
import type { Program } from '../scenario/program';
import { simulate } from '../simulate';
import { loadProfile, TINY_COPY_BYTES, type SimProfile } from '../simulate/profile';
import { mean, median } from '../stats';
import { CALL_KINDS, str, type Trace } from '../trace/model';
import { asRecorded, depthFromRecorded, type RecorderCost } from './recorded';

const MiB = 1 << 20;
const COPY = 64 * MiB;
/** Pageable copies are measured at this size: their rate grows with size, and programs copy results of a few MiB far more often than 64 MiB. */
const PAGEABLE = 8 * MiB;

const times = (n: number, steps: unknown[]) => ({ repeat: n, steps });

/** The scenario calibration runs: each section uses names of its own, so its calls are easy to pick out. */
export const CALIBRATION_SCENARIO = {
  name: 'calibration',
  streams: { s: { nonBlocking: true }, idle: { nonBlocking: true } },
  events: { t: { timing: true }, t2: { timing: true }, n: {}, q: {}, w: {}, b: { blockingSync: true } },
  buffers: {
    d1: { bytes: COPY },
    d2: { bytes: COPY },
    hp: { bytes: COPY, host: 'pinned' },
    hq: { bytes: COPY, host: 'pageable' },
    hq2: { bytes: COPY, host: 'pageable' },
    ds: { bytes: 4096 },
    hs: { bytes: 4096, host: 'pinned' },
    big: { bytes: 1024 * MiB },
    hm: { bytes: PAGEABLE, host: 'pageable' },
    dm: { bytes: PAGEABLE },
    ht: { bytes: 64, host: 'pageable' },
    dt: { bytes: 64 },
  },
  steps: [
    { launch: 'warm', stream: 's', us: 10 },
    { streamSync: 's' },
    // Launch cost with the stream busy, so no launch waits on anything.
    { launch: 'long', stream: 's', ms: 5 },
    times(200, [{ launch: 'queued', stream: 's', ns: 1000 }]),
    { streamSync: 's' },
    // Idle-stream launches: GPU launch latency, spin wake-up, submit delay.
    times(50, [{ launch: 'idle', stream: 's', us: 20 }, { streamSync: 's' }]),
    { launch: 'long', stream: 's', ms: 3 },
    times(200, [{ record: 't', stream: 's' }]),
    times(200, [{ record: 'n', stream: 's' }]),
    times(200, [{ wait: 'w', stream: 's' }]),
    { streamSync: 's' },
    { record: 't', stream: 's' },
    { record: 't2', stream: 's' },
    { streamSync: 's' },
    times(200, [{ query: 'q' }]),
    times(200, [{ elapsed: ['t', 't2'] }]),
    times(100, [{ streamSync: 'idle' }]),
    times(30, [{ launch: 'sleepy', stream: 's', us: 100 }, { record: 'b', stream: 's' }, { eventSync: 'b' }]),
    // Host functions back to back between kernels, as programs use them (a progress callback per step).
    times(20, [
      { launch: 'hfa', stream: 's', us: 50 },
      { hostFunc: 'hf', stream: 's' },
    ]),
    { launch: 'hfa', stream: 's', us: 50 },
    { streamSync: 's' },
    times(50, [{ copy: 'hs', to: 'ds', async: true, stream: 's' }]),
    times(50, [{ memset: 'ds', async: true, stream: 's' }]),
    { streamSync: 's' },
    times(5, [
      { copy: 'hp', to: 'd1', async: true, stream: 's' },
      { copy: 'd1', to: 'hp', async: true, stream: 's' },
      { copy: 'd1', to: 'd2', async: true, stream: 's' },
      { streamSync: 's' },
      { copy: 'hq', to: 'hq2' },
    ]),
    // Pageable copies: a small one for the fixed cost, then mid-sized ones for the rate. Each starts
    // on an idle stream: a host-to-device copy returns before its last DMA, which would otherwise
    // hold up the copy after it.
    times(20, [
      { copy: 'ht', to: 'dt', async: true, stream: 's' },
      { streamSync: 's' },
      { copy: 'dt', to: 'ht', async: true, stream: 's' },
      { streamSync: 's' },
    ]),
    times(8, [
      { copy: 'hm', to: 'dm', async: true, stream: 's' },
      { streamSync: 's' },
      { copy: 'dm', to: 'hm', async: true, stream: 's' },
      { streamSync: 's' },
    ]),
    times(5, [{ launch: 'touch', stream: 's', touch: 'big' }]),
    { streamSync: 's' },
    // S19: how many launches queue behind a long kernel before one blocks.
    { launch: 'long', stream: 's', ms: 300 },
    times(1100, [{ launch: 'fill', stream: 's', ns: 1 }]),
    { streamSync: 's' },
  ],
};

/** The same device under cudaDeviceScheduleBlockingSync: how long a sleeping host takes to wake (S15). */
export const BLOCKING_CALIBRATION_SCENARIO = {
  name: 'calibration (blocking sync)',
  device: { schedule: 'blockingSync' },
  streams: { s: { nonBlocking: true } },
  steps: [
    { launch: 'warm', stream: 's', us: 10 },
    { streamSync: 's' },
    times(30, [{ launch: 'sleepy', stream: 's', us: 100 }, { streamSync: 's' }]),
  ],
};

/**
 * A program's start, as x.cuda() begins one: a small pageable copy on the legacy default stream,
 * then a kernel and a synchronize; then a result copied back twice. Its first call against the same
 * copy later in the calibration run is what a cold call costs more (coldCallNs). It is a run
 * of its own, because the first call's cost follows what the run set up before it: the
 * calibration run's own first copy, behind its 1 GiB of device buffers and 200 MiB of host buffers,
 * is slower than a program's first copy. The first
 * copy back against the second is what a first copy in a direction costs more (coldCopyNs), and the
 * gap after the first call is where the recorder's own record is cold (RecorderCost.coldTailNs).
 */
export const FIRST_CALL_SCENARIO = {
  name: 'calibration (first call)',
  buffers: { hc: { bytes: 64, host: 'pageable' }, dc: { bytes: 64 } },
  steps: [
    { copy: 'hc', to: 'dc', async: true },
    { launch: 'k', us: 2 },
    { deviceSync: true },
    { copy: 'dc', to: 'hc' },
    { copy: 'dc', to: 'hc' },
  ],
};
/** FIRST_CALL_SCENARIO with a 16 B first copy (TINY_COPY_BYTES), whose cold call costs less (coldTinyCopyNs). */
export const FIRST_TINY_CALL_SCENARIO = {
  ...FIRST_CALL_SCENARIO,
  name: 'calibration (tiny first call)',
  buffers: { hc: { bytes: TINY_COPY_BYTES, host: 'pageable' }, dc: { bytes: TINY_COPY_BYTES } },
};
/** The calls of FIRST_CALL_SCENARIO that the profile reads: the first copy back, and the second. */
const FIRST_COPY_BACK = 3;
const SECOND_COPY_BACK = 4;

/** How long call `i` of a run took. */
const callNs = (t: Trace, i: number): number => t.calls.end[i] - t.calls.begin[i];

type Pick = { kind?: string; op?: string; event?: string; stream?: string };

/** Durations (ns) of the calls matching `p`; `op` matches the name of the op the call issued. */
function calls(t: Trace, p: Pick): number[] {
  const opOf = new Map<number, number>();
  for (let o = 0; o < t.ops.count; o++) if (t.ops.call[o] >= 0) opOf.set(t.ops.call[o], o);
  const out: number[] = [];
  for (let i = 0; i < t.calls.count; i++) {
    if (p.kind && CALL_KINDS[t.calls.kind[i]] !== p.kind) continue;
    if (p.event && str(t, t.calls.event[i]) !== p.event) continue;
    if (p.stream && (t.calls.stream[i] < 0 || t.lanes[t.calls.stream[i]].name !== p.stream)) continue;
    if (p.op) {
      const o = opOf.get(i);
      if (o === undefined || str(t, t.ops.name[o]) !== p.op) continue;
    }
    out.push(callNs(t, i));
  }
  return out;
}

function ops(t: Trace, name: string): number[] {
  const out: number[] = [];
  for (let o = 0; o < t.ops.count; o++) if (str(t, t.ops.name[o]) === name) out.push(o);
  return out;
}

/** The profile fields a calibration trace gives. Exported for the GPU tests, which check it against the run. */
export function profileFromTrace(t: Trace, blocking?: Trace): Partial<SimProfile> {
  const o = t.ops;
  const idle = ops(t, 'idle');
  const copyCallNs = median(calls(t, { kind: 'memcpy', op: 'HtoD hs -> ds' }));
  const submitNs = median(idle.map((i) => o.truthStart[i] - t.calls.end[o.call[i]]));
  const span = (i: number) => o.end[i] - o.start[i];
  const bw = (name: string, useCall: boolean) =>
    median(ops(t, name).map((i) => o.bytes[i] / (useCall ? callNs(t, o.call[i]) : span(i))));
  const hfa = ops(t, 'hfa');
  const hfaGaps = hfa.slice(1).map((b, k) => o.truthStart[b] - o.truthStart[hfa[k]] - 50_000);
  const fills = calls(t, { kind: 'launch', op: 'fill' });
  // The launch that waited for the 300 ms kernel: the longest, not merely the first slow one.
  const firstBlocked = fills.reduce((best, d, i) => (d > 50_000 && (best < 0 || d > fills[best]) ? i : best), -1);
  const touches = ops(t, 'touch');
  // A kernel's share of its stream: the pitch of 1 us kernels queued back to back, by their own
  // stamps, less the 1 us. It includes the recorder's end event between them, as GPU runs do.
  const queued = ops(t, 'queued');
  const overhead = median(queued.slice(1).map((q, k) => o.truthStart[q] - o.truthStart[queued[k]])) - 1000;
  return {
    launchNs: median(calls(t, { kind: 'launch', op: 'queued' })),
    idleLaunchNs: median(calls(t, { kind: 'launch', op: 'idle' })),
    recordTimingNs: median(calls(t, { kind: 'record', event: 't' })),
    recordNoTimingNs: median(calls(t, { kind: 'record', event: 'n' })),
    streamWaitNs: median(calls(t, { kind: 'streamWait', event: 'w' })),
    queryNs: median(calls(t, { kind: 'query', event: 'q' })),
    elapsedNs: median(calls(t, { kind: 'elapsed' })),
    syncNs: median(calls(t, { kind: 'streamSync', stream: 'idle' })),
    copyCallNs,
    memsetCallNs: median(calls(t, { kind: 'memset', op: 'memset ds' })),
    hostFuncCallNs: median(calls(t, { kind: 'hostFunc' })),
    submitNs,
    kernelOverheadNs: overhead,
    // The simulator's kernel already holds its stream for kernelOverheadNs past its run.
    // The mean, as for wakeFromSleepy: the driver's callback thread has a long tail.
    hostFuncGapNs: Math.max(0, mean(hfaGaps) - overhead),
    queueDepth: firstBlocked > 0 ? depthFromRecorded(firstBlocked) : undefined,
    // The simulator wakes a waiting host this long after the op's end, which for a kernel is its
    // start + run + kernelOverheadNs: measured the same way (the synchronize is the next call).
    spinWakeNs: Math.max(
      0,
      median(idle.map((i) => t.calls.end[o.call[i] + 1] - (o.truthStart[i] + 20_000 + overhead))),
    ),
    sleepWakeNs: wakeFromSleepy(t, 2, overhead),
    pinnedHtoDGBps: bw('HtoD hp -> d1', false),
    pinnedDtoHGBps: bw('DtoH d1 -> hp', false),
    pageableHtoDGBps: pageableRate(t, 'HtoD hm -> dm', SMALL_PAGEABLE.pageableHtoD),
    pageableDtoHGBps: pageableRate(t, 'DtoH dm -> hm', SMALL_PAGEABLE.pageableDtoH),
    dtoDGBps: bw('DtoD d1 -> d2', false),
    hostCopyGBps: bw('HtoH hq -> hq2', true),
    memoryGBps: median(touches.map((i) => (2 * o.bytes[i]) / (o.truthEnd[i] - o.truthStart[i]))),
    ...(blocking ? { scheduleSleepWakeNs: wakeFromSleepy(blocking, 1, overhead) } : {}),
  };
}

/** The median host time of the calls that issued the ops named `name`. */
function wholeCall(t: Trace, name: string): number {
  return median(ops(t, name).map((i) => callNs(t, t.ops.call[i])));
}

const SMALL_PAGEABLE = { pageableHtoD: 'HtoD ht -> dt', pageableDtoH: 'DtoH dt -> ht' } as const;

/**
 * A pageable copy's rate in the simulator's terms (a fixed latency, then its bytes at a rate): from
 * the difference between the mid-sized and the small copy, so nothing before the op enters it. The
 * latency is fitted through the simulator itself (fitPageableLatencies).
 */
function pageableRate(t: Trace, mid: string, small: string): number {
  const bytes = (name: string) => t.ops.bytes[ops(t, name)[0]];
  return (bytes(mid) - bytes(small)) / (wholeCall(t, mid) - wholeCall(t, small));
}

/**
 * Sets the pageable copies' latencies so that the simulator's small pageable copy, run as the GPU
 * run was (with the recorder), takes as long as the GPU's did (`gpuNs`): whatever the simulator
 * puts before the op, the latency makes up the rest.
 */
function fitPageableLatencies(
  p: SimProfile,
  gpuNs: Record<keyof typeof SMALL_PAGEABLE, number>,
  recorder: RecorderCost,
): SimProfile {
  const bare = { ...p, pageableHtoDLatencyNs: 0, pageableDtoHLatencyNs: 0 };
  const sim = simulate(calibrationProgram('calibration'), asRecorded(bare, recorder));
  const fit = (key: keyof typeof SMALL_PAGEABLE) =>
    Math.round(Math.max(0, gpuNs[key] - wholeCall(sim, SMALL_PAGEABLE[key])));
  return { ...p, pageableHtoDLatencyNs: fit('pageableHtoD'), pageableDtoHLatencyNs: fit('pageableDtoH') };
}

/**
 * The wake-up after each 100 us "sleepy" kernel, whose synchronize is the `after`-th call after its launch.
 * Latencies that the operating system's scheduling drives (a sleeping host's wake-up, the driver's
 * callback thread) take the mean, not the median: their tail is long, and the simulator's total of
 * several of them should match the GPU's, which the mean predicts and the median does not.
 */
function wakeFromSleepy(t: Trace, after: number, overhead: number): number {
  return Math.max(
    0,
    mean(ops(t, 'sleepy').map((i) => t.calls.end[t.ops.call[i] + after] - (t.ops.truthStart[i] + 100_000 + overhead))),
  );
}

/**
 * The host time the recorder adds after a stream op on an idle stream (its end-event record and its
 * own bookkeeping): the gap from an idle launch's return to the next call (RecorderCost.tailNs).
 */
export function recorderTailFromTrace(t: Trace): number {
  return median(ops(t, 'idle').map((i) => t.calls.begin[t.ops.call[i] + 1] - t.calls.end[t.ops.call[i]]));
}

/** Calibration runs per profile: each number is the median over them, so one run the shared host disturbed does not set it. */
export const CALIBRATION_RUNS = 7;

/**
 * How many calibration runs round `round` of `rounds` makes, so that a caller running its own work
 * in rounds spreads exactly CALIBRATION_RUNS over them, as evenly as they go.
 */
export const calibrationsIn = (round: number, rounds: number): number =>
  Math.round(((round + 1) * CALIBRATION_RUNS) / rounds) - Math.round((round * CALIBRATION_RUNS) / rounds);

export interface CalibrationRun {
  trace: Trace;
  blocking?: Trace;
  /** Runs of FIRST_CALL_SCENARIO (FIRST_CALL_RUNS). */
  first?: Trace[];
  /** Runs of FIRST_TINY_CALL_SCENARIO (FIRST_CALL_RUNS), alternating with `first`. */
  firstTiny?: Trace[];
}

/**
 * First-call runs of each size per calibration run. A run has one cold call, which varies from run to
 * run by a large share of what the seed examples block for in all, and those examples are judged on
 * the median of 21 runs each: the cold call's median is taken over more (35).
 */
export const FIRST_CALL_RUNS = 5;

/** The calibration scenarios, by the name their runs' traces are saved under. */
export const CALIBRATION_SCENARIOS = {
  calibration: CALIBRATION_SCENARIO,
  'calibration-blocking': BLOCKING_CALIBRATION_SCENARIO,
  'calibration-first': FIRST_CALL_SCENARIO,
  'calibration-first-tiny': FIRST_TINY_CALL_SCENARIO,
} as const;

const compiled = new Map<string, Program>();

/** A calibration scenario as a Program, compiled once: calibration runs it seven times and simulates it once more. */
export function calibrationProgram(name: keyof typeof CALIBRATION_SCENARIOS): Program {
  let p = compiled.get(name);
  if (!p)
    compiled.set(name, (p = compileScenario(JSON.stringify(CALIBRATION_SCENARIOS[name]), `${name}.scenario.json`)));
  return p;
}

/** How long a run's first call took. */
export const firstCallNs = (t: Trace): number => callNs(t, 0);

/** The profile from calibration runs' traces: each number the median over the runs. */
export function profileFromRuns(runs: CalibrationRun[]): { profile: SimProfile; recorder: RecorderCost } {
  const measured = runs.map((r) => profileFromTrace(r.trace, r.blocking));
  const meta = runs[0].trace.meta.device;
  const fields: Record<string, unknown> = { name: 'calibrated', deviceName: meta?.name ?? 'GPU', sms: meta?.sms };
  for (const k of Object.keys(measured[0]) as (keyof SimProfile)[]) {
    const v = median(measured.map((m) => m[k]).filter((x): x is number => typeof x === 'number'));
    // A latency may measure 0 (a cost the others already cover); a rate or a count may not.
    if (Number.isFinite(v) && (v > 0 || (v === 0 && k.endsWith('Ns'))))
      fields[k] = k === 'queueDepth' ? Math.round(v) : Math.round(v * 1000) / 1000;
  }
  const tailNs = median(runs.map((r) => recorderTailFromTrace(r.trace)));
  const typical = (name: string) => median(runs.map((r) => wholeCall(r.trace, name)));
  const gpuSmall = {
    pageableHtoD: typical(SMALL_PAGEABLE.pageableHtoD),
    pageableDtoH: typical(SMALL_PAGEABLE.pageableDtoH),
  };
  // The simulator's first call is its warm twin plus coldCallNs, and what it must match is the
  // typical cold call: a difference of medians. A run has one cold call, so the median of each
  // run's difference carries that one sample's noise and the warm median's.
  const first = runs.flatMap((r) => r.first ?? []);
  const firstTiny = runs.flatMap((r) => r.firstTiny ?? []);
  const medianCall = (i: number, of = first) => median(of.map((t) => callNs(t, i)));
  const cold = medianCall(0) - gpuSmall.pageableHtoD;
  if (Number.isFinite(cold)) fields.coldCallNs = Math.round(Math.max(0, cold));
  // Against the warm small copy less the bytes it moves more (GB/s is bytes per ns).
  const warmTiny =
    gpuSmall.pageableHtoD - (FIRST_CALL_SCENARIO.buffers.hc.bytes - TINY_COPY_BYTES) / Number(fields.pageableHtoDGBps);
  const coldTiny = medianCall(0, firstTiny) - warmTiny;
  if (Number.isFinite(coldTiny)) fields.coldTinyCopyNs = Math.round(Math.max(0, coldTiny));
  const coldCopy = medianCall(FIRST_COPY_BACK) - medianCall(SECOND_COPY_BACK);
  if (Number.isFinite(coldCopy)) fields.coldCopyNs = Math.round(Math.max(0, coldCopy));
  const coldTail = median(first.map((t) => t.calls.begin[1] - t.calls.end[0])) - tailNs;
  const recorder = { tailNs, coldTailNs: Number.isFinite(coldTail) ? Math.round(Math.max(0, coldTail)) : 0 };
  return { profile: fitPageableLatencies(loadProfile(fields), gpuSmall, recorder), recorder };
}
