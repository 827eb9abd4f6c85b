// Compressed rows: items grouped by a key into one array, row k being ids[start[k] .. start[k + 1]).
// The analysis builds several per trace, each as large as a column, and each new array is memory
// touched for the first time: these fill the rows through the starts themselves, with no copy of them.

export interface Rows {
  start: Int32Array;
  ids: Int32Array;
}

/**
 * The items i < n whose key lies in [0, buckets), grouped by key, each row in item order; a row
 * holds values[i] where values are given, i otherwise.
 */
export function groupByKey(keys: Int32Array, n: number, buckets: number, values?: Int32Array): Rows {
  const start = new Int32Array(buckets + 1);
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k >= 0 && k < buckets) start[k + 1]++;
  }
  for (let k = 0; k < buckets; k++) start[k + 1] += start[k];
  const ids = new Int32Array(start[buckets]);
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k >= 0 && k < buckets) ids[start[k]++] = values ? values[i] : i;
  }
  shiftStarts(start);
  return { start, ids };
}

/**
 * After a fill that advanced each row's start to the next row's (start[k]++ per item), the starts
 * moved back one row.
 */
export function shiftStarts(start: Int32Array): void {
  start.copyWithin(1, 0, start.length - 1);
  start[0] = 0;
}

/** A list of int32 that grows by doubling: pushes without a JavaScript array's boxed slots. */
export class IntList {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Int32Array(capacity);
  }

  push(x: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = x;
  }

  /** The items as a view (no copy); later pushes may leave it behind. */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}
