import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileScenario } from '../../core/scenario/parse';
import { encodeProgram, STEP_DEVICE } from '../../core/gpu-run/encode';
import { addonPath, availability, loadAddon } from '../../runner/native';
import { repoPath } from '../helpers/paths';
import { skipUnlessNoDevice } from '../gpu/gpu';

const built = existsSync(addonPath());
// On a machine with an NVIDIA GPU a missing addon is a failure, not a reason to skip.
const notBuilt = skipUnlessNoDevice(
  built ? false : `native addon not built (${addonPath()}); run npm run build:native`,
);
const hasLdd = spawnSync('ldd', ['--version'], { stdio: 'ignore' }).status === 0;

test(
  'the addon links no CUDA library: the driver is opened at run time',
  { skip: notBuilt || (!hasLdd && 'no ldd here') },
  () => {
    const r = spawnSync('ldd', [addonPath()], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const libs = r.stdout
      .split('\n')
      .map((l) => l.trim().split(/\s/)[0])
      .filter(Boolean);
    assert.ok(
      libs.some((l) => l.startsWith('libc.so')),
      `ldd lists libc: ${libs.join(', ')}`,
    );
    assert.deepEqual(
      libs.filter((l) => /cuda|nvidia|nvrtc/i.test(l)),
      [],
    );
  },
);

test('the addon exposes available, devices, run and progress', { skip: notBuilt }, () => {
  const { addon } = loadAddon();
  assert.ok(addon);
  assert.deepEqual(Object.keys(addon).sort(), ['available', 'devices', 'progress', 'run']);
  assert.equal(addon.progress(), 0);
});

const driverInstalled = !spawnSync('sh', ['-c', 'ldconfig -p | grep -q "libcuda.so.1 "']).status;
test(
  'without a driver, available() says "no NVIDIA driver" with the loader\'s reason',
  { skip: notBuilt || (driverInstalled && 'libcuda.so.1 is installed here') },
  () => {
    const a = availability();
    assert.equal(a.ok, false);
    assert.match(
      (a as { reason: string }).reason,
      /^no NVIDIA driver: libcuda\.so\.1 not found \(.*libcuda\.so\.1: cannot open shared object file.*\)$/,
    );
    const { addon } = loadAddon();
    assert.throws(() => addon!.devices(), { message: (a as { reason: string }).reason });
  },
);

const ptxas = spawnSync('ptxas', ['--version'], { stdio: 'ignore' }).status === 0;
test('the embedded PTX assembles for sm_90 (H100/H200)', { skip: !ptxas && 'ptxas not installed here' }, () => {
  const r = spawnSync('ptxas', ['-arch=sm_90', repoPath('native/src/kernels.ptx'), '-o', '/dev/null'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
});

test(
  'a job naming a stream, event, buffer or device that does not exist is a RangeError before anything runs',
  { skip: notBuilt },
  () => {
    const { addon } = loadAddon();
    const program = compileScenario(
      JSON.stringify({
        name: 'j',
        streams: { s: {} },
        events: { e: {} },
        buffers: { b: { bytes: 64 } },
        steps: [
          { launch: 'k', stream: 's', us: 1 },
          { record: 'e', stream: 's' },
          { memset: 'b', async: true, stream: 's' },
        ],
      }),
      'j.scenario.json',
    );
    const good = encodeProgram(program);
    const broken = (edit: (j: typeof good) => void) => {
      const j = { ...good, steps: good.steps.slice(), streams: good.streams.slice(), events: good.events.slice() };
      edit(j);
      return () => addon!.run(j as never);
    };
    const W = good.steps.length / program.stepCount;
    assert.throws(
      broken((j) => {
        j.steps[1] = 99;
      }),
      { name: 'RangeError', message: 'run(job): step 0 names a stream, event, buffer or device that does not exist' },
    );
    assert.throws(
      broken((j) => {
        j.steps[W + 1] = -2;
      }),
      { name: 'RangeError', message: /^run\(job\): step 1 names/ },
    );
    assert.throws(
      broken((j) => {
        j.steps[2 * W + 1] = 5;
      }),
      { name: 'RangeError', message: /^run\(job\): step 2 names/ },
    );
    assert.throws(
      broken((j) => {
        j.steps[2 * W] = 42;
      }),
      { name: 'RangeError', message: /^run\(job\): step 2 names/ },
    );
    assert.throws(
      broken((j) => {
        j.events[2] = 3;
      }),
      { name: 'RangeError', message: 'run(job): event 0 is on a device that is not set up' },
    );
    assert.throws(
      broken((j) => {
        j.streams[j.streams.length - 1] = 1;
      }),
      { name: 'RangeError', message: /is on a device that is not set up$/ },
    );
    // Two devices set up, and a launch whose device word is not its stream's.
    assert.throws(
      broken((j) => {
        Object.assign(j, {
          devices: Int32Array.of(0, 1),
          schedules: Int32Array.of(good.schedules[0], good.schedules[0]),
        });
        j.steps[STEP_DEVICE] = 1;
      }),
      { name: 'RangeError', message: 'run(job): step 0 runs on device 1 but its stream is on device 0' },
    );
    // The benchmark's per-step "no timing event" flags must cover every step.
    assert.throws(
      broken((j) => {
        Object.assign(j, { bareSteps: new Uint8Array(program.stepCount - 1) });
      }),
      { name: 'RangeError', message: 'run(job): inconsistent step arrays' },
    );
    assert.throws(
      broken((j) => {
        Object.assign(j, { bareSteps: [1, 0, 1] });
      }),
      { name: 'TypeError', message: 'run(): bareSteps must be a typed array' },
    );
  },
);

test(
  "every example's job passes those checks: without a driver, running it fails for the driver only",
  { skip: notBuilt || (driverInstalled && 'libcuda.so.1 is installed here: the examples run on the GPU in test/gpu') },
  () => {
    const { addon } = loadAddon();
    const dir = repoPath('examples');
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.scenario.json'))) {
      const job = encodeProgram(compileScenario(readFileSync(join(dir, f), 'utf8'), f));
      assert.throws(
        () => addon!.run(job as never),
        (e: Error) => e.name !== 'RangeError' && /^no NVIDIA driver/.test(e.message),
        f,
      );
    }
  },
);
