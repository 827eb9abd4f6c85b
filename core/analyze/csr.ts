// Compressed rows: items grouped by a key into one array, row k being ids[start[k] .. start[k + 1]).
// The analysis builds several per trace, each as large as a column, and each new array is memory
// touched for the first time: these fill the rows through the starts themselves, with no copy of them.

import { countAtMost } from '../stats';

export interface Rows {
  start: Int32Array;
  ids: Int32Array;
}

/**
 * The items i < n whose key lies in [0, buckets), grouped by key, each row in item order; a row
 * holds values[i] where values are given, i otherwise.
 */
export function groupByKey(keys: Int32Array, n: number, buckets: number, values?: Int32Array): Rows {
  // No items (a trace that declares no buffer accesses): every start is 0, as a new array holds,
  // left untouched so that its pages cost nothing.
  if (n === 0) return { start: new Int32Array(buckets + 1), ids: new Int32Array(0) };
  const sorted = values ? undefined : groupSorted(keys, n, buckets);
  if (sorted) return sorted;
  const start = new Int32Array(buckets + 1);
  let placed = 0;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k >= 0 && k < buckets) {
      start[k + 1]++;
      placed++;
    }
  }
  if (placed === 0) return { start, ids: new Int32Array(0) };
  for (let k = 0; k < buckets; k++) start[k + 1] += start[k];
  const ids = new Int32Array(placed);
  if (values) placeValues(keys, n, buckets, values, start, ids);
  else placeIds(keys, n, buckets, start, ids);
  shiftStarts(start);
  return { start, ids };
}

/**
 * groupByKey for keys that come in ascending order (ops listed by the call that issued them), in
 * one pass that writes each start once; undefined, after a partial pass, where a key goes back.
 */
function groupSorted(keys: Int32Array, n: number, buckets: number): Rows | undefined {
  const [start, ids] = int32Tables(buckets + 1, n);
  let placed = 0;
  let key = 0; // starts up to start[key] are written
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k < 0 || k >= buckets) continue;
    if (k < key) return undefined;
    while (key < k) start[++key] = placed;
    ids[placed++] = i;
  }
  while (key < buckets) start[++key] = placed;
  return { start, ids: ids.subarray(0, placed) };
}

// The two fills apart, each with its own loop: one that serves both would be optimized for the
// first and made again for the second.

function placeIds(keys: Int32Array, n: number, buckets: number, start: Int32Array, ids: Int32Array): void {
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k >= 0 && k < buckets) ids[start[k]++] = i;
  }
}

function placeValues(
  keys: Int32Array,
  n: number,
  buckets: number,
  values: Int32Array,
  start: Int32Array,
  ids: Int32Array,
): void {
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k >= 0 && k < buckets) ids[start[k]++] = values[i];
  }
}

/**
 * The rows i < n where `column` holds `value`, ascending. The engine's own search finds each: a
 * loop of ours over a column runs unoptimized until the engine has compiled it, which for a
 * column searched once costs more than the search.
 */
export function rowsWhere(column: Uint8Array, n: number, value: number): Int32Array {
  const rows = new IntList();
  for (let i = column.indexOf(value); i >= 0 && i < n; i = column.indexOf(value, i + 1)) rows.push(i);
  return rows.view();
}

/**
 * After a fill that advanced each row's start to the next row's (start[k]++ per item), the starts
 * moved back one row.
 */
export function shiftStarts(start: Int32Array): void {
  start.copyWithin(1, 0, start.length - 1);
  start[0] = 0;
}

/**
 * Int32 tables of the given lengths, zeroed, made in one allocation. Each large allocation costs a
 * run of pages of its own besides those its table touches (the allocator clears the end of its
 * heap for it), so tables made at the same time and kept as long as each other are made together.
 */
export function int32Tables(...lengths: number[]): Int32Array[] {
  let total = 0;
  for (const n of lengths) total += n;
  const buffer = new ArrayBuffer(4 * total);
  let at = 0;
  return lengths.map((n) => {
    const table = new Int32Array(buffer, at, n);
    at += 4 * n;
    return table;
  });
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

/**
 * Compressed rows for keys of which few have a row (the nodes with cross-lane predecessors other
 * than their launch, the calls that wait): a bit per key marks those that have one, and only those
 * take a start, so that the rows cost memory by what they hold rather than by how many keys there
 * are. A key's row is the number of marked keys before it (rowOfKey); rows are in key order.
 */
export interface SparseRows {
  /** Bit k & 31 of has[k >>> 5]: whether key k has a row. */
  has: Int32Array;
  /** Per word of `has`: the rows of the keys before it. */
  before: Int32Array;
  /** Row r is key keys[r]'s, and holds ids[start[r] .. start[r + 1]). */
  keys: Int32Array;
  start: Int32Array;
  ids: Int32Array;
}

/** The row of `key`, or -1 where it has none. */
export function rowOfKey(rows: SparseRows, key: number): number {
  const word = rows.has[key >>> 5];
  const bit = 1 << (key & 31);
  return word & bit ? rows.before[key >>> 5] + bitCount(word & (bit - 1)) : -1;
}

/** Where key's row begins in `ids` (0 for a key without one; its end is rowEnd). */
export function rowFirst(rows: SparseRows, key: number): number {
  const r = rowOfKey(rows, key);
  return r < 0 ? 0 : rows.start[r];
}

/** Where key's row ends in `ids` (0 for a key without one). */
export function rowEnd(rows: SparseRows, key: number): number {
  const r = rowOfKey(rows, key);
  return r < 0 ? 0 : rows.start[r + 1];
}

/** How many bits of `v` are set. */
function bitCount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** values[i] for i < n grouped by keys[i] (each in [0, keyCount)), each row in item order. */
export function sparseRows(keys: Int32Array, values: Int32Array, n: number, keyCount: number): SparseRows {
  const words = (keyCount >>> 5) + 1;
  const has = new Int32Array(words);
  const ascending = markKeys(keys, n, has);
  const before = new Int32Array(words);
  const count = rankWords(has, before);
  const [rowKeys, start, ids] = int32Tables(count, count + 1, n);
  const rows: SparseRows = { has, before, keys: rowKeys, start, ids };
  if (ascending) rowsInOrder(keys, values, n, rows);
  else rowsByCount(keys, values, n, rows);
  return rows;
}

// The passes apart, each a small function: one function holding every loop would be optimized for
// its first and made again at each later one.

/** Marks each key in `has`; whether the keys come in ascending order. */
function markKeys(keys: Int32Array, n: number, has: Int32Array): boolean {
  let ascending = true;
  for (let i = 0; i < n; i++) {
    has[keys[i] >>> 5] |= 1 << (keys[i] & 31);
    if (i > 0 && keys[i] < keys[i - 1]) ascending = false;
  }
  return ascending;
}

/** Each word's rows before it; how many rows in all. */
function rankWords(has: Int32Array, before: Int32Array): number {
  let rows = 0;
  for (let w = 0; w < has.length; w++) {
    before[w] = rows;
    rows += bitCount(has[w]);
  }
  return rows;
}

/** The rows where the keys come in order: each row is a run of equal keys, taken as it comes. */
function rowsInOrder(keys: Int32Array, values: Int32Array, n: number, rows: SparseRows): void {
  const { keys: rowKeys, start, ids } = rows;
  let r = -1;
  for (let i = 0; i < n; i++) {
    if (i === 0 || keys[i] !== keys[i - 1]) {
      rowKeys[++r] = keys[i];
      start[r] = i;
    }
    ids[i] = values[i];
  }
  start[r + 1] = n;
}

/** The rows for keys in any order: counted, then filled (each row's start advancing as it fills, moved back after). */
function rowsByCount(keys: Int32Array, values: Int32Array, n: number, rows: SparseRows): void {
  const { keys: rowKeys, start, ids } = rows;
  for (let i = 0; i < n; i++) start[rowOfKey(rows, keys[i]) + 1]++;
  for (let r = 0; r + 1 < start.length; r++) start[r + 1] += start[r];
  for (let i = 0; i < n; i++) {
    const r = rowOfKey(rows, keys[i]);
    rowKeys[r] = keys[i];
    ids[start[r]++] = values[i];
  }
  shiftStarts(start);
}

/** Whether `id` is in the ascending `ids`. */
export function sortedHas(ids: Int32Array, id: number): boolean {
  // Ids are integers: those below `id` are those at most id - 1.
  return ids[countAtMost(ids.length, (k) => ids[k], id - 1)] === id;
}
