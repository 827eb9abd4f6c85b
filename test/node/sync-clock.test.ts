// The sync clock (native/sync-clock/) preloaded into the profile launcher's Python, against the fake
// torch with a stand-in runtime that really waits (native/sync-clock/check/): the plain steps' time
// in synchronizing calls, the script's own thread apart from the others.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { profileScript, timePlainSteps } from '../../node/profile-run';
import { syncClockPath } from '../../node/sync-clock';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const has = (cmd: string) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const cxx = process.env.CXX || ['c++', 'g++', 'clang++'].find(has);
const skip = !has('python3')
  ? 'no python3 here'
  : !cxx
    ? 'no C++ compiler (c++, g++, clang++ or $CXX) here'
    : !existsSync(repoPath('build', 'Release', 'syncscope.node'))
      ? 'the native libraries are not built here (npm run build on a machine with cmake)'
      : undefined;

const dir = mkdtempSync(join(tmpdir(), 'syncscope-sync-clock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The stand-in runtime and the library that calls it through its dynamic symbols, as torch's do. */
function fakeRuntime(): string {
  const runtime = join(dir, 'libfake_cudart.so');
  const caller = join(dir, 'libfake_caller.so');
  const check = repoPath('native', 'sync-clock', 'check');
  for (const [out, source, more] of [
    [runtime, 'fake_runtime.cc', []],
    [caller, 'fake_caller.cc', [`-L${dir}`, '-l:libfake_cudart.so', `-Wl,-rpath,${dir}`]],
  ] as const) {
    const built = spawnSync(cxx!, ['-std=c++17', '-shared', '-fPIC', join(check, source), '-o', out, ...more], {
      encoding: 'utf8',
    });
    assert.equal(built.status, 0, `${source}: ${built.stderr}`);
  }
  return caller;
}

const WAIT_US = 2000;
const options = (env: NodeJS.ProcessEnv) => ({
  python: 'python3',
  script: repoPath('test', 'fixtures', 'fake-torch', 'scripts', 'waits.py'),
  args: [],
  env: { ...process.env, PYTHONPATH: repoPath('test/fixtures/fake-torch/site-packages'), ...env },
  onOutput: () => undefined,
});

test('the sync clock is built beside the runtime addon', { skip }, () => {
  assert.ok(existsSync(syncClockPath({})), syncClockPath({}));
});

test(
  "the plain steps' waits: the script's own thread in syncNs, the others in otherSyncNs, per step",
  { skip },
  async () => {
    const overshoots = join(dir, 'overshoots.txt');
    const env = {
      FAKE_TORCH_RUNTIME: fakeRuntime(),
      FAKE_RUNTIME_WAIT_US: String(WAIT_US),
      FAKE_RUNTIME_OVERSHOOT_FILE: overshoots,
    };
    // Each step of waits.py: loss.item() waits 2 ms on the script's thread, and a helper thread
    // synchronizes twice (4 ms). The launcher's synchronize after the last of 3 plain steps waits
    // once more on the script's thread: 2 ms over 3 steps.
    const [mainCalls, otherCalls] = [1 + 1 / 3, 2];
    // A sleep lasts longer than asked on a busy machine: each wait may take as long as the longest
    // that the stand-in runtime measured of its own (its processes' reports), and the clock's own
    // time around it (under 50 us a call).
    const near = (ns: number | undefined, calls: number) => {
      const longest = Math.max(...readFileSync(overshoots, 'utf8').trim().split('\n').map(Number));
      const want = calls * WAIT_US * 1000;
      return ns !== undefined && ns >= want && ns <= want + calls * (longest + 50_000);
    };
    const progress: string[] = [];
    const out = join(dir, 'waits.json.gz');
    const profiled = await profileScript({
      ...options(env),
      out,
      steps: 2,
      plainSteps: 3,
      onProgress: (l) => progress.push(l),
    });
    assert.equal(profiled.error, undefined, progress.join('\n'));
    const plain = (await loadTraceFile(out)).meta.plainStep!;
    assert.ok(near(plain.syncNs, mainCalls), JSON.stringify(plain));
    assert.ok(near(plain.otherSyncNs, otherCalls), JSON.stringify(plain));
    // A capture's plain run, alone, gives them too.
    const alone = await timePlainSteps({ ...options(env), plainSteps: 3 });
    assert.equal(alone.error, undefined);
    assert.ok(
      near(alone.plain!.syncNs, mainCalls) && near(alone.plain!.otherSyncNs, otherCalls),
      JSON.stringify(alone.plain),
    );
  },
);

test('a runtime that never calls the sync clock leaves the waits unknown, and says so', { skip }, async () => {
  // The fake torch without FAKE_TORCH_RUNTIME: its synchronize calls no runtime at all.
  const progress: string[] = [];
  const alone = await timePlainSteps({ ...options({}), plainSteps: 3, onProgress: (l) => progress.push(l) });
  assert.equal(alone.error, undefined);
  assert.equal(alone.plain!.syncNs, undefined);
  assert.equal(alone.plain!.otherSyncNs, undefined);
  assert.ok(
    progress.some((l) => l.includes("this program's CUDA runtime does not call the sync clock")),
    progress.join('\n'),
  );
});
