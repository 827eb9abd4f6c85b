// The profile launcher and its Node runner, against a fake torch (test/fixtures/fake-torch) that
// records markers and waits like the profiler. Line numbers are read by hand from the scripts there.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { profileScript, timePlainSteps, type ProfileOptions } from '../../node/profile-run';
import { loadTraceFile } from '../../node/trace-file';
import { callSite, isWait, str } from '../../core/trace/model';
import { CK } from '../../core/trace/kinds';
import { repoPath } from '../helpers/paths';

const dir = mkdtempSync(join(tmpdir(), 'syncscope-profile-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const scripts = repoPath('test/fixtures/fake-torch/scripts');
const fakeEnv = { ...process.env, PYTHONPATH: repoPath('test/fixtures/fake-torch/site-packages') };
const noTorchEnv = { ...process.env, PYTHONPATH: '' };

/** Each Python here of a distinct version: before 3.12 line events come from a trace function, after from sys.monitoring. */
const pythons = [
  ...new Map(
    ['python3', 'python3.12', 'python3.13']
      .map((p) => [spawnSync(p, ['--version'], { encoding: 'utf8' }).stdout?.trim(), p] as const)
      .filter(([v]) => v),
  ).values(),
];
const noPython = pythons.length ? false : 'no python3 on this machine';

interface Event {
  cat: string;
  name: string;
  ts: number;
  tid: number;
}
interface PlainMarker {
  stepNs: number;
  steps: number;
  backwardNs?: number;
  batchReceiveNs?: number;
}
const MARKER = 'syncscope.site:';
const readTrace = (path: string): Event[] =>
  (JSON.parse(gunzipSync(readFileSync(path)).toString()) as { traceEvents: Event[] }).traceEvents.sort(
    (a, b) => a.ts - b.ts,
  );
const markerOf = (e: Event) =>
  JSON.parse(decodeURIComponent(e.name.slice(MARKER.length))) as { line?: 1; stack: [string, number, string][] };
const stackOf = (e: Event): [string, number, string][] => markerOf(e).stack;
/** A line marker: where a line of the user's code starts or goes on (python/syncscope_profile.py, UserLines). */
const isLineMarker = (e: Event): boolean => e.name.startsWith(MARKER) && markerOf(e).line === 1;

async function profile(script: string, more: Partial<ProfileOptions> = {}) {
  const progress: string[] = [];
  let output = '';
  const out = join(dir, `${script}.${Math.random().toString(36).slice(2)}.json.gz`);
  const result = await profileScript({
    python: 'python3',
    script: join(scripts, script),
    args: [],
    out,
    env: fakeEnv,
    onProgress: (l) => progress.push(l),
    onOutput: (t) => (output += t),
    ...more,
  });
  return { result, progress, output, out };
}

for (const python of pythons) {
  test(`${python}: each synchronizing call gets a marker with its own stack just before its wait`, async () => {
    const { result, output } = await profile('sites.py', { python, args: ['a', 'b'] });
    assert.equal(result.error, undefined);
    assert.equal(result.exitCode, 0);
    assert.match(output, /^args a b$/m);
    const events = readTrace(result.trace!);
    const file = join(scripts, 'sites.py');
    const sites: string[] = [];
    events.forEach((e, i) => {
      if (!e.name.startsWith(MARKER) || isLineMarker(e)) return;
      const stack = stackOf(e);
      // The whole stack is the script's: no launcher or runpy frame, outermost the module itself.
      for (const [f] of stack) assert.equal(f, file);
      assert.equal(stack.at(-1)![2], '<module>');
      const next = events.slice(i + 1).find((n) => n.tid === e.tid && !isLineMarker(n));
      assert.equal(next?.cat, 'cuda_runtime', `a wait follows the marker of ${JSON.stringify(stack)}`);
      sites.push(stack.map(([, line, fn]) => `${line}:${fn}`).join(' < ') + ' -> ' + next.name);
    });
    const count = (site: string) => sites.filter((s) => s === site).length;
    // Reading a CUDA tensor on the host (.item(), .cpu()) is wrapped: marked every time, the first included.
    assert.equal(count('8:loss_of < 15:<module> -> cudaStreamSynchronize'), 3);
    assert.equal(count('16:<module> -> cudaMemcpyAsync'), 3);
    // Explicit synchronizes are wrapped: marked every time, Stream.synchronize once despite its warning.
    assert.equal(count('17:<module> -> cudaEventSynchronize'), 3);
    assert.equal(count('18:<module> -> cudaStreamSynchronize'), 3);
    assert.equal(count('19:<module> -> cudaDeviceSynchronize'), 3);
    assert.equal(sites.length, 15, sites.join('\n'));
    assert.doesNotMatch(output, /synchronizing CUDA operation/, 'sync-debug warnings are not printed');
  });
}

for (const python of pythons) {
  test(`${python}: every kernel launch is at the user's line that made it, and a wait names that line`, async () => {
    const { result } = await profile('launches.py', { python });
    assert.equal(result.error, undefined);
    const t = await loadTraceFile(result.trace!);
    const line = (i: number) => {
      const s = callSite(t, i);
      return s ? `${s.frame.line} ${s.precision}` : 'none';
    };
    const launches: string[] = [];
    for (let i = 0; i < t.calls.count; i++) if (str(t, t.calls.name[i]) === 'cudaLaunchKernel') launches.push(line(i));
    // torch.relu at line 7 launches two frames inside torch; y.add_ at line 8 in forward(); x.add_ at
    // line 15, after forward() returned to the loop: three steps.
    assert.deepEqual(launches, Array(3).fill(['7 line', '8 line', '15 line']).flat());
    const waits = [...Array(t.calls.count).keys()].filter((i) => isWait(t, i));
    // The profiler's own device sync as it stops, once the script has ended, is no line's (not line 17's).
    assert.deepEqual(
      waits.map((i) => line(i)),
      ['16 line', '16 line', '16 line', 'none'],
    );
    // Each loss.item() waits for the add_ kernel of line 15, the last on its stream.
    for (const w of waits.slice(0, 3)) {
      const op = t.calls.releasedBy[w];
      assert.equal(str(t, t.ops.name[op]), 'add_kernel');
      assert.equal(line(t.ops.call[op]), '15 line');
    }
  });
}

test("a thread of the script's own gets lines: its launch and its wait", { skip: noPython }, async () => {
  const lines = async (env: NodeJS.ProcessEnv) => {
    const { result, progress } = await profile('threads.py', { env });
    assert.equal(result.error, undefined);
    const t = await loadTraceFile(result.trace!);
    const at = (i: number) => `${str(t, t.calls.name[i])} ${callSite(t, i)?.frame.line ?? 'none'}`;
    const main =
      t.calls.lane[[...Array(t.calls.count).keys()].find((i) => str(t, t.calls.name[i]) === 'cudaDeviceSynchronize')!];
    const calls = [...Array(t.calls.count).keys()].filter(
      (i) => t.calls.lane[i] !== main && t.calls.kind[i] !== CK.context,
    );
    return { progress, calls: calls.map(at) };
  };
  // batch.add_(1.0) at line 10 and the event's synchronize() at line 11, on the loader thread.
  assert.deepEqual((await lines(fakeEnv)).calls, ['cudaLaunchKernel 10', 'cudaEventSynchronize 11']);
  // A torch that profiles only the main thread's ops: no line, and it says so.
  const old = await lines({ ...fakeEnv, FAKE_TORCH_OLD: '2' });
  assert.deepEqual(old.calls, ['cudaLaunchKernel none', 'cudaEventSynchronize none']);
  assert.ok(old.progress.some((l) => l.includes("profiles only the main thread's ops")));
});

test(
  'an optimizer: warm-up steps, then the steps asked for, then the script is stopped',
  { skip: noPython },
  async () => {
    const { result, progress, output } = await profile('train.py', { steps: 3, plainSteps: 0 });
    assert.equal(result.error, undefined);
    assert.equal(result.exitCode, 0);
    assert.ok(progress.includes('step 3/3'), progress.join('\n'));
    // 2 warm-up steps, 3 recorded, and the step that ends the last recorded one.
    assert.match(output, /step 6\n$/);
    const annotations = readTrace(result.trace!).filter((e) => e.cat === 'cuda_runtime');
    assert.equal(annotations.length, 4, 'one .item() wait per recorded step, and the profiler stop');
    // The profiler stops inside opt.step() of line 9, in the launcher's step hook: its device sync
    // is no line's, not line 9's.
    const t = await loadTraceFile(result.trace!);
    const waits = [...Array(t.calls.count).keys()].filter((i) => isWait(t, i));
    const at = (i: number) => `${str(t, t.calls.name[i])} ${callSite(t, i)?.frame.line ?? 'none'}`;
    assert.deepEqual(waits.map(at), [...Array(3).fill('cudaStreamSynchronize 8'), 'cudaDeviceSynchronize none']);
  },
);

test(
  'plain steps run in a process the profiler has not yet touched; it starts once they are timed',
  { skip: noPython },
  async () => {
    // A profiler once started leaves CUPTI attached in torch, and the launches after it stay slower.
    const { result, output } = await profile('attached.py', { steps: 2, plainSteps: 3 });
    assert.equal(result.error, undefined);
    const [start, ...lines] = output.trim().split('\n');
    // Nothing is recorded before the plain steps are timed: the script starts as it would alone.
    assert.equal(start, 'start untraced');
    // 2 settle and 3 timed plain steps end at hooks 1 to 5; the timing ends, and the profiler starts,
    // at hook 6, which ends step 6; 2 warm-up and 2 recorded steps follow, and hook 10 stops the script.
    assert.deepEqual(
      lines.map((l) => l.split(' ').slice(2).join(' ')),
      [...Array(6).fill('never profiled'), ...Array(4).fill('after a profiler')],
      output,
    );
    // --plain-only never starts it, and stops the script where the profile would start it.
    let plainOutput = '';
    const plain = await timePlainSteps({
      python: 'python3',
      script: join(scripts, 'attached.py'),
      args: [],
      plainSteps: 3,
      env: fakeEnv,
      onOutput: (t) => (plainOutput += t),
    });
    assert.equal(plain.error, undefined);
    assert.equal(plain.plain?.steps, 3);
    assert.ok(plain.plain!.ns > 0);
    assert.match(plainOutput, /^start untraced\n(step \d+ never profiled\n){6}$/);
    // Without plain steps the run is recorded, with its lines, from the start.
    const whole = await profile('attached.py', { steps: 2 });
    assert.match(whole.output, /^start traced\nstep 1 after a profiler\n/);
  },
);

test(
  '--plain-only: a script that ends before its plain steps are timed, and no plain steps asked, say so in one line',
  { skip: noPython },
  async () => {
    const short = await timePlainSteps({
      python: 'python3',
      script: join(scripts, 'decode.py'),
      args: [],
      plainSteps: 200,
      stepOn: 'next_token',
      env: fakeEnv,
      onOutput: () => undefined,
    });
    assert.equal(short.plain, undefined);
    assert.equal(short.error, 'the script ended before its plain steps were timed; nothing was written');
    const none = await timePlainSteps({
      python: 'python3',
      script: join(scripts, 'train.py'),
      args: [],
      plainSteps: 0,
      env: fakeEnv,
      onOutput: () => undefined,
    });
    assert.equal(none.error, '--plain-only times the plain steps: give --plain-steps 1 or more');
  },
);

test(
  "plain steps: the script's own speed, timed before the profiler starts and with the launcher's hooks off, then in the trace",
  { skip: noPython },
  async () => {
    const { result, progress, output } = await profile('train.py', { steps: 3, plainSteps: 4 });
    assert.equal(result.exitCode, 0);
    assert.ok(
      progress.includes('optimizer found: 6 plain steps (4 timed), 2 warm-up steps, then 3 recorded'),
      progress.join('\n'),
    );
    assert.ok(progress.includes('plain step 6/6') && progress.includes('warm-up step 2/2'), progress.join('\n'));
    const timed = progress.find((l) => l.startsWith('plain steps: '));
    assert.match(timed ?? '', /^plain steps: \d+\.\d{3} ms per step without the profiler$/);
    // The step before the first hook, 6 plain (2 untimed), 2 warm-up and 3 recorded steps: the
    // hook that ends the last recorded one stops the script.
    assert.match(output, /step 12\n$/);
    // The plain steps are not recorded: one .item() wait per recorded step, and the profiler stop.
    assert.equal(readTrace(result.trace!).filter((e) => e.cat === 'cuda_runtime').length, 4);
    const t = await loadTraceFile(result.trace!);
    // The fake's kernels take no real time: the plain step is the script's host time alone.
    assert.equal(t.meta.plainStep?.steps, 4);
    assert.ok(t.meta.plainStep!.ns > 0);
    assert.equal(Math.round(Number(timed!.split(' ')[2]) * 1000), Math.round(t.meta.plainStep!.ns / 1000));
    // The plain marker names no call: every wait keeps the line it had.
    const waits = [...Array(t.calls.count).keys()].filter((i) => isWait(t, i));
    assert.deepEqual(
      waits.map((i) => callSite(t, i)?.frame.line ?? 'none'),
      [8, 8, 8, 'none'],
    );
  },
);

test('--step-on a function: each return from it ends a step, with no optimizer', { skip: noPython }, async () => {
  const { result, progress, output } = await profile('decode.py', { steps: 3, stepOn: 'next_token', plainSteps: 0 });
  assert.equal(result.error, undefined);
  assert.equal(result.exitCode, 0);
  assert.ok(progress.includes('function next_token found: 2 warm-up steps, then 3 recorded'), progress.join('\n'));
  // Calls 1 and 2 warm up, 3 to 5 are recorded, and the script stops as call 6 returns.
  assert.match(output, /token 6\n$/);
  const waits = readTrace(result.trace!).filter((e) => e.cat === 'cuda_runtime');
  assert.equal(waits.length, 4, 'one .item() wait per recorded step, and the profiler stop');
});

test('--step-on a line: each start of it ends a step', { skip: noPython }, async () => {
  const { result, progress, output } = await profile('decode.py', { steps: 3, stepOn: 'decode.py:13', plainSteps: 0 });
  assert.equal(result.exitCode, 0);
  assert.ok(progress.includes('line decode.py:13 found: 2 warm-up steps, then 3 recorded'), progress.join('\n'));
  // Line 13 starts call k before it runs: the sixth start stops the script before token 6.
  assert.match(output, /token 5\n$/);
  // One .item() wait per recorded step, and the profiler's stop.
  assert.equal(readTrace(result.trace!).filter((e) => e.cat === 'cuda_runtime').length, 4);
});

// Python 3.12 on sees the step through sys.monitoring, before it through a trace function.
for (const python of pythons)
  test(`${python}: --step-on with plain steps: the paused hooks still see each step`, async () => {
    // Calls 1 to 4 are the plain steps (2 settle, 2 timed), 5 and 6 warm up, 7 to 9 are recorded.
    const fn = await profile('decode.py', { python, steps: 3, stepOn: 'next_token', plainSteps: 2 });
    assert.equal(fn.result.error, undefined);
    assert.ok(fn.progress.includes('plain step 4/4'), fn.progress.join('\n'));
    assert.ok(fn.progress.some((l) => /^plain steps: \d+\.\d{3} ms per step without the profiler$/.test(l)));
    assert.match(fn.output, /token 10\n$/);
    const events = readTrace(fn.result.trace!);
    assert.equal(events.filter((e) => e.cat === 'cuda_runtime').length, 4);
    // The plain speed says whose step it is: the user's, which need not be one optimizer step.
    const plain = events
      .filter((e) => e.name.startsWith(MARKER))
      .map((e) => (JSON.parse(decodeURIComponent(e.name.slice(MARKER.length))) as { plain?: object }).plain)
      .filter((p) => p !== undefined);
    assert.equal(plain.length, 1);
    assert.deepEqual(Object.keys(plain[0]), ['stepNs', 'steps', 'stepOn']);
    assert.equal((plain[0] as { stepOn: string }).stepOn, 'next_token');
    // The line's sixth start before the plain steps' four: the script stops before token 10.
    const line = await profile('decode.py', { python, steps: 3, stepOn: 'decode.py:13', plainSteps: 2 });
    assert.equal(line.result.error, undefined);
    assert.ok(line.progress.includes('plain step 4/4'), line.progress.join('\n'));
    assert.match(line.output, /token 9\n$/);
  });

test(
  "the plain steps time the backward pass: its mean per step is the plain step's backwardNs",
  { skip: noPython },
  async () => {
    // Each step's backward pass sleeps 3 ms: Tensor.backward, which calls torch.autograd.backward
    // (both wrapped), is counted once, within the step.
    const env = { ...fakeEnv, FAKE_TORCH_BACKWARD_S: '0.003' };
    const plainOf = (trace: string) =>
      readTrace(trace)
        .filter((e) => e.name.startsWith(MARKER))
        .map((e) => (JSON.parse(decodeURIComponent(e.name.slice(MARKER.length))) as { plain?: PlainMarker }).plain)
        .find((p) => p !== undefined);
    const { result } = await profile('backward.py', { steps: 2, plainSteps: 3, env });
    assert.equal(result.error, undefined);
    const plain = plainOf(result.trace!)!;
    assert.ok(plain.backwardNs! >= 3_000_000, JSON.stringify(plain));
    assert.ok(plain.backwardNs! <= plain.stepNs, JSON.stringify(plain));
    // A capture's plain run alone gives it too.
    const alone = await timePlainSteps({
      python: 'python3',
      script: join(scripts, 'backward.py'),
      args: [],
      plainSteps: 3,
      env,
      onOutput: () => undefined,
    });
    assert.equal(alone.error, undefined);
    assert.ok(alone.plain!.backwardNs! >= 3_000_000 && alone.plain!.backwardNs! <= alone.plain!.ns);
    // A script with no backward pass has none.
    const train = await profile('train.py', { steps: 2, plainSteps: 3 });
    assert.deepEqual(Object.keys(plainOf(train.result.trace!)!), ['stepNs', 'steps']);
  },
);

test(
  "the plain steps time the script's thread receiving a DataLoader's unpinned batches, by its CPU time alone",
  { skip: noPython },
  async () => {
    // Each batch costs 4 ms of CPU to receive, after 20 ms waiting for a worker: only the CPU counts.
    const env = { ...fakeEnv, FAKE_TORCH_RECEIVE_S: '0.004', FAKE_TORCH_WORKER_WAIT_S: '0.02' };
    const plainOf = (trace: string) =>
      readTrace(trace)
        .filter((e) => e.name.startsWith(MARKER))
        .map((e) => (JSON.parse(decodeURIComponent(e.name.slice(MARKER.length))) as { plain?: PlainMarker }).plain)
        .find((p) => p !== undefined)!;
    const { result } = await profile('loader.py', { steps: 2, plainSteps: 3, env });
    assert.equal(result.error, undefined);
    const plain = plainOf(result.trace!);
    assert.ok(plain.batchReceiveNs! >= 4_000_000 && plain.batchReceiveNs! < 15_000_000, JSON.stringify(plain));
    assert.ok(plain.stepNs >= 24_000_000, JSON.stringify(plain));
    // Pinned, the loader's pin thread receives them: the script's thread spends nothing on it.
    const pinned = await profile('loader.py', { steps: 2, plainSteps: 3, env: { ...env, PIN: '1' } });
    assert.equal(pinned.result.error, undefined);
    assert.deepEqual(Object.keys(plainOf(pinned.result.trace!)), ['stepNs', 'steps']);
  },
);

test(
  'the launcher starts no CUDA before the script: its sync-debug mode is set as the script starts it',
  { skip: noPython },
  async () => {
    // Without plain steps the mode is "warn" from the script's first CUDA call on.
    const whole = await profile('cuda_late.py', { steps: 3 });
    assert.equal(whole.result.error, undefined);
    assert.match(whole.output, /^cuda started before the script: False$/m);
    assert.match(whole.output, /^step 1 sync debug 1$/m);
    // With plain steps it is off until they are timed: steps 1 and 2 settle, 3 and 4 are timed, and
    // the hook of step 5 turns it on.
    const plain = await profile('cuda_late.py', { steps: 3, plainSteps: 2 });
    assert.equal(plain.result.error, undefined);
    assert.match(plain.output, /^cuda started before the script: False$/m);
    assert.deepEqual(plain.output.match(/^step \d+ sync debug \d$/gm)?.slice(0, 6), [
      'step 1 sync debug 0',
      'step 2 sync debug 0',
      'step 3 sync debug 0',
      'step 4 sync debug 0',
      'step 5 sync debug 0',
      'step 6 sync debug 1',
    ]);
  },
);

test('without an optimizer the run is recorded up to the time limit', { skip: noPython }, async () => {
  const { result, progress } = await profile('forever.py', { seconds: 0.5 });
  assert.equal(result.error, undefined);
  assert.equal(result.exitCode, 0);
  assert.ok(progress.some((l) => l.includes('time limit')));
  assert.ok(readTrace(result.trace!).some((e) => e.name === 'cudaDeviceSynchronize'));
});

test(
  'with plain steps nothing is recorded before them: a run whose step never ends says so, and how to name it',
  { skip: noPython },
  async () => {
    const { result, progress } = await profile('forever.py', { seconds: 0.5, plainSteps: 2 });
    assert.equal(result.trace, undefined);
    assert.ok(progress.some((l) => l.includes('time limit')));
    assert.equal(
      result.error,
      'no step ended (optimizer steps); nothing is recorded before the plain steps; nothing was written (--step-on names the step, --seconds gives the script longer to reach it)',
    );
    // A plain run alone has the same bound.
    const plain = await timePlainSteps({
      python: 'python3',
      script: join(scripts, 'forever.py'),
      args: [],
      plainSteps: 2,
      seconds: 0.5,
      env: fakeEnv,
      onOutput: () => undefined,
    });
    assert.equal(
      plain.error,
      'no step ended (optimizer steps); nothing was timed (--step-on names the step, --seconds gives the script longer to reach it)',
    );
  },
);

test(
  "a synchronize inside torch.compile's code is at the line that called the compiled function",
  { skip: noPython },
  async () => {
    // block() (line 6) is one line, so it runs at its first line, as the frame TorchDynamo runs for a
    // compiled function does while its graph runs; run_compiled is in torch/_dynamo/eval_frame.py.
    const { result } = await profile('compiled.py');
    assert.equal(result.error, undefined);
    const t = await loadTraceFile(result.trace!);
    const waits = [...Array(t.calls.count).keys()].filter((i) => isWait(t, i));
    assert.deepEqual(
      waits.map((i) => callSite(t, i)?.frame.line ?? 'none'),
      [10, 10, 10, 11, 'none'],
    );
  },
);

test('a script that raises keeps its trace and says so in one line', { skip: noPython }, async () => {
  const { result, output } = await profile('crash.py');
  assert.equal(result.exitCode, 1);
  assert.ok(result.trace && existsSync(result.trace));
  assert.match(result.error!, /crash\.py: the script raised ValueError: boom; the trace keeps what was recorded/);
  assert.doesNotMatch(result.error!, /\n/);
  assert.match(output, /ValueError: boom/, "the script's traceback is its output");
  assert.doesNotMatch(output, /syncscope_profile\.py|runpy/, "the traceback holds the script's frames only");
  assert.ok(readTrace(result.trace).some((e) => e.name === 'cudaDeviceSynchronize'));
});

test("sys.exit's status is the run's, and the trace is kept", { skip: noPython }, async () => {
  const { result } = await profile('crash.py', { args: ['exit'] });
  assert.equal(result.exitCode, 3);
  assert.ok(result.trace && existsSync(result.trace));
  assert.match(result.error!, /exited with code 3; the trace keeps/);
});

test('a process ended by a signal says which, with the status a shell gives it', { skip: noPython }, async () => {
  const { result } = await profile('crash.py', { args: ['abort'] });
  assert.equal(result.exitCode, 134, '128 + SIGABRT (6)');
  assert.match(result.error!, /crash\.py: the script was ended by SIGABRT; no trace was written$/);
});

test('cancel: the launcher stops the script and writes what was recorded', { skip: noPython }, async () => {
  const stop = new AbortController();
  const { result } = await profile('forever.py', {
    signal: stop.signal,
    onOutput: (t) => t.includes('ready') && setTimeout(() => stop.abort(), 200),
  });
  assert.equal(result.exitCode, 130);
  assert.ok(result.trace && existsSync(result.trace));
  assert.match(result.error!, /^cancelled; the trace keeps/);
  assert.ok(readTrace(result.trace).some((e) => e.name === 'cudaDeviceSynchronize'));
});

test('one-line errors: no torch, no CUDA, no script, no interpreter', { skip: noPython }, async () => {
  const noTorch = await profile('sites.py', { env: noTorchEnv });
  assert.equal(noTorch.result.exitCode, 65);
  assert.match(noTorch.result.error!, /cannot import torch .*install PyTorch for this interpreter$/);
  assert.equal(noTorch.result.trace, undefined);
  const noCuda = await profile('sites.py', { env: { ...fakeEnv, FAKE_TORCH_NO_CUDA: '1' } });
  assert.equal(noCuda.result.exitCode, 67);
  assert.match(noCuda.result.error!, /sees no CUDA device; profiling needs an NVIDIA GPU$/);
  const noScript = await profile('missing.py');
  assert.equal(noScript.result.exitCode, 66);
  assert.match(noScript.result.error!, /missing\.py: no such file$/);
  const noInterpreter = await profile('sites.py', { python: 'no-such-python3' });
  assert.equal(
    noInterpreter.result.error,
    'no-such-python3: Python interpreter not found; install Python or name one that exists',
  );
  for (const r of [noTorch, noCuda, noScript, noInterpreter]) assert.doesNotMatch(r.result.error!, /\n|Traceback/);
});

test('an older torch without cuda_sync events still profiles', { skip: noPython }, async () => {
  const { result, progress } = await profile('sites.py', { env: { ...fakeEnv, FAKE_TORCH_OLD: '1' } });
  assert.equal(result.error, undefined);
  assert.ok(progress.some((l) => l.includes('no cuda_sync events')));
  const meta = (JSON.parse(gunzipSync(readFileSync(result.trace!)).toString()) as { fake: { cuda_sync: boolean } })
    .fake;
  assert.deepEqual(meta, { with_stack: true, cuda_sync: false });
});
