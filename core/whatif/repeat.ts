// Identical iterations as a `repeat`: consecutive runs of the same steps (same kinds, names, streams,
// arguments and durations, which the scenario holds in whole ns) and the same comments. Only exact runs
// fold, so the compiled program, which unrolls every repeat, has the same steps in the same order.
import { LIMITS } from '../scenario/kinds';

/** A generated step as emitted: what it says and its comment (a GeneratedStep of ./from-trace.ts). */
export interface EmittedStep {
  step: Record<string, unknown>;
  note?: string;
}

export type Item = { step: EmittedStep } | { repeat: number; body: Item[] };

/** The longest iteration looked for, in steps; a training step is far shorter. */
const MAX_PERIOD = 20_000;
/** How many later occurrences of a step are tried as the start of its next iteration. */
const MAX_TRIES = 64;

/** A repeat takes two lines of its own (its head and its end): it is used where it makes the text shorter. */
const shorter = (period: number, count: number): boolean => (count - 1) * period > 2;

/** The steps with every exact run of two or more identical iterations folded into a repeat (nested where exact). */
export function foldRepeats(steps: EmittedStep[]): Item[] {
  const ids = stepIds(steps);
  const next = nextSame(ids);
  // real[k]: how many of the first k steps compile to something (a marked step is only a comment).
  const real = [0];
  for (const s of steps) real.push(real[real.length - 1] + (Object.keys(s.step).length ? 1 : 0));
  const same = (a: number, b: number, p: number): boolean => {
    for (let k = 0; k < p; k++) if (ids[a + k] !== ids[b + k]) return false;
    return true;
  };
  const fold = (lo: number, hi: number): Item[] => {
    const out: Item[] = [];
    let i = lo;
    while (i < hi) {
      let best = { period: 0, count: 1 };
      for (
        let j = next[i], tries = 0;
        j >= 0 && j < hi && j - i <= MAX_PERIOD && tries < MAX_TRIES;
        j = next[j], tries++
      ) {
        const p = j - i;
        if (real[j] === real[i]) continue;
        let k = 1;
        while (k < LIMITS.repeat && i + (k + 1) * p <= hi && same(i, i + k * p, p)) k++;
        if (shorter(p, k) && k * p > best.count * best.period) best = { period: p, count: k };
      }
      if (best.period === 0) {
        out.push({ step: steps[i++] });
        continue;
      }
      out.push({ repeat: best.count, body: fold(i, i + best.period) });
      i += best.count * best.period;
    }
    return out;
  };
  return fold(0, steps.length);
}

/** One number per distinct step and comment. */
function stepIds(steps: EmittedStep[]): number[] {
  const byKey = new Map<string, number>();
  return steps.map((s) => {
    const key = `${JSON.stringify(s.step)}\n${s.note ?? ''}`;
    let id = byKey.get(key);
    if (id === undefined) byKey.set(key, (id = byKey.size));
    return id;
  });
}

/** For each index, the next index with the same id, or -1. */
function nextSame(ids: number[]): Int32Array {
  const next = new Int32Array(ids.length).fill(-1);
  const last = new Map<number, number>();
  for (let i = ids.length - 1; i >= 0; i--) {
    next[i] = last.get(ids[i]) ?? -1;
    last.set(ids[i], i);
  }
  return next;
}
