import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario } from '../../core/scenario/parse';
import { RunnerError, devicesInRunner, request, runInRunner } from '../../runner/client';
import { addonPath, availability } from '../../runner/native';
import { TEST_MODE_ENV } from '../../runner/protocol';
import { runnerBundle } from './runner-bundle';
import { nvidiaDevice } from '../gpu/gpu';

const program = compileScenario(
  JSON.stringify(
    {
      name: 'two launches',
      steps: [{ launch: 'a', us: 10 }, { launch: 'b', us: 10 }, { deviceSync: true }],
    },
    null,
    2,
  ),
  'two.scenario.json',
);

const mode = (m: string) => ({ runnerPath: runnerBundle(), env: { ...process.env, [TEST_MODE_ENV]: m } });

/** Resolves with how long `p` took to settle and what it rejected with. */
async function rejection(p: Promise<unknown>): Promise<{ error: RunnerError; ms: number }> {
  const t0 = Date.now();
  try {
    await p;
  } catch (e) {
    return { error: e as RunnerError, ms: Date.now() - t0 };
  }
  assert.fail('expected the runner request to fail');
}

test('a runner killed with SIGKILL mid-run ends the request with a clear error', async () => {
  let pid = 0;
  const progress: string[] = [];
  const killed = runInRunner(program, {
    ...mode('hang'),
    onSpawn: (p) => (pid = p),
    onProgress: (m) => {
      progress.push(m);
      process.kill(pid, 'SIGKILL');
    },
  });
  const { error } = await rejection(killed);
  assert.deepEqual(progress, ['test mode hang']);
  assert.equal(error.reason, 'crash');
  assert.match(error.message, /^GPU runner was killed by SIGKILL before answering/);
});

// The test's own timeout stands in for the upper bound: a timeout that never fires fails here instead of hanging the suite.
test('a hung runner is stopped at the timeout', { timeout: 30_000 }, async () => {
  const { error, ms } = await rejection(runInRunner(program, { ...mode('hang'), timeoutMs: 700 }));
  assert.equal(error.reason, 'timeout');
  assert.equal(error.message, 'GPU run timed out after 0.7 s; the runner was stopped');
  // Only the lower bound: how soon after the timeout a loaded machine gets round to it is not the point.
  assert.ok(ms >= 650, `settled after ${ms} ms, before the timeout`);
});

test('cancelling through an AbortSignal stops the runner', async () => {
  const ac = new AbortController();
  let pid = 0;
  const run = runInRunner(program, {
    ...mode('hang'),
    signal: ac.signal,
    onSpawn: (p) => (pid = p),
    onProgress: () => ac.abort(),
  });
  const { error } = await rejection(run);
  assert.equal(error.reason, 'cancelled');
  assert.equal(error.message, 'GPU run cancelled');
  await new Promise((r) => setTimeout(r, 200));
  assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the child is gone');
});

test('a runner that exits without answering is reported with its exit code', async () => {
  const { error } = await rejection(runInRunner(program, mode('exit')));
  assert.equal(error.reason, 'crash');
  assert.match(error.message, /^GPU runner exited with code 3 before answering/);
});

test('a CUDA error in a step names the error, the step and its source position', async () => {
  const { error } = await rejection(runInRunner(program, mode('step-error')));
  assert.equal(error.reason, 'failed');
  const b = program.threads[0].steps[1];
  assert.equal(
    error.message,
    `CUDA_ERROR_ILLEGAL_ADDRESS in step 1 (launch) of thread "main" at two.scenario.json:${b.pos.line}:${b.pos.column}: cuLaunchKernel failed: an illegal memory access was encountered`,
  );
});

const gpu = availability();

test(
  'without an NVIDIA driver the runner says so, for runs and for the device list',
  { skip: gpu.ok || nvidiaDevice ? 'a GPU is present here' : false },
  async () => {
    const env = { runnerPath: runnerBundle(), env: { ...process.env, SYNCSCOPE_ADDON: addonPath() } };
    const run = await rejection(runInRunner(program, env));
    assert.equal(run.error.errorName, 'GpuUnavailableError');
    assert.equal(run.error.message, (gpu as { reason: string }).reason);
    assert.match(
      run.error.message,
      /^(no NVIDIA driver: libcuda\.so\.1 not found \(.+\)|native runtime not built: .+)$/,
    );
    const devices = await rejection(devicesInRunner(env));
    assert.equal(devices.error.message, run.error.message);
  },
);

test('a missing runner bundle is an error, not a hang', async () => {
  const { error } = await rejection(request({ type: 'devices' }, { runnerPath: '/nonexistent/runner.js' }));
  assert.equal(error.reason, 'missing');
  assert.equal(error.message, 'GPU runner not found at /nonexistent/runner.js (npm run build)');
});
