// Items grouped by a small integer key (a lane, a lane and depth) and ordered by time inside each
// group. A counting sort does the grouping in linear time; items usually arrive in time order
// already, so a group is sorted only when it is not, which keeps millions of ops cheap.

export interface Grouped {
  /** Item ids, group after group. */
  ids: Int32Array;
  /** Group g holds ids[start[g]] .. ids[start[g + 1] - 1]. */
  start: Int32Array;
}

/** `key(i)` is the group of item i, or -1 to leave it out. */
export function groupByTime(
  n: number,
  groups: number,
  key: (i: number) => number,
  time: (i: number) => number,
): Grouped {
  const start = new Int32Array(groups + 1);
  for (let i = 0; i < n; i++) {
    const k = key(i);
    if (k >= 0) start[k + 1]++;
  }
  for (let g = 0; g < groups; g++) start[g + 1] += start[g];
  const fill = start.slice(0, groups);
  const ids = new Int32Array(start[groups]);
  for (let i = 0; i < n; i++) {
    const k = key(i);
    if (k >= 0) ids[fill[k]++] = i;
  }
  for (let g = 0; g < groups; g++) {
    const a = start[g];
    const b = start[g + 1];
    let sorted = true;
    for (let k = a + 1; k < b && sorted; k++) sorted = time(ids[k - 1]) <= time(ids[k]);
    if (!sorted) ids.subarray(a, b).sort((x, y) => time(x) - time(y) || x - y);
  }
  return { ids, start };
}
