// Kernel durations fitted to the trace (docs/whatif.md). A kernel step's duration is one wave's of
// blocks, and the simulator places its blocks on the SM slots left free: where kernels of several
// streams shared SMs, a kernel takes more or fewer waves in the replay than its measured duration was
// split over. Where the trace measured a kernel, the replay runs it that long: each kernel whose
// replayed duration differs has its wave's duration scaled by measured over replayed, and the
// scenario is simulated again, a few times at most. A fix's scenario keeps the fitted durations, so a
// kernel that no longer shares SMs after an edit runs faster, as its blocks then have more room.
import type { SimProfile } from '../simulate/profile';
import { simulate } from '../simulate/simulate';
import { OK } from '../trace/kinds';
import type { Trace } from '../trace/model';
import { compileGenerated } from './compile';
import { scenarioFromTrace, type GeneratedScenario, type GeneratedStep, type ScenarioWindow } from './from-trace';
import type { TraceOverhead } from '../simulate/trace-overhead';

/** Simulations at most, the first included. */
const PASSES = 4;
/** A replayed kernel within this of its measured duration (and of 1 µs) is left as it is. */
const WITHIN = 0.01;
const WITHIN_NS = 1000;

export interface Replayable {
  scenario: GeneratedScenario;
  simulated: Trace;
  /** Per trace op, the fitted duration of its kernel step's wave, where fitting changed it. */
  fitted: Map<number, number>;
}

/** The scenario made from `t`, its kernel durations fitted, and its last simulation. */
export function replayableScenario(
  t: Trace,
  profile: SimProfile,
  w: ScenarioWindow = {},
  o: { overhead?: TraceOverhead } = {},
): Replayable {
  const scenario = scenarioFromTrace(t, profile, w, o);
  const fitted = new Map<number, number>();
  let simulated = simulate(compileGenerated(scenario), profile);
  for (let pass = 1; pass < PASSES && fitPass(t, scenario, simulated, profile, fitted); pass++)
    simulated = simulate(compileGenerated(scenario), profile);
  if (fitted.size)
    scenario.notes.push(
      `${fitted.size} kernel durations fitted: their wave's time set so that the replay runs each as long as the trace measured, sharing SMs as it does`,
    );
  return { scenario, simulated, fitted };
}

/** Puts fitted durations on a fresh scenario of the same trace (a fix's). */
export function applyFitted(g: GeneratedScenario, fitted: Map<number, number>): void {
  if (!fitted.size) return;
  for (const steps of g.threads.values())
    for (const s of steps)
      if (s.op !== undefined && 'launch' in s.step && fitted.has(s.op)) s.step.ns = fitted.get(s.op);
  g.notes.push(
    `${fitted.size} kernel durations fitted: their wave's time set so that the replay runs each as long as the trace measured, sharing SMs as it does`,
  );
}

/** One pass: scales the wave of each kernel the simulation ran too long or too short; whether any changed. */
function fitPass(t: Trace, g: GeneratedScenario, sim: Trace, p: SimProfile, fitted: Map<number, number>): boolean {
  const stepsOf = compiledSteps(g, sim);
  let changed = false;
  for (let j = 0; j < sim.ops.count; j++) {
    if (sim.ops.kind[j] !== OK.kernel) continue;
    const call = sim.ops.call[j];
    const st = call >= 0 ? stepsOf.get(sim.calls.lane[call])?.[sim.calls.step[call]] : undefined;
    const op = st?.op;
    if (op === undefined || !('launch' in st!.step) || t.ops.kind[op] !== OK.kernel) continue;
    // The duration the scenario gave it: measured, and the time it started after it could have (./op-lead.ts).
    const measured = st!.spanNs ?? t.ops.end[op] - t.ops.start[op];
    const replayed = sim.ops.end[j] - sim.ops.start[j];
    if (!Number.isFinite(measured) || !Number.isFinite(replayed)) continue;
    if (Math.abs(replayed - measured) <= Math.max(WITHIN_NS, WITHIN * measured)) continue;
    const wave = st!.step.ns as number;
    const latency = (st!.step.latencyNs as number | undefined) ?? p.kernelOverheadNs;
    const scaled = (wave * (measured - latency)) / Math.max(1, replayed - latency);
    const ns = Math.min(Number.MAX_SAFE_INTEGER, Math.max(1, Math.round(scaled)));
    if (ns === wave) continue;
    st!.step.ns = ns;
    fitted.set(op, ns);
    changed = true;
  }
  return changed;
}

/** Each simulated thread lane's compiled steps, as the simulated calls' step numbers index them. */
function compiledSteps(g: GeneratedScenario, sim: Trace): Map<number, GeneratedStep[]> {
  const single = g.threads.size === 1;
  const out = new Map<number, GeneratedStep[]>();
  for (const [name, steps] of g.threads) {
    const lane = sim.lanes.find((l) => l.kind === 'thread' && l.name === (single ? 'main' : name));
    if (lane)
      out.set(
        lane.id,
        steps.filter((s) => Object.keys(s.step).length),
      );
  }
  return out;
}
