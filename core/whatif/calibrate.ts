// A recorder slows the host it records: torch.profiler's callbacks, its Python tracer and the line
// markers add to every host gap, and a fix that frees the host then runs ahead on gaps the program
// never has. `syncscope profile` measures the program's own step with the recorder off
// (TraceMeta.plainStep); the what-if scales the scenario's host work so that the unchanged
// program's simulated steps take that long, and simulates every fix at the same scale.
import { simulate } from '../simulate/simulate';
import type { SimProfile } from '../simulate/profile';
import type { Trace } from '../trace/model';
import { doneAt } from './before-after';
import { compileGenerated } from './compile';
import type { GeneratedScenario, Threads } from './from-trace';
import type { PlainCalibration } from './overhead';

/** Bisection steps on the scale; each is one simulation of the window. */
const SEARCH_STEPS = 10;
/** Close enough: the plain step is one measurement of a few steps, noisier than this. */
const TOLERANCE = 0.005;

/** Scales every host work step of `th` (a copy the caller owns) by `scale`. */
export function scaleHostWork(th: Threads, scale: number): void {
  if (scale === 1) return;
  for (const steps of th.values())
    for (let k = 0; k < steps.length; k++) {
      const s = steps[k];
      if ('hostWork' in s.step) {
        const ns = (s.step.hostWork as { ns: number }).ns;
        steps[k] = { ...s, step: { ...s.step, hostWork: { ns: Math.max(1, Math.round(ns * scale)) } } };
      }
    }
}

/**
 * The host scale at which `base` (the unchanged program, `recorded` its simulation as recorded)
 * runs `iterations` steps at `plain.ns` each, found by bisection (the step only grows with the host
 * work), with the simulation at that scale. Scale 0 where the GPU alone takes longer than the plain step.
 */
export function calibrateHost(
  base: GeneratedScenario,
  profile: SimProfile,
  iterations: number,
  plain: { ns: number; steps: number },
  recorded: Trace,
): { calibration: PlainCalibration; simulated: Trace } {
  const stepOf = (sim: Trace) => doneAt(sim) / iterations;
  const at = (scale: number) => {
    const th = new Map([...base.threads].map(([n, steps]) => [n, steps.slice()]));
    scaleHostWork(th, scale);
    return simulate(compileGenerated(base, th), profile);
  };
  const recordedStepNs = stepOf(recorded);
  let best = { scale: 1, sim: recorded };
  if (recordedStepNs > plain.ns) {
    const floor = at(0);
    best = { scale: 0, sim: floor };
    const off = (sim: Trace) => Math.abs(stepOf(sim) - plain.ns);
    let lo = 0;
    let hi = 1;
    for (let k = 0; k < SEARCH_STEPS && stepOf(floor) < plain.ns && off(best.sim) > TOLERANCE * plain.ns; k++) {
      const mid = (lo + hi) / 2;
      const sim = at(mid);
      if (off(sim) < off(best.sim)) best = { scale: mid, sim };
      if (stepOf(sim) > plain.ns) hi = mid;
      else lo = mid;
    }
  }
  return {
    calibration: {
      plainStepNs: plain.ns,
      steps: plain.steps,
      recordedStepNs: Math.round(recordedStepNs),
      calibratedStepNs: Math.round(stepOf(best.sim)),
      hostScale: best.scale,
    },
    simulated: best.sim,
  };
}
