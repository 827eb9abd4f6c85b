// `syncscope capture` without a GPU: the library missing, programs that never use CUDA, a program
// that fails after capturing (a stand-in that writes a raw stream as the library would), --raw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseTrace } from '../../core/trace/json';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';
import { RawCaptureWriter } from '../helpers/raw-capture';

const dir = mkdtempSync(join(tmpdir(), 'syncscope-capture-cli-'));
/** Any existing file passes for the library where the program never loads CUDA. */
const standInLibrary = join(dir, 'libsyncscope_capture.so');
writeFileSync(standInLibrary, '');

async function withLibrary<T>(path: string, f: () => Promise<T>): Promise<T> {
  const before = process.env.SYNCSCOPE_CAPTURE_LIB;
  process.env.SYNCSCOPE_CAPTURE_LIB = path;
  try {
    return await f();
  } finally {
    if (before === undefined) delete process.env.SYNCSCOPE_CAPTURE_LIB;
    else process.env.SYNCSCOPE_CAPTURE_LIB = before;
  }
}

function sampleRaw(): Uint8Array {
  const w = new RawCaptureWriter();
  w.device('NVIDIA H200', 132);
  const k = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 1000, end: 4000, stream: 1 });
  w.kernel(k, 'void step(float*)', 5000, 105_000);
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin: 5000, end: 108_000 });
  return w.bytes();
}

test('capture says clearly that the library is not built, and exits 2', async () => {
  const r = await withLibrary(join(dir, 'missing.so'), () => runCli(['capture', '--', 'true'], dir));
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr.split('\n')[0],
    `syncscope capture: the capture library is not built (${join(dir, 'missing.so')} not found): build on a machine with a CUDA toolkit (CUPTI), e.g. npm run build with CUDA_HOME set`,
  );
});

test('capture without a command is a usage error', async () => {
  const r = await runCli(['capture'], dir);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr.split('\n')[0],
    'syncscope capture: expected the command to capture after --, e.g. syncscope capture -- python3 train.py',
  );
});

test('a program that never uses CUDA: nothing was captured, with its exit status', async () => {
  const ok = await withLibrary(standInLibrary, () => runCli(['capture', '--', 'sh', '-c', 'exit 0'], dir));
  assert.equal(ok.code, 2);
  assert.equal(
    ok.stderr,
    'syncscope capture: nothing was captured: "sh -c exit 0" exited with code 0 without initialising CUDA\n',
  );
  const failed = await withLibrary(standInLibrary, () => runCli(['capture', '--', 'sh', '-c', 'exit 3'], dir));
  assert.equal(
    failed.stderr,
    'syncscope capture: nothing was captured: "sh -c exit 3" exited with code 3 without initialising CUDA\n',
  );
  const missing = await withLibrary(standInLibrary, () => runCli(['capture', '--', join(dir, 'no-such-program')], dir));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^syncscope capture: cannot start .*no-such-program: spawn .*ENOENT\n$/);
});

test('a program that fails after capturing keeps what was captured: exit 1, the report and the trace', async () => {
  const raw = join(dir, 'sample.raw');
  writeFileSync(raw, sampleRaw());
  // Stands in for a CUDA program: writes its raw stream where the library would, then fails.
  const fake = join(dir, 'fake.js');
  writeFileSync(
    fake,
    `require('fs').copyFileSync(${JSON.stringify(raw)}, process.env.SYNCSCOPE_CAPTURE_OUT.replace('%p', process.pid)); process.exit(3);`,
  );
  const out = join(dir, 'fake.syncscope.json');
  const before = Date.now();
  const r = await withLibrary(standInLibrary, () =>
    runCli(['capture', '--out', out, '--', process.execPath, fake], dir),
  );
  const done = Date.now();
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr.split('\n')[0],
    `syncscope capture: "${process.execPath} ${fake}" exited with code 3; the trace holds what was captured until then`,
  );
  assert.match(r.stdout, /Host waits \(1\):/);
  assert.match(
    r.stdout,
    /deviceSync\(device\) on main at 4 µs: blocked 103 µs\n\s+released by op 0 "step" on legacy default, host resumed 3 µs later/,
  );
  const trace = parseTrace(readFileSync(out, 'utf8'));
  assert.equal(trace.meta.source, 'capture');
  assert.equal(trace.meta.device?.name, 'NVIDIA H200');
  assert.equal(trace.calls.releasedBy[1], 0);
  assert.equal(trace.calls.unblockNs[1], 3000);
  // When the program started, so that a script edited after it reads as stale beside the trace.
  const created = Date.parse(trace.meta.createdAt!);
  assert.ok(created >= before - 1000 && created <= done, trace.meta.createdAt);
});

const noPython = spawnSync('python3', ['--version']).status === 0 ? false : 'no python3 on this machine';

test(
  'capture --plain-steps: a first run of the script alone times its steps, and the trace carries them for the what-if',
  { skip: noPython },
  async () => {
    const raw = join(dir, 'plain.raw');
    writeFileSync(raw, sampleRaw());
    // A training loop on the fake torch; under the capture (its environment set), it writes its raw
    // stream where the library would. It prints each step, so that the runs can be told apart.
    const script = join(dir, 'loop.py');
    writeFileSync(
      script,
      [
        'import os, shutil, sys, torch',
        'out = os.environ.get("SYNCSCOPE_CAPTURE_OUT")',
        'if out:',
        '    shutil.copyfile(sys.argv[1], out.replace("%p", str(os.getpid())))',
        'opt = torch.optim.SGD([], lr=0.1)',
        'for step in range(1, 21):',
        '    print("captured" if out else "plain", step, end="", flush=True)',
        '    opt.step()',
        '    print(flush=True)',
        '',
      ].join('\n'),
    );
    const out = join(dir, 'plain.syncscope.json');
    const before = process.env.PYTHONPATH;
    process.env.PYTHONPATH = repoPath('test/fixtures/fake-torch/site-packages');
    let r;
    try {
      r = await withLibrary(standInLibrary, () =>
        runCli(['capture', '--out', out, '--plain-steps', '3', '--', 'python3', script, raw], dir),
      );
    } finally {
      if (before === undefined) delete process.env.PYTHONPATH;
      else process.env.PYTHONPATH = before;
    }
    assert.equal(r.code, 0, r.stderr);
    // 2 steps settle and 3 are timed, and the run is stopped at the next step's end; then the capture runs whole.
    assert.match(
      r.stderr,
      /^syncscope capture: timing loop\.py alone: 5 plain steps, the last 3 timed \(optimizer steps\)$/m,
    );
    // The plain run's own output comes through the report's stream; the captured run's goes to the terminal.
    assert.deepEqual(r.stderr.match(/^plain \d+$/gm), [
      'plain 1',
      'plain 2',
      'plain 3',
      'plain 4',
      'plain 5',
      'plain 6',
    ]);
    const line = /^syncscope capture: plain step measured \{"plain":\{"stepNs":(\d+),"steps":3\}\}$/m.exec(r.stderr);
    assert.ok(line, r.stderr);
    const trace = parseTrace(readFileSync(out, 'utf8'));
    assert.deepEqual(trace.meta.plainStep, { ns: Number(line[1]), steps: 3 });
  },
);

test('capture --plain-steps needs a Python script, and --step-on needs --plain-steps', async () => {
  const notPython = await runCli(['capture', '--plain-steps', '3', '--', 'sh', '-c', 'exit 0'], dir);
  assert.equal(notPython.code, 2);
  assert.equal(
    notPython.stderr.split('\n')[0],
    'syncscope capture: --plain-steps: plain steps are timed for a Python script; expected the command as <python> <script.py> [args...], not "sh -c"',
  );
  const alone = await runCli(['capture', '--step-on', 'train_step', '--', 'python3', 'train.py'], dir);
  assert.equal(alone.code, 2);
  assert.equal(
    alone.stderr.split('\n')[0],
    'syncscope capture: --step-on says what a plain step is: give --plain-steps too',
  );
  const seconds = await runCli(['capture', '--seconds', '30', '--', 'python3', 'train.py'], dir);
  assert.equal(
    seconds.stderr.split('\n')[0],
    'syncscope capture: --seconds bounds the plain run: give --plain-steps too',
  );
  const bad = await runCli(['capture', '--plain-steps', '-1', '--', 'python3', 'train.py'], dir);
  assert.equal(
    bad.stderr.split('\n')[0],
    'syncscope capture: --plain-steps takes a whole number of 0 or more, not "-1"',
  );
});

test('capture --raw converts a raw stream written earlier; a corrupt one fails with where', async () => {
  const raw = join(dir, 'again.raw');
  writeFileSync(raw, sampleRaw());
  const r = await runCli(['capture', '--raw', raw, '--out', join(dir, 'again.syncscope.json'), '--json'], dir);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.source, 'capture');
  assert.deepEqual(
    report.waits.map((w: { kind: string; releasedBy: { name: string }[] }) => [w.kind, w.releasedBy[0]?.name]),
    [['deviceSync', 'step']],
  );
  writeFileSync(raw, sampleRaw().subarray(0, 100));
  const bad = await runCli(['capture', '--raw', raw], dir);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^syncscope capture: raw capture truncated: the call record at byte \d+ needs 104 bytes, \d+ remain at byte \d+\n$/,
  );
});

test("capture --raw of a Python program: each wait's sentence quotes the user's lines, read from the script beside it", async () => {
  const script = join(dir, 'train.py');
  writeFileSync(
    script,
    ['import torch', '', 'x = torch.ones(4, device="cuda")', 'y = x * 2', 'print(y.sum().item())', ''].join('\n'),
  );
  const w = new RawCaptureWriter();
  w.python = { status: 1, text: 'CPython 3.12.3', hexVersion: 0x030c03f0 };
  const stream = 0x7f00_0000_1000;
  w.call({ api: 'streamCreate', name: 'cudaStreamCreate', begin: 0, end: 500, stream, streamId: 13 });
  const k = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    begin: 1000,
    end: 2000,
    stream,
    pyStack: w.pyStack([[script, 4, '<module>']]),
  });
  w.kernel(
    k,
    'void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>>(int, float*)',
    3000,
    53_000,
    13,
  );
  w.call({
    api: 'streamSync',
    name: 'cudaStreamSynchronize',
    begin: 4000,
    end: 54_000,
    stream,
    pyStack: w.pyStack([[script, 5, '<module>']]),
  });
  const raw = join(dir, 'python.raw');
  writeFileSync(raw, w.bytes());
  const r = await runCli(['capture', '--raw', raw, '--out', join(dir, 'python.syncscope.json')], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /\n {6}line 5 \(print\(y\.sum\(\)\.item\(\)\)\) waited 50 µs for "\S+" launched at line 4 \(y = x \* 2\)\n/,
  );
});
