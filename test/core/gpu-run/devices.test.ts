// S21: a scenario that needs more CUDA devices than the machine has is refused before the run, at
// the step that first uses the missing device.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario } from '../../../core/scenario/parse';
import { firstUse, missingDevice } from '../../../core/gpu-run/devices';

const text = `{
  "name": "two",
  "streams": { "s1": { "device": 1 } },
  "steps": [
    { "launch": "a", "us": 1 },
    { "hostWork": { "us": 1 } },
    { "launch": "b", "stream": "s1", "us": 1 }
  ]
}`;
const program = compileScenario(text, 'two.scenario.json');

test('S21 a scenario naming device 1 on a one-device machine fails at the step that first uses it', () => {
  const m = missingDevice(program, 1);
  assert.equal(m?.message, 'two.scenario.json:7:5: scenario uses device 1 but this machine has 1 CUDA device');
  assert.deepEqual(m?.step, { thread: 'main', index: 2, line: 7, column: 5 });
  assert.equal(missingDevice(program, 2), undefined);
  assert.equal(
    missingDevice(program, 2, 1)?.message,
    'two.scenario.json:7:5: scenario uses device 1 (CUDA device 2, counting from --device 1) but this machine has 2 CUDA devices',
  );
});

test('S21 a device only declared, never used by a step, is reported where it is declared', () => {
  const declared = compileScenario(
    '{ "name": "d", "events": { "e": { "device": 1 } }, "steps": [ { "hostWork": { "us": 1 } } ] }',
    'd.scenario.json',
  );
  assert.deepEqual(firstUse(declared, 1), { pos: { line: 1, column: 45 } });
  assert.equal(
    missingDevice(declared, 1)?.message,
    'd.scenario.json:1:45: scenario uses device 1 but this machine has 1 CUDA device',
  );
});
