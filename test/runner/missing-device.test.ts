// S21 through the runner process: a scenario that names device 1 on a machine with one CUDA device
// fails before it runs, saying so at the step that first uses device 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario } from '../../core/scenario/parse';
import { RunnerError, runInRunner } from '../../runner/client';
import { availability } from '../../runner/native';
import { runnerBundle } from './runner-bundle';
import { assertGpu, skipUnlessNoDevice } from '../gpu/gpu';

const a = availability();
const skip = !a.ok
  ? skipUnlessNoDevice(a.reason)
  : a.devices !== 1
    ? `needs exactly 1 CUDA device (to name one that is missing), found ${a.devices}`
    : false;

const program = compileScenario(
  `{
  "name": "device 1",
  "streams": { "s1": { "nonBlocking": true, "device": 1 } },
  "steps": [
    { "launch": "here", "us": 10 },
    { "launch": "there", "stream": "s1", "us": 10 },
    { "deviceSync": 1 }
  ]
}`,
  'device1.scenario.json',
);

test(
  "S21 a scenario naming device 1 on a one-GPU machine fails with the device count at the step's line",
  { skip },
  async () => {
    assertGpu();
    let error: RunnerError | undefined;
    try {
      await runInRunner(program, { runnerPath: runnerBundle() });
    } catch (e) {
      error = e as RunnerError;
    }
    assert.ok(error, 'the run should have failed');
    assert.equal(error.reason, 'failed');
    assert.equal(error.message, 'device1.scenario.json:6:5: scenario uses device 1 but this machine has 1 CUDA device');
  },
);
