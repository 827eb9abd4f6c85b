// A recorder slows the host it records: torch.profiler's callbacks, its Python tracer and the line
// markers add to every host gap, and a fix that frees the host then runs ahead on gaps the program
// never has. It slows the GPU's work too, a little (activity records of every kernel and copy).
// `syncscope profile --plain-steps` measures the program's own step with the recorder off, and
// `syncscope capture --plain-steps` in a run of its own before the capture (TraceMeta.plainStep);
// the what-if takes the recorder's cost out of the scenario so that the unchanged program's
// simulated steps take that long, and simulates every fix with the same work.
import { simulate } from '../simulate/simulate';
import type { SimProfile } from '../simulate/profile';
import type { PlainStep, Trace } from '../trace/model';
import { compileGenerated } from './compile';
import type { GeneratedScenario, Threads } from './from-trace';
import { PLAIN_TOLERANCE, STEP_BAND, WAITS_TOLERANCE, type PlainCalibration } from './overhead';
import { plainWaitsNs } from './plain-waits';

/** Bisection steps on the cost per range or the scale; each is one simulation of the window. */
const SEARCH_STEPS = 10;

/**
 * The least a capture costs a CUDA call made on a thread that runs Python (its callback, and the walk
 * of the Python stack): the model of bench/results/trace-overhead.md, measured on the H100's host.
 * Host work before a wait that holds the step (the GPU's work up to the wait is longer) does not
 * change the step: the plain step cannot say how much of the recorder's cost is there, and where the
 * step needs less taken out, this much still is: from the script's threads, and from the engine's
 * too where the backward pass was not timed apart.
 */
export const CAPTURE_CALL_NS = 5744;

/**
 * Host work of `th` (a copy the caller owns) as the program without the recorder does it: `perRangeNs`
 * less for each range the recorder logged in it (`enginePerRangeNs` on the engine's threads, where
 * given), then scaled by `scale`; never below the part of it the plain steps timed (receiveNs).
 */
export function plainHostWork(th: Threads, perRangeNs: number, scale: number, enginePerRangeNs = perRangeNs): void {
  if (scale === 1 && perRangeNs === 0 && enginePerRangeNs === 0) return;
  for (const steps of th.values())
    for (let k = 0; k < steps.length; k++) {
      const s = steps[k];
      if ('hostWork' in s.step) {
        const ns = (s.step.hostWork as { ns: number }).ns;
        const trimmed = Math.max(0, ns - (s.engine ? enginePerRangeNs : perRangeNs) * (s.ranges ?? 0));
        // What the plain steps timed of it (a DataLoader batch received), it keeps, as far as the trace held.
        const least = Math.min(ns, s.receiveNs ?? 0);
        steps[k] = {
          ...s,
          step: { ...s.step, hostWork: { ns: Math.max(1, Math.round(Math.max(least, trimmed * scale))) } },
        };
      }
    }
}

/**
 * The GPU time a recorder adds to each op that runs right after the one before it on its stream:
 * bench/results/trace-overhead.md, about 0.2 µs a kernel on the H100 under every recorder, launched
 * one by one or a CUDA graph's node (one-element adds run back to back: 116 to 260 ns launched over
 * two runs, 200 to 205 ns as graph nodes). It shows in the trace as the op's later start, its lead
 * (./op-lead.ts).
 */
export const RECORDER_OP_NS = 200;

/**
 * GPU work of `th` (a copy the caller owns) at `scale` of its recorded duration, less `perOpNs` of
 * each op's lead (at most the lead): kernels and copies with a measured duration. Never to 0 ns.
 */
export function plainGpuWork(th: Threads, scale: number, perOpNs = 0): void {
  if (scale === 1 && perOpNs === 0) return;
  for (const steps of th.values())
    for (let k = 0; k < steps.length; k++) {
      const s = steps[k];
      if (!('launch' in s.step || 'copy' in s.step) || typeof s.step.ns !== 'number') continue;
      const cut = s.lead ? Math.min(s.lead.ns, perOpNs) / s.lead.waves : 0;
      steps[k] = { ...s, step: { ...s.step, ns: Math.max(1, Math.round(s.step.ns * scale - cut)) } };
    }
}

/** The recorder's cost taken out of `th` (a copy the caller owns): the GPU's, then the host's. */
export function plainWork(th: Threads, c: Calibrated): void {
  plainGpuWork(th, c.gpuScale, c.gpuPerOpNs);
  plainHostWork(th, c.perRangeNs, c.hostScale, c.enginePerRangeNs);
}

/**
 * The most a range can be said to cost: enough to empty every host work step that logged ranges,
 * of the engine's threads or of the others where `engine` says which, else of all.
 */
function maxPerRangeNs(th: Threads, engine?: boolean): number {
  let most = 0;
  for (const steps of th.values())
    for (const s of steps)
      if ('hostWork' in s.step && s.ranges && (engine === undefined || !s.engine === !engine))
        most = Math.max(most, (s.step.hostWork as { ns: number }).ns / s.ranges);
  return most;
}

/**
 * The recorder's cost at which `base` (the unchanged program, `recorded` its simulation as
 * recorded) steps at `plain.ns`, each part found by bisection (the step only grows with the work),
 * with the simulation there. `stepOf` reads a simulation's step as the predictions read it: the
 * pace once the loop runs, the first iteration left out (pace.ts), as the plain step is timed after
 * steps that settle. The host's cost is in what the recorder logged: each call, and the framework
 * ranges (ops, user ranges, Python calls under a tracer) that begin before the next one; the host
 * work that logged the most of them is the most inflated; only where no
 * cost per range is enough is the rest scaled. Where the step is longer than the plain one even
 * with no host work at all, the GPU's work is what the recorder slowed: it is scaled first, until
 * the step without host work takes the plain step, and the host work then loses only what is left.
 * Wherever anything is taken out, each op's lead loses the recorder's measured time per op on the
 * GPU first (RECORDER_OP_NS); a recording already at the plain speed keeps it.
 */
export function calibrateToPlain(
  base: GeneratedScenario,
  profile: SimProfile,
  stepOf: (sim: Trace) => number,
  plain: PlainStep,
  recorded: Trace,
  engineOf?: (sim: Trace) => number,
  /** The least cost per range taken out of the script's threads (CAPTURE_CALL_NS for a capture of Python). */
  least = 0,
  /** A simulation's time per iteration in synchronizing calls (plain-waits.ts), for a plain step whose waits were timed. */
  waitsOf?: (sim: Trace) => number,
): { calibration: PlainCalibration; simulated: Trace } {
  const at = (c: Calibrated) => {
    const th = new Map([...base.threads].map(([n, steps]) => [n, steps.slice()]));
    plainWork(th, c);
    return { ...c, sim: simulate(compileGenerated(base, th), profile) };
  };
  const recordedStepNs = stepOf(recorded);
  // The engine's threads first, to the backward pass's plain time: the rest of the host then makes up the step.
  const backward = engineOf && plain.backwardNs ? { engineOf, backwardNs: plain.backwardNs } : undefined;
  const engineAt = (script: Calibrated) =>
    backward && engineCost(at, backward.engineOf, backward.backwardNs, base.threads, recorded, script);
  // With the engine's threads calibrated apart, the rest's cost is bounded by the rest alone.
  const most = maxPerRangeNs(base.threads, backward ? false : undefined);
  const fitStep = (engine: ReturnType<typeof engineAt>): Fitted => {
    const e = { ...(engine && { enginePerRangeNs: engine.perRangeNs }), gpuPerOpNs: RECORDER_OP_NS };
    const start = least
      ? at({ perRangeNs: least, hostScale: 1, gpuScale: 1, ...e })
      : (engine?.at ?? { perRangeNs: 0, hostScale: 1, gpuScale: 1, sim: recorded });
    return toStep(at, stepOf, plain.ns, [least, most], start, e);
  };
  let engine = engineAt({ perRangeNs: 0, hostScale: 1, gpuScale: 1, gpuPerOpNs: RECORDER_OP_NS });
  let best = fitStep(engine);
  // The engine's time moves with the script's speed (the backward pass's launches queue behind the
  // GPU work the script queued before it), and the engine's cost was found with the script's at the
  // recorder's speed: it is found again at the script's calibrated speed, and the script's after it.
  const again = engine && engineAt(best);
  if (again) {
    engine = again;
    best = fitStep(engine);
  }
  const waitsNs = plainWaitsNs(plain);
  const toPlainWaits = waitsOf !== undefined && waitsNs !== undefined;
  if (toPlainWaits) best = toWaits(at, best, [least, most], { waitsOf, waitsNs, stepOf, plainNs: plain.ns });
  return {
    calibration: {
      plainStepNs: plain.ns,
      steps: plain.steps,
      ...(plain.stepOn !== undefined && { stepOn: plain.stepOn }),
      recordedStepNs: Math.round(recordedStepNs),
      calibratedStepNs: Math.round(stepOf(best.sim)),
      perRangeNs: Math.round(best.perRangeNs),
      hostScale: best.hostScale,
      gpuScale: best.gpuScale,
      gpuPerOpNs: best.gpuPerOpNs ?? 0,
      ...(least && { leastPerRangeNs: least }),
      ...(toPlainWaits && { waitsNs, calibratedWaitsNs: Math.round(waitsOf(best.sim)) }),
      ...(plain.batchReceiveNs !== undefined &&
        [...base.threads.values()].some((steps) => steps.some((s) => s.receiveNs)) && {
          batchReceiveNs: plain.batchReceiveNs,
        }),
      ...(engine &&
        backward && {
          backwardNs: backward.backwardNs,
          recordedBackwardNs: Math.round(engine.recordedNs),
          calibratedBackwardNs: Math.round(backward.engineOf(best.sim)),
          enginePerRangeNs: Math.round(engine.perRangeNs),
        }),
    },
    simulated: best.sim,
  };
}

type Fitted = Calibrated & { sim: Trace };

/**
 * The script's threads' cost at which the unchanged program steps at `plainNs`, from `start`, the
 * engine's cost `e` kept: where the step is longer even with no host work, the GPU's work is scaled
 * first; then as much per range as the step needs, up to `most`, then a scale of what no range holds.
 */
function toStep(
  at: (c: Calibrated) => Fitted,
  stepOf: (sim: Trace) => number,
  plainNs: number,
  [least, most]: readonly [number, number],
  start: Fitted,
  e: Pick<Calibrated, 'enginePerRangeNs' | 'gpuPerOpNs'>,
): Fitted {
  const off = (sim: Trace) => Math.abs(stepOf(sim) - plainNs);
  const close = (sim: Trace) => off(sim) <= PLAIN_TOLERANCE * plainNs;
  let best = start;
  /** Bisection on x in [lo, hi], the step shrinking as x grows (more taken out); keeps the closest simulation in `best`. */
  const search = (lo: number, hi: number, tryAt: (x: number) => Fitted) => {
    for (let k = 0; k < SEARCH_STEPS && !close(best.sim); k++) {
      const mid = (lo + hi) / 2;
      const tried = tryAt(mid);
      if (off(tried.sim) < off(best.sim)) best = tried;
      if (stepOf(tried.sim) > plainNs) lo = mid;
      else hi = mid;
    }
  };
  if (stepOf(best.sim) <= plainNs || close(best.sim)) return best;
  let gpuScale = 1;
  const noHost = at({ perRangeNs: most, hostScale: 0, gpuScale, ...e });
  if (stepOf(noHost.sim) > plainNs && !close(noHost.sim)) {
    best = noHost;
    search(0, 1, (x) => at({ perRangeNs: most, hostScale: 0, gpuScale: 1 - x, ...e }));
    gpuScale = best.gpuScale;
    best = at({ perRangeNs: least, hostScale: 1, gpuScale, ...e });
  }
  // The host's cost: as much per range as the step needs, then a scale of what no range holds.
  if (stepOf(best.sim) > plainNs && !close(best.sim)) {
    const emptied = at({ perRangeNs: most, hostScale: 1, gpuScale, ...e });
    if (off(emptied.sim) < off(best.sim)) best = emptied;
    if (stepOf(emptied.sim) <= plainNs) search(least, most, (x) => at({ perRangeNs: x, hostScale: 1, gpuScale, ...e }));
    else search(0, 1, (x) => at({ perRangeNs: most, hostScale: 1 - x, gpuScale, ...e }));
  }
  return best;
}

/**
 * The cost per range on the script's threads at which the unchanged program waits in synchronizing
 * calls as long per step as the plain steps did (`waitsNs`), with its step kept within STEP_BAND of
 * the plain step: from `from` (the step's calibration), by bisection, as the waits grow with the cost
 * taken out and the step shrinks. Only the cost per range moves; the scales stay as found. Where no
 * cost in the band gives those waits, `from`: every saving is read against the step, and a step moved
 * to the band's edge only to bring the waits nearer would be that much off.
 */
function toWaits(
  at: (c: Calibrated) => Fitted,
  from: Fitted,
  [least, most]: readonly [number, number],
  target: { waitsOf: (sim: Trace) => number; waitsNs: number; stepOf: (sim: Trace) => number; plainNs: number },
): Fitted {
  const { waitsOf, waitsNs, stepOf, plainNs } = target;
  const miss = (sim: Trace) => waitsOf(sim) - waitsNs;
  const inBand = (sim: Trace) => Math.abs(stepOf(sim) - plainNs) <= STEP_BAND * plainNs;
  const close = (sim: Trace) => Math.abs(miss(sim)) <= WAITS_TOLERANCE * waitsNs + 1000;
  if (close(from.sim)) return from;
  // Short waits need a faster host (more taken out), long ones a slower host.
  const more = miss(from.sim) < 0;
  let [lo, hi] = more ? [from.perRangeNs, Math.max(from.perRangeNs, most)] : [least, from.perRangeNs];
  let best = from;
  for (let k = 0; k < SEARCH_STEPS && !close(best.sim); k++) {
    const mid = (lo + hi) / 2;
    const tried = at({ ...from, perRangeNs: mid });
    const ok = inBand(tried.sim);
    if (ok && Math.abs(miss(tried.sim)) < Math.abs(miss(best.sim))) best = tried;
    // Out of the band, or the waits still short (long): on toward the band's edge, or past it back.
    const further = ok && (more ? miss(tried.sim) < 0 : miss(tried.sim) > 0);
    if (further === more) lo = mid;
    else hi = mid;
  }
  return close(best.sim) ? best : from;
}

/**
 * The recorder's cost per range on the engine's threads at which the unchanged program's engine time
 * per iteration (`engineOf`) takes `backwardNs`, found by bisection (the time only shrinks as more is
 * taken out), with the simulation there; 0 where the recording's engine time is no longer.
 */
function engineCost(
  at: (c: Calibrated) => Fitted,
  engineOf: (sim: Trace) => number,
  backwardNs: number,
  th: Threads,
  recorded: Trace,
  script: Calibrated,
): { perRangeNs: number; recordedNs: number; at?: Fitted } {
  const recordedNs = engineOf(recorded);
  if (!(recordedNs > backwardNs)) return { perRangeNs: 0, recordedNs };
  const off = (sim: Trace) => Math.abs(engineOf(sim) - backwardNs);
  let best = at({ ...script, enginePerRangeNs: 0 });
  let [lo, hi] = [0, maxPerRangeNs(th, true)];
  for (let k = 0; k < SEARCH_STEPS && off(best.sim) > PLAIN_TOLERANCE * backwardNs; k++) {
    const mid = (lo + hi) / 2;
    const tried = at({ ...script, enginePerRangeNs: mid });
    if (off(tried.sim) < off(best.sim)) best = tried;
    if (engineOf(tried.sim) > backwardNs) lo = mid;
    else hi = mid;
  }
  return { perRangeNs: best.enginePerRangeNs ?? 0, recordedNs, at: best };
}

type Calibrated = Pick<PlainCalibration, 'perRangeNs' | 'hostScale' | 'gpuScale' | 'enginePerRangeNs' | 'gpuPerOpNs'>;
