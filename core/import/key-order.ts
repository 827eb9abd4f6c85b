// Stable orders of rows by a numeric key in linear time: a radix sort of the keys' bits. A sort with
// a comparator calls back into JavaScript for every comparison, which on the hundreds of thousands
// of ops of a large trace cost more than the rest of the import's bookkeeping.

const RADIX_BITS = 16;
const BUCKETS = 1 << RADIX_BITS;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
/** Which of the two 32-bit halves of a double holds its sign and exponent on this machine. */
const HIGH = (() => {
  f64[0] = -1;
  return u32[1] === 0xbff00000 ? 1 : 0;
})();

/**
 * `rows` ordered by `key[row]` ascending; rows of equal keys keep their order in `rows`. Keys are
 * finite numbers (-0 counts as 0, as in a comparison).
 */
export function orderByKey(rows: Int32Array, key: ArrayLike<number>): Int32Array {
  const n = rows.length;
  if (n < 2 || isOrdered(rows, key)) return rows;
  // Each key's bits as an unsigned 64-bit number in the keys' order: positives with the sign bit
  // set, negatives with every bit flipped.
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    f64[0] = key[rows[i]] + 0; // -0 + 0 is 0
    const h = u32[HIGH];
    const l = u32[1 - HIGH];
    const negative = h >>> 31 === 1;
    hi[i] = negative ? ~h >>> 0 : (h | 0x80000000) >>> 0;
    lo[i] = negative ? ~l >>> 0 : l;
  }
  // Least significant digit first, four 16-bit digits: each pass is stable, so the last decides.
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let next = new Int32Array(n);
  const counts = new Int32Array(BUCKETS);
  for (const [word, shift] of [
    [lo, 0],
    [lo, RADIX_BITS],
    [hi, 0],
    [hi, RADIX_BITS],
  ] as const) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(word[order[i]] >>> shift) & (BUCKETS - 1)]++;
    if (counts.some((c) => c === n)) continue; // every key has this digit: the pass would change nothing
    for (let b = 0, at = 0; b < BUCKETS; b++) {
      const c = counts[b];
      counts[b] = at;
      at += c;
    }
    for (let i = 0; i < n; i++) next[counts[(word[order[i]] >>> shift) & (BUCKETS - 1)]++] = order[i];
    [order, next] = [next, order];
  }
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = rows[order[i]];
  return out;
}

function isOrdered(rows: Int32Array, key: ArrayLike<number>): boolean {
  for (let i = 1; i < rows.length; i++) if (key[rows[i - 1]] > key[rows[i]]) return false;
  return true;
}
