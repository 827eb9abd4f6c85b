// Where an unblock plate goes beside its marker (webview/paint.ts plateX).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plateX } from '../../webview/paint';

const W = 1000;

test('a plate goes right of its marker when nothing is there', () => {
  assert.equal(plateX(100, 50, W, [], -Infinity), 104);
});

test("a plate that would cover the next call's label goes left of the marker, over the wait it ends", () => {
  // The next call's label starts 10 px right of the marker.
  assert.equal(plateX(100, 50, W, [[110, 190]], -Infinity), 46);
  // A label that ends before the plate would start does not move it.
  assert.equal(plateX(100, 50, W, [[20, 95]], -Infinity), 104);
});

test("at the canvas's right edge a plate goes left; with labels on both sides it keeps the side that fits", () => {
  assert.equal(plateX(980, 50, W, [], -Infinity), 926);
  assert.equal(
    plateX(
      100,
      50,
      W,
      [
        [40, 90],
        [110, 190],
      ],
      -Infinity,
    ),
    104,
  );
  assert.equal(plateX(980, 50, W, [[930, 970]], -Infinity), 926);
});

test('a plate never covers the plate before it on the row', () => {
  // The previous plate ends at 120: right of this marker (at 104) would overlap it, and so would left.
  assert.equal(plateX(100, 50, W, [], 120), undefined);
  // Left of the marker is clear of a plate that ended at 30; right is taken by a label.
  assert.equal(plateX(100, 50, W, [[110, 190]], 30), 46);
  // Only left would be clear of the label, but it overlaps the previous plate: right, over the label.
  assert.equal(plateX(100, 50, W, [[110, 190]], 60), 104);
});
