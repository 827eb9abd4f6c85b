// Sorting values that arrive as a few runs, each usually sorted already (one stream's op times):
// each run is checked, sorted only where it is not, and the runs are merged in pairs, which costs
// n log(runs) instead of a whole sort's n log(n).

/**
 * Sorts `values` (no NaN), whose runs are values[bounds[r] .. bounds[r + 1]) from bounds[0] = 0,
 * using `spare` (as long as `values`) for the merges. Returns whichever of the two holds the sorted values; the other is
 * left as scratch.
 */
export function sortRuns(values: Float64Array, bounds: ArrayLike<number>, spare: Float64Array): Float64Array {
  let ends: number[] = [];
  for (let r = 0; r + 1 < bounds.length; r++) {
    const a = bounds[r];
    const b = bounds[r + 1];
    if (a === b) continue;
    if (!isSorted(values, a, b)) values.subarray(a, b).sort();
    ends.push(b);
  }
  let from = values;
  let to = spare;
  while (ends.length > 1) {
    const merged: number[] = [];
    for (let r = 0; r < ends.length; r += 2) {
      const lo = r === 0 ? 0 : ends[r - 1];
      const mid = ends[r];
      const hi = r + 1 < ends.length ? ends[r + 1] : mid;
      mergeInto(from, lo, mid, hi, to);
      merged.push(hi);
    }
    ends = merged;
    [from, to] = [to, from];
  }
  return from;
}

function isSorted(v: Float64Array, a: number, b: number): boolean {
  for (let i = a + 1; i < b; i++) if (!(v[i - 1] <= v[i])) return false;
  return true;
}

/** Merges the sorted from[lo .. mid) and from[mid .. hi) into to[lo .. hi). */
function mergeInto(from: Float64Array, lo: number, mid: number, hi: number, to: Float64Array): void {
  let i = lo;
  let j = mid;
  let k = lo;
  while (i < mid && j < hi) to[k++] = from[j] < from[i] ? from[j++] : from[i++];
  while (i < mid) to[k++] = from[i++];
  while (j < hi) to[k++] = from[j++];
}
