import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200, loadProfile, ProfileError, simulate } from '../../core/simulate';
import { compileScenario } from '../../core/scenario/parse';

test('loadProfile fills missing fields from h200 and keeps the given ones', () => {
  const p = loadProfile({ name: 'my-gpu', spinWakeNs: 5000, sms: 108 });
  assert.equal(p.name, 'my-gpu');
  assert.equal(p.spinWakeNs, 5000);
  assert.equal(p.sms, 108);
  assert.equal(p.launchNs, h200.launchNs);
  assert.deepEqual(Object.keys(p).sort(), Object.keys(h200).sort());
  assert.deepEqual(loadProfile('h200'), { ...h200 });
});

test('loadProfile names the field at fault', () => {
  const bad: [unknown, RegExp][] = [
    [{ spinWakeNS: 1 }, /^profile\.spinWakeNS: unknown field; fields are name, deviceName, sms/],
    [{ sms: 1.5 }, /^profile\.sms: expected a whole number of at least 1, got 1\.5$/],
    [{ launchNs: -1 }, /^profile\.launchNs: expected a number of at least 0, got -1$/],
    [{ memoryGBps: 0 }, /^profile\.memoryGBps: expected a number above 0, got 0$/],
    [{ queryNs: '150' }, /^profile\.queryNs: expected a number, got "150"$/],
    [{ name: '' }, /^profile\.name: expected a non-empty string/],
    [[1], /^a profile must be a JSON object, got an array$/],
    ['a100', /^unknown profile "a100"; built-in profiles: h200$/],
  ];
  for (const [json, message] of bad) assert.throws(() => loadProfile(json), (e: Error) => e instanceof ProfileError && message.test(e.message), String(json));
});

test('a profile changes timing only, and the trace names it', () => {
  const program = compileScenario(JSON.stringify({
    name: 'p', streams: { s: {} }, steps: [{ launch: 'k', stream: 's', us: 100 }, { streamSync: 's' }],
  }), 'p.scenario.json');
  const slow = simulate(program, loadProfile({ name: 'slow', spinWakeNs: 20000, launchNs: 10000 }));
  const fast = simulate(program);
  assert.equal(slow.meta.profile, 'slow');
  assert.equal(fast.meta.profile, 'h200');
  assert.equal(fast.meta.device?.name, 'NVIDIA H200');
  assert.equal(slow.calls.unblockNs[1], 20000);
  assert.equal(slow.calls.end[0], 10000);
  assert.equal(slow.calls.releasedBy[1], fast.calls.releasedBy[1]);
  assert.deepEqual(slow.meta.scenario, { name: 'p', file: 'p.scenario.json' });
  assert.equal(slow.meta.source, 'simulator');
  assert.equal(slow.meta.alignmentErrorNs, 0);
});
