// Whether a loop found by its repeating calls (a capture's: core/whatif/iterations.ts) is the step
// whose plain speed the launcher timed (TraceMeta.plainStep), before the what-if scales the loop to
// it. The launcher's step is, unless told otherwise, torch's optimizer step, and a capture's calls
// carry their Python stacks: a loop whose every iteration holds one optimizer step is that step.
// Where the stacks say nothing, or the step is the user's (--step-on), the iteration's recorded
// length must be near the plain step's.
import type { RecordedWindow } from '../overview/window';
import { spanAt } from '../overview/window';
import type { PlainStep, Trace } from '../trace/model';
import { formatNs } from '../units';
import { AGREEING, optimizerSites } from './optimizer-steps';

/**
 * How far a recorded iteration may be from the plain step and still be that step, where the
 * stacks cannot say: a recorder slows the step it records (a capture by a third, for a step of
 * small kernels), and an iteration of twice the step or half of it is a loop found over two steps
 * or inside one.
 */
const SAME_STEP = { below: 0.75, above: 1.9 };

const notScaledTo = (plainStep: PlainStep): string => `not scaled to the plain step of ${formatNs(plainStep.ns)}`;

/**
 * Why the trace's plain step does not calibrate the what-if over `rw` (`iterations` of it; none for
 * a window asked for), or undefined where it does. `recordedStepNs`: the window's simulated step as
 * recorded, asked for only where the loop was found by its calls.
 */
export function plainStepUnused(
  t: Trace,
  plainStep: PlainStep,
  rw: RecordedWindow | undefined,
  iterations: number,
  recordedStepNs: () => number,
): string | undefined {
  const notScaled = notScaledTo(plainStep);
  if (!rw) return `${notScaled}: a window asked for is simulated as recorded`;
  if (rw.summary.detectedBy === 'none' || iterations <= 0)
    return `${notScaled}: the trace shows no loop of steps to scale`;
  // A loop found by its repeating calls (a capture's) may not be the launcher's step.
  return rw.summary.detectedBy === 'loop' ? loopStepMismatch(t, rw, recordedStepNs(), plainStep) : undefined;
}

/**
 * Why the loop of `rw` is not the launcher's step (`recordedStepNs`: its simulated iteration as
 * recorded), or undefined where it can be scaled to `plainStep`.
 */
export function loopStepMismatch(
  t: Trace,
  rw: RecordedWindow,
  recordedStepNs: number,
  plainStep: PlainStep,
): string | undefined {
  const plain = notScaledTo(plainStep);
  // A step of the user's (--step-on) may hold any number of optimizer steps: its length decides.
  const steps = plainStep.stepOn === undefined ? optimizerStepsPerIteration(t, rw) : undefined;
  if (steps === 1) return undefined;
  if (steps !== undefined && steps > 1)
    return `${plain}: each iteration of the loop found in the trace holds ${steps} optimizer steps`;
  const ratio = recordedStepNs / plainStep.ns;
  if (ratio >= SAME_STEP.below && ratio <= SAME_STEP.above) return undefined;
  return `${plain}: an iteration of the loop found in the trace takes ${formatNs(recordedStepNs)}, too far from it to be the same step`;
}

/**
 * How many optimizer steps each iteration of `rw` holds, from the Python stacks of its thread's
 * calls: a run of calls made inside torch's optimizer step is one. The count that nearly every
 * iteration holds; undefined where they hold none (no stacks, an optimizer of the program's own, a
 * loop that steps no optimizer) or disagree.
 */
export function optimizerStepsPerIteration(t: Trace, rw: RecordedWindow): number | undefined {
  if (rw.thread < 0 || !rw.spans.length) return undefined;
  const inStep = optimizerSites(t);
  if (!inStep) return undefined;
  const counts = new Array<number>(rw.spans.length).fill(0);
  let inside = false;
  for (let i = 0; i < t.calls.count; i++) {
    // A call without a stack says nothing of where it was made: it neither opens nor ends a run.
    if (t.calls.lane[i] !== rw.thread || t.calls.site[i] <= 0) continue;
    const now = inStep[t.calls.site[i] - 1];
    if (now && !inside) {
      const k = spanAt(rw.spans, t.calls.begin[i]);
      if (k >= 0) counts[k]++;
    }
    inside = now;
  }
  const tally = new Map<number, number>();
  for (const c of counts) tally.set(c, (tally.get(c) ?? 0) + 1);
  const [most, times] = [...tally].reduce((a, b) => (b[1] > a[1] ? b : a));
  // Iterations that hold no optimizer step (an evaluation loop, or calls without stacks) say nothing.
  return most > 0 && times >= AGREEING * counts.length ? most : undefined;
}
