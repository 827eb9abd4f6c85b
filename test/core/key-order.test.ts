// The radix order of rows by a numeric key: ascending, stable, and -0 equal to 0, as a comparison.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orderByKey } from '../../core/import/key-order';

test('rows by key: negatives first, huge and tiny keys in place, ties (-0 and 0 among them) in the given order', () => {
  //              row:  0   1     2    3   4    5       6     7  8      9
  const key = [3, -1, 2.5, -0, 0, 1e300, -1e300, 3, 0, 5e-324];
  const rows = Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual([...orderByKey(rows, key)], [6, 1, 3, 4, 8, 9, 2, 0, 7, 5]);
  // Given in another order, ties keep that order.
  assert.deepEqual([...orderByKey(Int32Array.from([8, 4, 3, 7, 0]), key)], [8, 4, 3, 7, 0]);
  assert.deepEqual([...orderByKey(Int32Array.from([7, 0, 4, 8, 3]), key)], [4, 8, 3, 7, 0]);
});

test('keys that differ only in their low bits, and correlation ids past 2^32', () => {
  const key = [2 ** 40 + 3, 2 ** 40 + 1, 2 ** 33, 2 ** 40 + 2, 7];
  assert.deepEqual([...orderByKey(Int32Array.from([0, 1, 2, 3, 4]), key)], [4, 2, 1, 3, 0]);
});
