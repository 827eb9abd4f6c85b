// The optimizer steps of a loop found by its repeating calls, from the calls' Python stacks. A
// program that logs every N steps (`if step % N == 0: print(loss.item())`) repeats its calls only
// every N steps, and the loop found is N steps long; where each repeat holds N steps of an
// optimizer, it is split into them, so that an iteration is a training step.
import { callSite, type Trace } from '../trace/model';

/** A frame of torch's optimizer step: its hook wrapper, around every torch optimizer's step. */
export const OPTIMIZER_FRAME = /(^|[\\/])torch[\\/]optim[\\/]optimizer\.py$/;

/** Iterations that must hold the same number of optimizer steps for it to be the loop's (./loop-step.ts). */
export const AGREEING = 0.9;

/** Per site of `t`, whether its stack is inside torch's optimizer step; undefined where none is. */
export function optimizerSites(t: Trace): boolean[] | undefined {
  const inStep = t.sites.map((s) => s.stack.some((f) => OPTIMIZER_FRAME.test(f.file)));
  return inStep.some(Boolean) ? inStep : undefined;
}

/** A range of indices into a thread's calls, first and last included. */
interface CallRange {
  first: number;
  last: number;
}

/** One line's optimizer steps in a loop: where each of its runs of calls ended, and how many ended in each repeat. */
interface LineSteps {
  cuts: number[];
  perRepeat: number[];
  /** Where its last run began. */
  lastStart: number;
}

/**
 * `repeats` (ranges of `calls`, one thread's, back to back) split after each optimizer step: each
 * piece from the first call after a step's run of calls to the end of the next run. The leading
 * part before the first run ends is a step the loop found only the end of, and is left out. Where
 * several lines step optimizers, the line stepped fewest times sets the step: a WGAN steps its
 * critic several times for each step of its generator, whose step is the training step. Undefined
 * where no line steps the same number of times (more than one, give or take the one a repeat's
 * edge cuts) in every repeat. `perRepeat`: the steps each repeat holds.
 */
export function splitAtOptimizerSteps(
  t: Trace,
  calls: number[],
  repeats: CallRange[],
): { pieces: CallRange[]; perRepeat: number } | undefined {
  const byLine = stepsByLine(t, calls, repeats);
  let chosen: { steps: LineSteps; k: number } | undefined;
  for (const steps of byLine?.values() ?? []) {
    const k = stepsPerRepeat(steps.perRepeat);
    if (k !== undefined && (!chosen || k < chosen.k)) chosen = { steps, k };
  }
  if (!chosen) return undefined;
  const { cuts, lastStart } = chosen.steps;
  const to = repeats[repeats.length - 1].last;
  const pieces: CallRange[] = [];
  for (let c = 0; c < cuts.length; c++)
    pieces.push({ first: cuts[c], last: c + 1 < cuts.length ? cuts[c + 1] - 1 : to });
  // The last piece holds a whole step only where one of the line's runs began in it.
  if (pieces.length && lastStart < pieces[pieces.length - 1].first) pieces.pop();
  return pieces.length >= 2 ? { pieces, perRepeat: chosen.k } : undefined;
}

/**
 * The steps each repeat holds, from the count of runs that ended in each: every repeat between the
 * first and the last holds the same number, and those two one more or one fewer (a run that ends
 * right at a repeat's edge is counted in the next); at least 2. Undefined otherwise.
 */
function stepsPerRepeat(counts: number[]): number | undefined {
  const inner = counts.length >= 3 ? counts.slice(1, -1) : counts;
  let k = Infinity;
  let most = 0;
  for (const n of inner) [k, most] = [Math.min(k, n), Math.max(most, n)];
  if (counts.length >= 3 ? most !== k : most > k + 1) return undefined;
  const edges = [counts[0], counts[counts.length - 1]];
  return k >= 2 && edges.every((n) => Math.abs(n - k) <= 1) ? k : undefined;
}

/** Each line's optimizer steps over `repeats`, a run's line being where its first call was made; undefined where no call is in a step. */
function stepsByLine(t: Trace, calls: number[], repeats: CallRange[]): Map<string, LineSteps> | undefined {
  const inStep = optimizerSites(t);
  if (!inStep || repeats.length === 0) return undefined;
  const { site } = t.calls;
  const stepping = (x: number) => site[calls[x]] > 0 && inStep[site[calls[x]] - 1];
  const from = repeats[0].first;
  const to = repeats[repeats.length - 1].last;
  const byLine = new Map<string, LineSteps>();
  const line = (x: number) => {
    const frame = callSite(t, calls[x])?.frame;
    const key = `${frame?.file}:${frame?.line}`;
    const fresh = { cuts: [], perRepeat: new Array<number>(repeats.length).fill(0), lastStart: -1 };
    return byLine.get(key) ?? byLine.set(key, fresh).get(key)!;
  };
  // Whether the calls before the loop ended inside a step, and whose: the loop begins inside that run.
  let inside = false;
  let run: LineSteps | undefined;
  for (let x = from - 1; x >= 0; x--)
    if (site[calls[x]] > 0) {
      inside = stepping(x);
      if (inside) run = line(x);
      break;
    }
  let r = 0;
  for (let x = from; x <= to; x++) {
    while (x > repeats[r].last) r++;
    if (site[calls[x]] <= 0) continue;
    const now = stepping(x);
    if (now && !inside) (run = line(x)).lastStart = x;
    // A step is counted where its run ends: a repeat found from inside a run then holds that run's
    // end, as every later repeat holds its own.
    if (!now && inside && run) {
      run.cuts.push(x);
      run.perRepeat[r]++;
    }
    inside = now;
  }
  // A run that lasts to the loop's last call ends with it.
  if (inside && run) run.perRepeat[repeats.length - 1]++;
  return byLine;
}
