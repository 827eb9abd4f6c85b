// A recorder slows the host it records: torch.profiler's callbacks, its Python tracer and the line
// markers add to every host gap, and a fix that frees the host then runs ahead on gaps the program
// never has. `syncscope profile` measures the program's own step with the recorder off
// (TraceMeta.plainStep); the what-if takes the recorder's cost out of the scenario's host work so
// that the unchanged program's simulated steps take that long, and simulates every fix with the
// same host work.
import { simulate } from '../simulate/simulate';
import type { SimProfile } from '../simulate/profile';
import type { Trace } from '../trace/model';
import { doneAt } from './before-after';
import { compileGenerated } from './compile';
import type { GeneratedScenario, Threads } from './from-trace';
import type { PlainCalibration } from './overhead';

/** Bisection steps on the cost per range or the scale; each is one simulation of the window. */
const SEARCH_STEPS = 10;
/** Close enough: the plain step is one measurement of a few steps, noisier than this. */
const TOLERANCE = 0.005;

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

/** The most a range can be said to cost: enough to empty every host work step that logged ranges. */
function maxPerRangeNs(th: Threads): number {
  let most = 0;
  for (const steps of th.values())
    for (const s of steps)
      if ('hostWork' in s.step && s.ranges) most = Math.max(most, (s.step.hostWork as { ns: number }).ns / s.ranges);
  return most;
}

/**
 * The cost per recorded range, then the host scale, at which `base` (the unchanged program,
 * `recorded` its simulation as recorded) runs `iterations` steps at `plain.ns` each, each found by
 * bisection (the step only grows with the host work), with the simulation there. The recorder's
 * cost is in its ranges: the host work that logged the most of them (Python calls under a tracer)
 * is the most inflated. Only where no cost per range is enough is the rest scaled.
 */
export function calibrateHost(
  base: GeneratedScenario,
  profile: SimProfile,
  iterations: number,
  plain: { ns: number; steps: number },
  recorded: Trace,
): { calibration: PlainCalibration; simulated: Trace } {
  const stepOf = (sim: Trace) => doneAt(sim) / iterations;
  const at = (perRangeNs: number, scale: number) => {
    const th = new Map([...base.threads].map(([n, steps]) => [n, steps.slice()]));
    plainHostWork(th, perRangeNs, scale);
    return simulate(compileGenerated(base, th), profile);
  };
  const recordedStepNs = stepOf(recorded);
  const off = (sim: Trace) => Math.abs(stepOf(sim) - plain.ns);
  let best = { perRangeNs: 0, scale: 1, sim: recorded };
  const search = (lo: number, hi: number, sim: (x: number) => { perRangeNs: number; scale: number; sim: Trace }) => {
    for (let k = 0; k < SEARCH_STEPS && off(best.sim) > TOLERANCE * plain.ns; k++) {
      const mid = (lo + hi) / 2;
      const tried = sim(mid);
      if (off(tried.sim) < off(best.sim)) best = tried;
      if (stepOf(tried.sim) > plain.ns) lo = mid;
      else hi = mid;
    }
  };
  if (recordedStepNs > plain.ns) {
    const most = maxPerRangeNs(base.threads);
    const emptied = { perRangeNs: most, scale: 1, sim: most > 0 ? at(most, 1) : recorded };
    if (stepOf(emptied.sim) <= plain.ns) search(0, most, (x) => ({ perRangeNs: x, scale: 1, sim: at(x, 1) }));
    else {
      best = emptied;
      const floor = at(most, 0);
      if (off(floor) < off(best.sim)) best = { perRangeNs: most, scale: 0, sim: floor };
      if (stepOf(floor) < plain.ns) search(0, 1, (x) => ({ perRangeNs: most, scale: 1 - x, sim: at(most, 1 - x) }));
    }
  }
  return {
    calibration: {
      plainStepNs: plain.ns,
      steps: plain.steps,
      recordedStepNs: Math.round(recordedStepNs),
      calibratedStepNs: Math.round(stepOf(best.sim)),
      perRangeNs: Math.round(best.perRangeNs),
      hostScale: best.scale,
    },
    simulated: best.sim,
  };
}
