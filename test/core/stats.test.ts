import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mean, median, quantile, kthSmallest } from '../../core/stats';

test('median: the middle sample; for an even count, the upper of the middle two', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 3);
  assert.equal(median([7]), 7);
});

test('quantile: the sample at floor(q * n) of the sorted samples, never interpolated', () => {
  const xs = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].reverse();
  assert.equal(quantile(xs, 0), 10);
  assert.equal(quantile(xs, 0.1), 20); // floor(1) = index 1
  assert.equal(quantile(xs, 0.25), 30); // floor(2.5) = index 2
  assert.equal(quantile(xs, 0.9), 100); // floor(9) = index 9
  assert.equal(quantile(xs, 0.99), 100);
  assert.equal(quantile(xs, 1), 100);
  assert.equal(quantile(xs, 0.5), median(xs));
});

test('mean: the sum over the count', () => {
  assert.equal(mean([1, 2, 6]), 3);
  assert.equal(mean([2.5]), 2.5);
});

test('every statistic skips values that are not finite, and is NaN when none is left', () => {
  assert.equal(median([NaN, 4, Infinity, 2, 9]), 4);
  assert.equal(quantile([NaN, 1, 2, 3, -Infinity], 1), 3);
  assert.equal(mean([NaN, 1, 3]), 2);
  for (const f of [median, (xs: number[]) => quantile(xs, 0.9), mean]) {
    assert.ok(Number.isNaN(f([])));
    assert.ok(Number.isNaN(f([NaN, Infinity])));
  }
  const xs = [3, NaN, 1];
  median(xs);
  assert.deepEqual(xs, [3, NaN, 1], 'the samples are left in their order');
});

test('kthSmallest: the value at index k of the sorted samples, duplicates counted', () => {
  const xs = () => Float64Array.from([5, 1, 4, 1, 3]);
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((k) => kthSmallest(xs(), k)),
    [1, 1, 3, 4, 5],
  );
  assert.equal(kthSmallest(Float64Array.from([2, 2, 2, 2]), 2), 2);
  assert.equal(kthSmallest(Float64Array.from([7]), 0), 7);
  assert.equal(kthSmallest(Float64Array.from([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]), 4), 4);
});
