import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BLANK_ATTEMPTS, BLANK_LIMIT_MS, BLANK_STAGGER_MS, BlankWatch } from '../../extension/logic/blankWatch';

/** A watch on the mocked clock, and what it said. */
function watched(attempt = 0) {
  const calls: boolean[] = [];
  const watch = new BlankWatch((retry) => calls.push(retry), attempt);
  return { watch, calls };
}

test('a shown webview silent for its limit is declared blank, once', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { watch, calls } = watched();
  assert.ok(watch.limitMs >= BLANK_LIMIT_MS);
  watch.visible(true);
  t.mock.timers.tick(watch.limitMs - 1);
  assert.deepEqual(calls, []);
  t.mock.timers.tick(1);
  assert.deepEqual(calls, [true]);
  // Shown again later: it was already given up on, a second new webview would be one too many.
  watch.visible(false);
  watch.visible(true);
  t.mock.timers.tick(10 * watch.limitMs);
  assert.deepEqual(calls, [true]);
});

test('a page that says ready is never watched again, however long it is hidden and shown', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { watch, calls } = watched();
  watch.visible(true);
  t.mock.timers.tick(watch.limitMs / 2);
  watch.ready();
  t.mock.timers.tick(watch.limitMs);
  watch.visible(false);
  watch.visible(true);
  t.mock.timers.tick(10 * watch.limitMs);
  assert.deepEqual(calls, []);
});

test('only time shown counts: a restored panel in a background tab has no page to wait for', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { watch, calls } = watched();
  watch.visible(false);
  t.mock.timers.tick(10 * watch.limitMs);
  watch.visible(true);
  t.mock.timers.tick(watch.limitMs / 2);
  watch.visible(false);
  t.mock.timers.tick(watch.limitMs);
  assert.deepEqual(calls, [], 'hidden before the limit: the clock starts again when shown');
  watch.visible(true);
  watch.visible(true); // a second "shown" (focus moved within the group) does not restart it
  t.mock.timers.tick(watch.limitMs);
  assert.deepEqual(calls, [true]);
});

test('panels restored together are declared blank apart, so their new webviews are not made together', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const when: number[] = [];
  let now = 0;
  const watches = [0, 1, 2].map((i) => new BlankWatch(() => (when[i] = now)));
  for (const w of watches) w.visible(true);
  for (; now <= 2 * BLANK_LIMIT_MS; now += 100) t.mock.timers.tick(100);
  assert.equal(when.length, 3);
  const sorted = [...when].sort((a, b) => a - b);
  for (let i = 1; i < 3; i++) assert.ok(sorted[i] - sorted[i - 1] >= BLANK_STAGGER_MS - 100, `${sorted.join(', ')} ms`);
});

test('each new webview waits longer, and the last one allowed is not replaced', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const said: [number, boolean][] = [];
  let previous = 0;
  for (let attempt = 0; attempt < BLANK_ATTEMPTS; attempt++) {
    const watch = new BlankWatch((retry) => said.push([attempt, retry]), attempt);
    assert.ok(
      watch.limitMs >= BLANK_LIMIT_MS * (attempt + 1) && watch.limitMs > previous,
      `attempt ${attempt}: ${watch.limitMs} ms after ${previous}`,
    );
    previous = watch.limitMs;
    watch.visible(true);
    t.mock.timers.tick(watch.limitMs - 1);
    assert.equal(said.length, attempt, `attempt ${attempt} waits its whole limit`);
    t.mock.timers.tick(1);
  }
  assert.deepEqual(
    said,
    [...Array(BLANK_ATTEMPTS).keys()].map((a) => [a, a + 1 < BLANK_ATTEMPTS]),
  );
});

test('disposing a watch (its panel closed) stops it', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { watch, calls } = watched();
  watch.visible(true);
  watch.dispose();
  t.mock.timers.tick(10 * watch.limitMs);
  assert.deepEqual(calls, []);
});
