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
import { PLAIN_TOLERANCE, type PlainCalibration } from './overhead';

/** Bisection steps on the cost per range or the scale; each is one simulation of the window. */
const SEARCH_STEPS = 10;

/** Host work of `th` (a copy the caller owns) as the program without the recorder does it: `perRangeNs` less for each range the recorder logged in it, then scaled by `scale`. */
export function plainHostWork(th: Threads, perRangeNs: number, scale: number): void {
  if (scale === 1 && perRangeNs === 0) return;
  for (const steps of th.values())
    for (let k = 0; k < steps.length; k++) {
      const s = steps[k];
      if ('hostWork' in s.step) {
        const ns = (s.step.hostWork as { ns: number }).ns;
        const trimmed = Math.max(0, ns - perRangeNs * (s.ranges ?? 0));
        steps[k] = { ...s, step: { ...s.step, hostWork: { ns: Math.max(1, Math.round(trimmed * scale)) } } };
      }
    }
}

/**
 * GPU work of `th` (a copy the caller owns) at `scale` of its recorded duration: kernels and copies
 * with a measured duration. Never to 0 ns.
 */
export function plainGpuWork(th: Threads, scale: number): void {
  if (scale === 1) return;
  for (const steps of th.values())
    for (let k = 0; k < steps.length; k++) {
      const s = steps[k];
      if (('launch' in s.step || 'copy' in s.step) && typeof s.step.ns === 'number')
        steps[k] = { ...s, step: { ...s.step, ns: Math.max(1, Math.round(s.step.ns * scale)) } };
    }
}

/** The recorder's cost taken out of `th` (a copy the caller owns): the GPU's, then the host's. */
export function plainWork(th: Threads, c: Pick<PlainCalibration, 'perRangeNs' | 'hostScale' | 'gpuScale'>): void {
  plainGpuWork(th, c.gpuScale);
  plainHostWork(th, c.perRangeNs, c.hostScale);
}

/** The most a range can be said to cost: enough to empty every host work step that logged ranges. */
function maxPerRangeNs(th: Threads): number {
  let most = 0;
  for (const steps of th.values())
    for (const s of steps)
      if ('hostWork' in s.step && s.ranges) most = Math.max(most, (s.step.hostWork as { ns: number }).ns / s.ranges);
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
 */
export function calibrateToPlain(
  base: GeneratedScenario,
  profile: SimProfile,
  stepOf: (sim: Trace) => number,
  plain: PlainStep,
  recorded: Trace,
): { calibration: PlainCalibration; simulated: Trace } {
  const at = (c: Calibrated) => {
    const th = new Map([...base.threads].map(([n, steps]) => [n, steps.slice()]));
    plainWork(th, c);
    return { ...c, sim: simulate(compileGenerated(base, th), profile) };
  };
  const recordedStepNs = stepOf(recorded);
  const off = (sim: Trace) => Math.abs(stepOf(sim) - plain.ns);
  const close = (sim: Trace) => off(sim) <= PLAIN_TOLERANCE * plain.ns;
  let best: Calibrated & { sim: Trace } = { perRangeNs: 0, hostScale: 1, gpuScale: 1, sim: recorded };
  /** Bisection on x in [lo, hi], the step shrinking as x grows (more taken out); keeps the closest simulation in `best`. */
  const search = (lo: number, hi: number, tryAt: (x: number) => Calibrated & { sim: Trace }) => {
    for (let k = 0; k < SEARCH_STEPS && !close(best.sim); k++) {
      const mid = (lo + hi) / 2;
      const tried = tryAt(mid);
      if (off(tried.sim) < off(best.sim)) best = tried;
      if (stepOf(tried.sim) > plain.ns) lo = mid;
      else hi = mid;
    }
  };
  if (recordedStepNs > plain.ns && !close(recorded)) {
    const most = maxPerRangeNs(base.threads);
    let gpuScale = 1;
    const noHost = at({ perRangeNs: most, hostScale: 0, gpuScale });
    if (stepOf(noHost.sim) > plain.ns && !close(noHost.sim)) {
      best = noHost;
      search(0, 1, (x) => at({ perRangeNs: most, hostScale: 0, gpuScale: 1 - x }));
      gpuScale = best.gpuScale;
      best = at({ perRangeNs: 0, hostScale: 1, gpuScale });
    }
    // The host's cost: as much per range as the step needs, then a scale of what no range holds.
    if (stepOf(best.sim) > plain.ns && !close(best.sim)) {
      const emptied = at({ perRangeNs: most, hostScale: 1, gpuScale });
      if (off(emptied.sim) < off(best.sim)) best = emptied;
      if (stepOf(emptied.sim) <= plain.ns) search(0, most, (x) => at({ perRangeNs: x, hostScale: 1, gpuScale }));
      else search(0, 1, (x) => at({ perRangeNs: most, hostScale: 1 - x, gpuScale }));
    }
  }
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
    },
    simulated: best.sim,
  };
}

type Calibrated = Pick<PlainCalibration, 'perRangeNs' | 'hostScale' | 'gpuScale'>;
