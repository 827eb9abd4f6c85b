import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseBackend, parseBackendSetting } from '../../extension/logic/backend';

const h200 = { ok: true as const, name: 'NVIDIA H200', driver: '580.65' };
const none = { ok: false as const, reason: 'libcuda.so.1 not found' };

test('auto with a GPU in a trusted workspace runs on the GPU and names it', () => {
  const c = chooseBackend('auto', true, h200);
  assert.equal(c.use, 'gpu');
  assert.equal(c.label, 'GPU: NVIDIA H200');
  assert.match(c.tooltip, /driver 580\.65/);
  assert.equal(c.fallback, undefined);
});

test('auto without a GPU says "Simulator (no GPU)" and why', () => {
  const c = chooseBackend('auto', true, none);
  assert.deepEqual([c.use, c.label], ['simulator', 'Simulator (no GPU)']);
  assert.match(c.tooltip, /libcuda\.so\.1 not found/);
  assert.equal(c.fallback, undefined, 'auto asked for nothing it did not get');
});

test('gpu asked for but absent falls back to the simulator with a message', () => {
  const c = chooseBackend('gpu', true, none);
  assert.equal(c.use, 'simulator');
  assert.equal(c.fallback, 'No usable GPU (libcuda.so.1 not found); simulating instead.');
});

test('an untrusted workspace never runs on the GPU, even with one present', () => {
  for (const setting of ['auto', 'gpu'] as const) {
    const c = chooseBackend(setting, false, h200);
    assert.equal(c.use, 'simulator', setting);
    assert.equal(c.label, 'Simulator (untrusted)');
  }
  assert.match(chooseBackend('gpu', false, h200).fallback ?? '', /trusted workspace/);
});

test('simulator setting wins over a present GPU', () => {
  assert.deepEqual(
    [chooseBackend('simulator', true, h200).use, chooseBackend('simulator', true, h200).label],
    ['simulator', 'Simulator'],
  );
});

test('before the probe answers, auto shows Auto and plans to simulate', () => {
  assert.deepEqual(
    [chooseBackend('auto', true, undefined).use, chooseBackend('auto', true, undefined).label],
    ['simulator', 'Auto'],
  );
});

test('unknown setting values read as auto', () => {
  assert.equal(parseBackendSetting('cuda'), 'auto');
  assert.equal(parseBackendSetting(undefined), 'auto');
  assert.equal(parseBackendSetting('gpu'), 'gpu');
});
