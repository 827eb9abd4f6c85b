// How a Python script is recorded: capture first where the capture library is built, profiling
// alone elsewhere (ROCm, machines without CUPTI); and the names its traces get.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runnerChoices, scriptTraceName } from '../../extension/logic/scriptRun';

test('with the capture library, capture is offered first and profiling second', () => {
  assert.deepEqual(
    runnerChoices(true).map((c) => [c.runner, c.label, c.description]),
    [
      ['capture', 'Capture with CUPTI', 'exact, recommended'],
      ['profile', 'Profile with torch.profiler', 'also on ROCm'],
    ],
  );
});

test('without it, profiling is the one way, asked nothing', () => {
  assert.deepEqual(
    runnerChoices(false).map((c) => c.runner),
    ['profile'],
  );
});

test("a script's traces are named by the script and the time, by how they were recorded", () => {
  const d = new Date(2026, 11, 2, 14, 30, 5);
  assert.equal(scriptTraceName('/w/train.py', d, 'capture'), 'train-20261202-143005.syncscope.json');
  assert.equal(scriptTraceName('/w/Train.PY', d, 'profile'), 'Train-20261202-143005.json.gz');
});
