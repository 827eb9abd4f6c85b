// The optimizer steps of a loop found by its repeating calls, from the calls' Python stacks. A
// program that logs every N steps (`if step % N == 0: print(loss.item())`) repeats its calls only
// every N steps, and the loop found is N steps long; where each repeat holds N steps of one
// optimizer, made from one line, it is split into them, so that an iteration is a training step.
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

/**
 * `repeats` (ranges of `calls`, one thread's, back to back) split after each optimizer step: each
 * piece from the first call after a step's run of calls to the end of the next run. The leading
 * part before the first run ends is a step the loop found only the end of, and is left out.
 * Undefined where the repeats do not each hold the same number (more than one, give or take the one
 * a repeat's edge cuts) of steps of one line's optimizer: two optimizers stepped in one iteration
 * (a GAN's) are one training step.
 * `perRepeat`: the steps each repeat holds.
 */
export function splitAtOptimizerSteps(
  t: Trace,
  calls: number[],
  repeats: CallRange[],
): { pieces: CallRange[]; perRepeat: number } | undefined {
  const inStep = optimizerSites(t);
  if (!inStep || repeats.length === 0) return undefined;
  const { site } = t.calls;
  const stepping = (x: number) => site[calls[x]] > 0 && inStep[site[calls[x]] - 1];
  const from = repeats[0].first;
  const to = repeats[repeats.length - 1].last;
  // Whether the calls before the loop ended inside a step: then the loop begins a step.
  let inside = false;
  for (let x = from - 1; x >= 0; x--)
    if (site[calls[x]] > 0) {
      inside = stepping(x);
      break;
    }
  const cuts: number[] = [];
  const runLines = new Set<string>();
  const perRepeat = new Array<number>(repeats.length).fill(0);
  let r = 0;
  for (let x = from; x <= to; x++) {
    while (x > repeats[r].last) r++;
    if (site[calls[x]] <= 0) continue;
    const now = stepping(x);
    if (now && !inside) {
      const frame = callSite(t, calls[x])?.frame;
      runLines.add(`${frame?.file}:${frame?.line}`);
    }
    // A step is counted where its run of optimizer calls ends: a repeat found from inside a run
    // then holds that run's end, as every later repeat holds its own.
    if (!now && inside) {
      cuts.push(x);
      perRepeat[r]++;
    }
    inside = now;
  }
  // A run that lasts to the loop's last call ends with it.
  if (inside) perRepeat[repeats.length - 1]++;
  // A repeat's ends may fall inside a run, and its neighbour's count one more: the fewest is the steps of one.
  let k = Infinity;
  let most = 0;
  for (const n of perRepeat) [k, most] = [Math.min(k, n), Math.max(most, n)];
  if (k < 2 || most > k + 1 || runLines.size !== 1) return undefined;
  const pieces: CallRange[] = [];
  for (let c = 0; c < cuts.length; c++)
    pieces.push({ first: cuts[c], last: c + 1 < cuts.length ? cuts[c + 1] - 1 : to });
  // The last piece holds a whole step only where a step's run began in it.
  const tail = pieces[pieces.length - 1];
  if (tail && !hasRunStart(tail, stepping)) pieces.pop();
  return pieces.length >= 2 ? { pieces, perRepeat: k } : undefined;
}

function hasRunStart(range: CallRange, stepping: (x: number) => boolean): boolean {
  for (let x = range.first; x <= range.last; x++) if (stepping(x)) return true;
  return false;
}
