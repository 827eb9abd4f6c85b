/**
 * Order statistics and means over samples. Every one skips values that are not finite (a run
 * that missed a stamp reads NaN) and answers NaN when no finite value is left.
 *
 * The quantile is the nearest rank from below, with no interpolation: the value at index
 * floor(q * n) of the sorted samples (the last one for q = 1). So it is always one of the
 * samples, and quantile(xs, 0.5) is the median: for an even count, the upper of the middle two.
 */

const finiteSorted = (xs: readonly number[]): number[] => xs.filter(Number.isFinite).sort((a, b) => a - b);

export function quantile(xs: readonly number[], q: number): number {
  const s = finiteSorted(xs);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

export function mean(xs: readonly number[]): number {
  const s = xs.filter(Number.isFinite);
  return s.length ? s.reduce((a, b) => a + b, 0) / s.length : NaN;
}

/** How many of the first items, sorted by `keyAt` ascending, have a key at most `x`: a binary search. */
export function countAtMost(length: number, keyAt: (k: number) => number, x: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keyAt(mid) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The k-th smallest of `xs` (0-based), found by partitioning `xs` in place (Hoare's selection):
 * linear on average where a sort is n log n. `xs` is left reordered.
 */
export function kthSmallest(xs: Float64Array, k: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i] < pivot) i++;
      while (xs[j] > pivot) j--;
      if (i <= j) {
        const x = xs[i];
        xs[i++] = xs[j];
        xs[j--] = x;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return xs[k];
}
