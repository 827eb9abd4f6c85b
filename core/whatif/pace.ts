// A loop's pace once it runs. The window's first iteration starts from the GPU as the recording left
// it: idle after the wait that ended the step before, say. A fixed program that no longer waits there
// starts its iterations with the GPU still busy with the one before, so its first simulated
// iteration pays a start that the program never pays again. The saving per iteration is read from
// the iterations after the first: from when the first one's work is done to when the window's is.
import type { Trace } from '../trace/model';
import { doneAt } from './before-after';
import { traceCallOf, type GeneratedStep } from './from-trace';

/** Per iteration after the first, before and after a fix: what a saving per iteration is read from. */
export interface Pace {
  beforeNs: number;
  afterNs: number;
}

/**
 * When a simulation (`steps`: the scenario step of each of its calls, stepsOfSimCalls) is done with
 * the GPU work the trace issued before `boundary` (trace time): the last end of an op whose call
 * began before it. A step of no call that launches a trace op (a graph launch's node) counts by the
 * op's start. Host calls are left out: an edit may move one (a wait moved to where its value is
 * needed) out of the iteration it began in.
 */
export function doneWithWorkBefore(
  t: Trace,
  steps: readonly (GeneratedStep | undefined)[],
  sim: Trace,
  boundary: number,
): number {
  const issuedBefore = (i: number): boolean => {
    const s = steps[i];
    if (!s) return false;
    const call = traceCallOf(s);
    if (call >= 0) return t.calls.begin[call] < boundary;
    return s.op !== undefined && t.ops.start[s.op] < boundary;
  };
  let done = -Infinity;
  for (let j = 0; j < sim.ops.count; j++) {
    const call = sim.ops.call[j];
    if (call >= 0 && issuedBefore(call)) done = Math.max(done, sim.ops.end[j]);
  }
  return done;
}

/**
 * The time per iteration after the first of `iterations` (at least 3, so that two remain to set a
 * pace), the second beginning at `boundary`; undefined where the first iteration's work is not found.
 */
export function paceAfterFirst(
  t: Trace,
  steps: readonly (GeneratedStep | undefined)[],
  sim: Trace,
  boundary: number,
  iterations: number,
): number | undefined {
  if (iterations < 3) return undefined;
  const first = doneWithWorkBefore(t, steps, sim, boundary);
  const end = doneAt(sim);
  return Number.isFinite(first) && end > first ? (end - first) / (iterations - 1) : undefined;
}
