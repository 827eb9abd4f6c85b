// The level-of-detail index: per track, item ids sorted by start plus a running maximum of their
// ends. A frame visits at most one merged run per pixel column, found by binary search, so the
// cost of a frame depends on the canvas width and not on the number of items.

export interface TrackIndex {
  ids: Int32Array;
  /**
   * maxEnd[k] = max(end[ids[0..k]]): non-decreasing, so it can be binary searched. Null where the
   * ends never decrease in start order already (items that do not overlap), so end[ids[k]] is it.
   */
  maxEnd: Float64Array | null;
}

/** max(end[ids[0..k]]). */
export const runningEnd = (x: TrackIndex, end: ArrayLike<number>, k: number): number =>
  x.maxEnd ? x.maxEnd[k] : end[x.ids[k]];

export function trackIndex(ids: Int32Array, end: ArrayLike<number>): TrackIndex {
  let inOrder = true;
  for (let k = 1; k < ids.length && inOrder; k++) inOrder = end[ids[k - 1]] <= end[ids[k]];
  if (inOrder) return { ids, maxEnd: null };
  const maxEnd = new Float64Array(ids.length);
  let m = -Infinity;
  for (let k = 0; k < ids.length; k++) {
    const e = end[ids[k]];
    if (e > m) m = e;
    maxEnd[k] = m;
  }
  return { ids, maxEnd };
}

/** Where each item of a table goes: track base[lane[i]] + depth[i] (no depth: base[lane[i]]). */
export interface TrackOf {
  lane: ArrayLike<number>;
  depth: ArrayLike<number> | null;
  base: Int32Array;
}

export const trackOf = (x: TrackOf, i: number): number => x.base[x.lane[i]] + (x.depth ? x.depth[i] : 0);

/**
 * Every track of one table: track t's ids are ids[first[t] .. first[t + 1] - 1], its running ends
 * maxEnd[t], and typical[t] an item of its most common kind (the first to become most common, in
 * time order), or -1.
 */
export interface TrackIndexes {
  ids: Int32Array;
  first: Int32Array;
  maxEnd: (Float64Array | null)[];
  typical: Int32Array;
}

/**
 * Groups a table's items by track in time order, in two passes over its columns and without a
 * column of its own per item beyond the ids: fresh memory is what a large trace's first frame
 * pays most for. Items usually arrive in time order per track already (the counting sort keeps
 * their order), so only a track that does not gets sorted; ties in time keep the item order.
 * Running ends are stored only for a track whose items overlap.
 */
export function indexTracks(
  where: TrackOf,
  n: number,
  tracks: number,
  start: ArrayLike<number>,
  end: ArrayLike<number>,
  kind: Uint8Array,
): TrackIndexes {
  const { lane, depth, base } = where;
  const first = new Int32Array(tracks + 1);
  const lastStart = new Float64Array(tracks);
  const lastEnd = new Float64Array(tracks);
  const unsorted = new Uint8Array(tracks);
  const overlaps = new Uint8Array(tracks);
  const counts = new Uint32Array(tracks * 256);
  const typical = new Int32Array(tracks).fill(-1);
  for (let i = 0; i < n; i++) {
    const t = base[lane[i]] + (depth ? depth[i] : 0);
    const s = start[i];
    const e = end[i];
    if (first[t + 1]++ > 0) {
      if (!(lastStart[t] <= s)) unsorted[t] = 1;
      if (!(lastEnd[t] <= e)) overlaps[t] = 1;
    }
    lastStart[t] = s;
    lastEnd[t] = e;
    const c = ++counts[t * 256 + kind[i]];
    const best = typical[t];
    if (best < 0 || c > counts[t * 256 + kind[best]]) typical[t] = i;
  }
  for (let t = 0; t < tracks; t++) first[t + 1] += first[t];
  const fill = first.slice(0, tracks);
  const ids = new Int32Array(n);
  for (let i = 0; i < n; i++) ids[fill[base[lane[i]] + (depth ? depth[i] : 0)]++] = i;
  const maxEnd: (Float64Array | null)[] = [];
  for (let t = 0; t < tracks; t++) {
    const own = ids.subarray(first[t], first[t + 1]);
    if (unsorted[t]) {
      own.sort((x, y) => start[x] - start[y] || x - y);
      typical[t] = typicalItem(own, kind);
    }
    maxEnd[t] = unsorted[t] || overlaps[t] ? trackIndex(own, end).maxEnd : null;
  }
  return { ids, first, maxEnd, typical };
}

/** The item at which its kind first becomes the most common on the track, or -1 for none. */
export function typicalItem(ids: Int32Array, kind: Uint8Array): number {
  const count = new Uint32Array(256);
  let best = -1;
  for (const i of ids) if (++count[kind[i]] > (best < 0 ? 0 : count[kind[best]])) best = i;
  return best;
}

/**
 * First k >= lo with start[ids[k]] >= t. It gallops forward from `lo` before bisecting: a frame
 * asks for the next pixel column, which is usually a few items ahead, so the probes stay near
 * each other in memory instead of jumping across arrays of millions.
 */
export function lowerBoundStart(x: TrackIndex, start: ArrayLike<number>, t: number, lo = 0): number {
  const n = x.ids.length;
  let step = 1;
  while (lo + step < n && start[x.ids[lo + step]] < t) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(n, lo + step);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (start[x.ids[mid]] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First k whose running end reaches t: nothing before it can be visible at or after t. */
export function firstEndingAfter(x: TrackIndex, end: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = x.ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (runningEnd(x, end, mid) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface View {
  /** Time at pixel 0 and nanoseconds per CSS pixel. */
  t0: number;
  nsPerPx: number;
  widthPx: number;
  /** Items narrower than this many pixels are merged with their neighbours (default 1). */
  minPx?: number;
}

/**
 * Calls `item(id, x0, x1)` for each item at least `minPx` wide and `merged(firstId, count, x0, x1)`
 * for each run of narrower items that start in the same pixel column.
 */
export function visitVisible(
  x: TrackIndex,
  start: ArrayLike<number>,
  end: ArrayLike<number>,
  v: View,
  item: (id: number, x0: number, x1: number) => void,
  merged: (firstId: number, count: number, x0: number, x1: number) => void,
): void {
  const t1 = v.t0 + v.widthPx * v.nsPerPx;
  const n = x.ids.length;
  const minPx = v.minPx ?? 1;
  let k = firstEndingAfter(x, end, v.t0);
  while (k < n) {
    const id = x.ids[k];
    const s = start[id];
    if (s > t1) break;
    // Behind a long item the running end no longer says where the view starts: step over what
    // ended before it (tracks whose items do not overlap never get here).
    if (end[id] < v.t0) {
      k++;
      continue;
    }
    const x0 = (s - v.t0) / v.nsPerPx;
    const x1 = (end[id] - v.t0) / v.nsPerPx;
    if (x1 - x0 >= minPx) {
      item(id, x0, x1);
      k++;
      continue;
    }
    // Everything that starts inside this pixel column becomes one mark.
    const column = Math.floor(x0) + 1;
    let next = Math.max(k + 1, lowerBoundStart(x, start, v.t0 + column * v.nsPerPx, k + 1));
    // Where items do not overlap, only the last one starting in this column can be wide; it is
    // drawn on its own.
    if (next - 1 > k && end[x.ids[next - 1]] - start[x.ids[next - 1]] >= minPx * v.nsPerPx) next--;
    const runEnd = (runningEnd(x, end, next - 1) - v.t0) / v.nsPerPx;
    merged(id, next - k, x0, Math.max(runEnd, x0 + 1));
    k = next;
  }
}

/**
 * The item under time t on this track. Items narrower than the slop (markers, sub-pixel work)
 * win when they are within the slop, so they stay clickable next to long neighbours; otherwise
 * the shortest item containing t.
 */
export function hitTest(
  x: TrackIndex,
  start: ArrayLike<number>,
  end: ArrayLike<number>,
  t: number,
  slopNs: number,
): number {
  let k = lowerBoundStart(x, start, t + slopNs) - 1;
  let best = -1;
  let bestScore = Infinity;
  for (let steps = 0; k >= 0 && runningEnd(x, end, k) >= t - slopNs && steps < 512; k--, steps++) {
    const id = x.ids[k];
    const s = start[id];
    const e = end[id];
    const dist = t < s ? s - t : t > e ? t - e : 0;
    const score = e - s < slopNs ? (dist <= slopNs ? dist : Infinity) : dist === 0 ? slopNs + e - s : Infinity;
    if (score < bestScore) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}
