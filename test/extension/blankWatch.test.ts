import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BLANK_ATTEMPTS, BLANK_LIMIT_MS, BlankWatch } from '../../extension/logic/blankWatch';

/** A watch on the mocked clock, and what it said. */
function watched(attempt = 0) {
  const calls: boolean[] = [];
  const watch = new BlankWatch((retry) => calls.push(retry), attempt);
  return { watch, calls };
}

test('a shown webview silent for the limit is declared blank, once', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { watch, calls } = watched();
  watch.visible(true);
  t.mock.timers.tick(BLANK_LIMIT_MS - 1);
  assert.deepEqual(calls, []);
  t.mock.timers.tick(1);
  assert.deepEqual(calls, [true]);
  // Shown again later: it was already given up on, a second new webview would be one too many.
  watch.visible(false);
  watch.visible(true);
  t.mock.timers.tick(10 * BLANK_LIMIT_MS);
  assert.deepEqual(calls, [true]);
});

test('a page that says ready is never watched again, however long it is hidden and shown', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { watch, calls } = watched();
  watch.visible(true);
  t.mock.timers.tick(BLANK_LIMIT_MS / 2);
  watch.ready();
  t.mock.timers.tick(BLANK_LIMIT_MS);
  watch.visible(false);
  watch.visible(true);
  t.mock.timers.tick(10 * BLANK_LIMIT_MS);
  assert.deepEqual(calls, []);
});

test('only time shown counts: a restored panel in a background tab has no page to wait for', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { watch, calls } = watched();
  watch.visible(false);
  t.mock.timers.tick(10 * BLANK_LIMIT_MS);
  watch.visible(true);
  t.mock.timers.tick(BLANK_LIMIT_MS / 2);
  watch.visible(false);
  t.mock.timers.tick(BLANK_LIMIT_MS);
  assert.deepEqual(calls, [], 'hidden before the limit: the clock starts again when shown');
  watch.visible(true);
  watch.visible(true); // a second "shown" (focus moved within the group) does not restart it
  t.mock.timers.tick(BLANK_LIMIT_MS);
  assert.deepEqual(calls, [true]);
});

test('each new webview waits longer, and the last one allowed is not replaced', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const said: [number, boolean][] = [];
  for (let attempt = 0; attempt < BLANK_ATTEMPTS; attempt++) {
    const watch = new BlankWatch((retry) => said.push([attempt, retry]), attempt);
    assert.equal(watch.limitMs, BLANK_LIMIT_MS * (attempt + 1));
    watch.visible(true);
    t.mock.timers.tick(BLANK_LIMIT_MS * attempt + BLANK_LIMIT_MS - 1);
    assert.equal(said.length, attempt, `attempt ${attempt} waits its whole limit`);
    t.mock.timers.tick(1);
  }
  assert.deepEqual(said, [...Array(BLANK_ATTEMPTS).keys()].map((a) => [a, a + 1 < BLANK_ATTEMPTS]));
});

test('disposing a watch (its panel closed) stops it', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { watch, calls } = watched();
  watch.visible(true);
  watch.dispose();
  t.mock.timers.tick(10 * BLANK_LIMIT_MS);
  assert.deepEqual(calls, []);
});
