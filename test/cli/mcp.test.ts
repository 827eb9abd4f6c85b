// `syncscope mcp` driven as an agent's client drives it: the SDK's Client over stdio, against the
// built CLI (dist/cli.js). Every tool on recorded traces (a PyTorch profile, a capture, a scenario),
// with values read by hand from `syncscope report --json` and `syncscope whatif` of the same files;
// bad arguments, missing and wrong files; the programs run only with --allow-run. The client checks
// each structured answer against the tool's output schema, so a wrong schema fails every test here.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoPath, repoRoot } from '../helpers/paths';
import { RawCaptureWriter } from '../helpers/raw-capture';

const PROFILE = 'test/fixtures/torch/profile/train_step.profile.json.gz';
const CAPTURE = 'test/fixtures/capture/programs/train_step.plain.syncscope.json.gz';
const SCENARIO = 'examples/pageable-copy-buggy.scenario.json';

const dir = mkdtempSync(join(tmpdir(), 'syncscope-mcp-'));
/** Any existing file passes for the capture library where the program never loads CUDA. */
const standInLibrary = join(dir, 'libsyncscope_capture.so');
writeFileSync(standInLibrary, '');

async function connect(args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [repoPath('dist/cli.js'), 'mcp', ...args],
    cwd: repoRoot,
    env: {
      ...(process.env as Record<string, string>),
      PYTHONPATH: repoPath('test/fixtures/fake-torch/site-packages'),
      SYNCSCOPE_CAPTURE_LIB: standInLibrary,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'syncscope-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

let plain: Client;
let running: Client;
before(async () => {
  [plain, running] = await Promise.all([connect(), connect(['--allow-run'])]);
});
after(async () => {
  await Promise.all([plain?.close(), running?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

interface Result {
  isError?: boolean;
  text: string;
  // Structured answers are checked against the output schema by the client; the tests read them loosely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

type OnProgress = (p: { message?: string }) => void;

async function call(
  name: string,
  args: Record<string, unknown>,
  client = plain,
  onprogress?: OnProgress,
): Promise<Result> {
  const r = await client.callTool({ name, arguments: args }, undefined, { onprogress });
  const [first] = r.content as { type: string; text: string }[];
  return { isError: r.isError as boolean | undefined, text: first.text, data: r.structuredContent };
}

async function ok(
  name: string,
  args: Record<string, unknown>,
  client = plain,
  onprogress?: OnProgress,
): Promise<Result> {
  const r = await call(name, args, client, onprogress);
  assert.ok(!r.isError, r.text);
  return r;
}

async function error(name: string, args: Record<string, unknown>, client = plain): Promise<string> {
  const r = await call(name, args, client);
  assert.equal(r.isError, true, `${name} should fail: ${r.text}`);
  assert.equal(r.data, undefined);
  return r.text;
}

test('the server lists its six tools, each with an input and an output schema', async () => {
  const { tools } = await plain.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['capture', 'findings', 'profile', 'report', 'waits', 'whatif']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.outputSchema?.type, 'object', t.name);
    assert.match(t.description ?? '', /data, never instructions/, t.name);
  }
  const waits = tools.find((t) => t.name === 'waits')!;
  assert.deepEqual(waits.inputSchema.required, ['path']);
  assert.deepEqual(Object.keys(waits.inputSchema.properties ?? {}), ['path', 'file', 'line', 'kind', 'limit']);
  const profile = tools.find((t) => t.name === 'profile')!;
  assert.deepEqual(profile.inputSchema.required, ['python', 'script']);
  assert.equal(profile.annotations?.readOnlyHint, false);
  assert.equal(waits.annotations?.readOnlyHint, true);
});

test('report: the metrics, the waits by kind and the longest waits of a recorded profile', async () => {
  const r = await ok('report', { path: PROFILE, top: 2 });
  assert.deepEqual(r.data.metrics, { hostBlockedPct: 1.95, gpuBusyPct: 9.84, overlapPct: 0 });
  assert.equal(r.data.source, 'pytorch');
  assert.equal(r.data.waits, 29);
  assert.deepEqual(r.data.byKind, { streamSync: 26, deviceSync: 2, memcpy: 1 });
  // The batch's copy at line 20, the model's at line 12 and two whose line the profile does not
  // give are three places of pageable copies; the .item() at line 25 is the fourth finding.
  assert.equal(r.data.findings, 4);
  assert.deepEqual(
    r.data.topWaits.map((w: { id: number; blockedNs: number }) => [w.id, w.blockedNs]),
    [
      [5258, 4078062],
      [4082, 4075299],
    ],
  );
  assert.match(r.text, /^test\/fixtures\/torch\/profile\/train_step\.profile\.json\.gz \(pytorch\)\n/);
  assert.match(r.text, /\nMetrics: host blocked 1\.9%, GPU busy 9\.8%, overlap 0\.0%\n/);
  assert.match(r.text, /\nHost waits \(29\): 26 streamSync, 2 deviceSync, 1 memcpy\n/);
  assert.match(r.text, /\n {2}#5258 streamSync\(stream 7\) on thread 922 \(python3\) at 856 ms: blocked 4\.08 ms\n/);
});

test("waits at a line of a profile: largest first, each with its releasing op, the op's launch line and its own stack", async () => {
  const r = await ok('waits', { path: PROFILE, file: 'train_step.py', line: 25, limit: 3 });
  assert.equal(r.data.totalWaits, 29);
  assert.equal(r.data.matched, 10);
  assert.equal(r.data.leftOut, 7);
  assert.deepEqual(
    r.data.waits.map((w: { id: number }) => w.id),
    [5258, 4082, 6434],
  );
  const [top] = r.data.waits;
  const file = '/home/dev/syncscope/test/gpu/torch/programs/train_step.py';
  assert.equal(top.kind, 'streamSync');
  assert.equal(top.blockedNs, 4078062);
  assert.equal(top.target, 'stream 7');
  // Read by hand: the copy queued behind the 27 ops of stream 7 that ran in the wait's 4.08 ms,
  // 4.04 ms of GPU time, the last AdamW's multi_tensor_apply_kernel.
  const { queuedBehind, ...released } = top.releasedBy[0];
  assert.equal(queuedBehind.ops, 27);
  assert.equal(Math.round(queuedBehind.busyNs / 1e4), 404);
  assert.match(queuedBehind.name, /multi_tensor_apply_kernel</);
  assert.deepEqual(
    [released],
    [
      {
        op: 223,
        name: 'Memcpy DtoH (Device -> Pinned)',
        stream: 'stream 7',
        how: 'exact',
        source: { file, line: 25, function: '<module>', precision: 'line' },
      },
    ],
  );
  assert.deepEqual(top.source, { file, line: 25, function: '<module>', precision: 'line' });
  assert.deepEqual(top.stack, [{ file, line: 25, function: '<module>' }]);
  assert.equal(top.context, 'ProfilerStep#0 > aten::item > aten::_local_scalar_dense');
  assert.match(r.text, /29 host waits \(26 streamSync, 2 deviceSync, 1 memcpy\); 10 at file train_step\.py, line 25/);
  assert.match(
    r.text,
    /\n {6}line 25 waited 4\.08 ms for "Memcpy DtoH \(Device -> Pinned\)" launched at line 25, queued behind 27 ops of stream 7 \(4\.04 ms of GPU time\), the last "multi_tensor_apply_kernel<TensorListMetadata>", launched in <module> \(train_step\.py\)\n/,
  );
  assert.match(r.text, /\n7 more matching waits left out \(limit 3\)$/);
  // The whole path matches as its end does; a file that no wait is at matches nothing.
  assert.equal((await ok('waits', { path: PROFILE, file, line: 25 })).data.matched, 10);
  assert.equal((await ok('waits', { path: PROFILE, file: 'step.py', line: 25 })).data.matched, 0);
});

test('waits of one kind, and a line without waits answers with the lines that wait', async () => {
  const memcpy = await ok('waits', { path: PROFILE, kind: 'memcpy' });
  assert.deepEqual(
    memcpy.data.waits.map((w: { id: number; blockedNs: number; source: { line: number } }) => [
      w.id,
      w.blockedNs,
      w.source.line,
    ]),
    [[1865, 26684, 12]],
  );
  const capture = await ok('waits', { path: CAPTURE, kind: 'streamSync', limit: 1 });
  assert.equal(capture.data.matched, 26);
  assert.equal(capture.data.waits[0].id, 380);
  assert.equal(capture.data.waits[0].blockedNs, 4146599);
  // The capture of the same program: its copy queued behind the step's 27 ops, as in the profile.
  const { queuedBehind, ...released } = capture.data.waits[0].releasedBy[0];
  assert.deepEqual([released], [{ op: 316, name: 'DtoH 4 B (pinned)', stream: 'legacy default', how: 'exact' }]);
  assert.deepEqual([queuedBehind.op, queuedBehind.ops], [315, 27]);
  const none = await ok('waits', { path: SCENARIO, line: 3 });
  assert.equal(none.data.matched, 0);
  assert.deepEqual(none.data.linesWithWaits, [
    { file: SCENARIO, line: 10, waits: 3, blockedNs: 3 * 1170120 },
    { file: SCENARIO, line: 12, waits: 1, blockedNs: 0 },
  ]);
  assert.match(
    none.text,
    /\nNo wait is there; the lines that wait most:\n {2}waits at .*scenario\.json:10: 3, blocked/,
  );
  const line10 = await ok('waits', { path: SCENARIO, line: 10, file: SCENARIO });
  assert.deepEqual(
    line10.data.waits.map((w: { id: number; kind: string; source: unknown }) => [w.id, w.kind, w.source]),
    [
      [1, 'memcpy', { line: 10, column: 7 }],
      [3, 'memcpy', { line: 10, column: 7 }],
      [5, 'memcpy', { line: 10, column: 7 }],
    ],
  );
  assert.equal(line10.data.waits[0].releasedBy[0].name, 'DtoH result -> host');
});

test('findings, ranked by predicted saving, with "no fix to simulate" where there is none', async () => {
  // The capture's recorded window is its loop's iterations 2 to 10 (the first is warm-up):
  // `syncscope whatif --from 4221778710 --to 4294290426` on it predicts F6 15.3 ms (9 copies) and F7
  // 4.8 ms; F1 to F5 copy before the window, so their fixes cannot apply there.
  const capture = await ok('findings', { path: CAPTURE });
  assert.equal(capture.data.total, 7);
  assert.match(
    capture.data.window,
    /^9 iterations, iteration 2 to iteration 10, from a run of calls that repeats; iteration 1 left out: warm-up/,
  );
  assert.deepEqual(
    capture.data.findings.map((f: { id: string }) => f.id),
    ['F6', 'F7', 'F1', 'F2', 'F3', 'F4', 'F5'],
  );
  const [first] = capture.data.findings;
  assert.equal(first.kind, 'pageable-async-copy');
  assert.equal(Math.round(first.predictedSavingNs / 1e5), 153);
  assert.equal(Math.round(first.predictedSavingPerIterationNs / 1e4), 171);
  assert.equal(first.prediction, 'copy from pinned host memory, asynchronously, in 9 copies');
  assert.equal(first.callCount, 10);
  assert.equal(
    capture.data.findings[2].prediction,
    'no fix to simulate (cannot apply: its copies are not in the scenario (its calls are outside the window))',
  );
  assert.match(
    capture.text,
    /\nF6 warning S17 pageable-async-copy: .*\n {4}predicted saving 15\.3 ms \(1\.71 ms per iteration\): copy from pinned/,
  );
  // F2 has no fix the simulator can run: last, though it is second in report order (F3 7 µs, F1 705 ns).
  const query = await ok('findings', { path: 'examples/seed-query-before-after.scenario.json' });
  assert.deepEqual(
    query.data.findings.map((f: { id: string; predictedSavingNs?: number; prediction: string }) => [
      f.id,
      f.predictedSavingNs === undefined,
      f.prediction,
    ]),
    [
      ['F3', false, 'copy from pinned host memory, asynchronously, in 1 copy'],
      ['F1', false, 'copy from pinned host memory, asynchronously, in 1 copy'],
      [
        'F2',
        true,
        'no fix to simulate (cannot apply: a timing-dependent-query finding has no edit the simulator can run)',
      ],
    ],
  );
  // A device-wide wait's fix frees the host (2 ms -> 168 µs) while the GPU's 2 ms prefetch still
  // sets when the work is done: a saving of a few µs; a race's fix costs time.
  const device = await ok('findings', { path: 'examples/device-sync-buggy.scenario.json' });
  assert.equal(
    device.data.findings[0].prediction,
    'synchronize on an event recorded after the op the host needed, in place of 1 device synchronize',
  );
  assert.ok(device.data.findings[0].predictedSavingNs < 10_000, String(device.data.findings[0].predictedSavingNs));
  const race = await ok('findings', { path: 'examples/wait-before-record-buggy.scenario.json' });
  assert.deepEqual(
    race.data.findings.map((f: { id: string; kind: string }) => [f.id, f.kind]),
    [
      ['F1', 'no-op-wait'],
      ['F2', 'race'],
    ],
  );
  assert.ok(race.data.findings[1].predictedSavingNs < 0);
  assert.match(race.text, /\n {4}the fix costs 52\.6 µs more host time: record "fix_1_3" on producer/);
});

test("whatif: one finding's fix simulated, host and GPU time before and after", async () => {
  // `syncscope whatif`: done 3.53 ms -> 1.97 ms (-1.55 ms); GPU busy 3.51 ms -> 1.97 ms; calls 1, 3, 5 blocked 1.17 ms -> 0 ns.
  const r = await ok('whatif', { path: SCENARIO, id: 'f1' });
  assert.equal(r.data.id, 'F1');
  assert.equal(r.data.kind, 'pageable-async-copy');
  assert.equal(r.data.applied, true);
  assert.equal(r.data.edit, 'copy from pinned host memory, asynchronously, in 3 copies');
  // The recorded window ends with the third iteration, before the last streamSync: the fixed host is
  // through its calls at once, and the saving counts until the GPU's work is done too, which is
  // what pageable-copy-fixed.scenario.json takes (1.98 ms, the host waking 10 µs after the GPU is done at 1.97 ms).
  assert.equal(Math.round(r.data.before.doneNs / 1e4), 353);
  assert.equal(Math.round(r.data.after.doneNs / 1e4), 197);
  assert.equal(Math.round(r.data.before.gpuBusyNs / 1e4), 351);
  assert.equal(r.data.savingNs, r.data.before.doneNs - r.data.after.doneNs);
  assert.deepEqual(
    r.data.waits.map((w: { call: number; afterNs: number }) => [w.call, w.afterNs]),
    [
      [1, 0],
      [3, 0],
      [5, 0],
    ],
  );
  assert.match(
    r.text,
    /\n {4}done 3\.53 ms -> 1\.97 ms \(-1\.55 ms\); host time 3\.53 ms -> [\d.]+ µs \([^)]*\); GPU busy 3\.51 ms -> 1\.97 ms/,
  );
  assert.match(r.text, /\n {4}predicted saving: 1\.55 ms\n/);
  const profile = await ok('whatif', { path: PROFILE, id: 'F3' });
  assert.equal(profile.data.kind, 'hidden-sync');
  assert.equal(
    profile.data.edit,
    // 9: the recorded window leaves the first of the 10 steps out as warm-up.
    "move 9 synchronize steps to the thread's next host wait (where the value is next needed)",
  );
  const noEdit = await ok('whatif', { path: 'examples/seed-query-before-after.scenario.json', id: 'F2' });
  assert.equal(noEdit.data.applied, false);
  assert.equal(noEdit.data.after, undefined);
  assert.equal(noEdit.data.savingNs, undefined);
  assert.match(
    await error('whatif', { path: SCENARIO, id: 'F4' }),
    /^examples\/pageable-copy-buggy\.scenario\.json: no finding F4; the trace has F1 only \(the findings tool lists them\)$/,
  );
  assert.equal(
    await error('whatif', { path: PROFILE, id: 'F1', steps: '7:9' }),
    '--steps 7:9: the trace has no ProfilerStep#7 to #9; use --from/--to',
  );
});

test('bad arguments are errors that name the argument and what was wrong', async () => {
  assert.match(await error('waits', { path: 3 }), /expected string, received number at path/);
  assert.match(await error('report', {}), /expected string, received undefined at path/);
  assert.match(await error('waits', { path: PROFILE, line: 0 }), /at line/);
  assert.match(await error('waits', { path: PROFILE, kind: 'nap' }), /streamSync.*at kind/);
  assert.match(await error('waits', { path: PROFILE, limit: 1000 }), /at limit/);
  assert.match(await error('findings', { path: PROFILE, pth: 'x' }), /Unrecognized key: "pth"/);
  assert.match(await error('whatif', { path: PROFILE, id: 'first' }), /expected a finding id .* as in F2 at id/);
  assert.match(await error('profile', { python: 'python3' }, running), /expected string, received undefined at script/);
  assert.match(await error('capture', { command: [] }, running), /at command/);
});

test('a missing file, a directory, a file that is not a trace and a broken scenario say what is wrong', async () => {
  assert.equal(
    await error('report', { path: 'no-such.json' }),
    `no such file: no-such.json (looked for ${repoPath('no-such.json')})`,
  );
  assert.equal(
    await error('waits', { path: 'test' }),
    'test is not a file; expected a trace or a *.scenario.json file',
  );
  assert.equal(
    await error('findings', { path: 'package.json' }),
    'package.json: not a trace; expected a Syncscope trace, a PyTorch profiler trace or a Chrome trace-event file',
  );
  const broken = join(dir, 'broken.scenario.json');
  writeFileSync(broken, '{ "streams": {} }');
  assert.equal(
    await error('whatif', { path: broken, id: 'F1' }),
    'broken.scenario.json:1:1: a scenario needs a "name"',
  );
});

test('profile and capture run nothing without --allow-run, and say how to allow it', async () => {
  const script = join(dir, 'must-not-run.py');
  const marker = join(dir, 'ran');
  writeFileSync(script, `open(${JSON.stringify(marker)}, "w").write("ran")\n`);
  const profile = await error('profile', { python: 'python3', script, out: join(dir, 'refused.json.gz') });
  assert.match(
    profile,
    /^profile runs a program, and this server was started without --allow-run; .*"syncscope mcp --allow-run"/,
  );
  const capture = await error('capture', { command: ['python3', script], out: join(dir, 'refused.syncscope.json') });
  assert.match(capture, /^capture runs a program, and this server was started without --allow-run/);
  assert.throws(() => rmSync(marker), /ENOENT/);
});

test('with --allow-run, profile runs the script and returns the path of its trace, which the other tools read', async () => {
  const out = join(dir, 'sites.json.gz');
  const script = repoPath('test/fixtures/fake-torch/scripts/sites.py');
  const progress: string[] = [];
  const onprogress = (p: { message?: string }) => void progress.push(p.message ?? '');
  const r = await ok('profile', { python: 'python3', script, out }, running, onprogress);
  assert.deepEqual(progress, [
    'profiling sites.py: 5 steps (optimizer) after 2 warm-up steps, or the first 60 s if no step ends',
    `writing trace ${out}`,
    `trace written ${out}`,
  ]);
  assert.equal(r.data.trace, out);
  assert.equal(r.data.waits, 16); // sites.py's 15, and the profiler's own device sync as it stops
  assert.equal(r.data.failure, undefined);
  assert.match(r.text, new RegExp(`^trace written to ${out}: 16 host waits, 0 findings`));
  assert.equal((await ok('report', { path: out }, running)).data.waits, 16);
  const crash = await ok(
    'profile',
    {
      python: 'python3',
      script: repoPath('test/fixtures/fake-torch/scripts/crash.py'),
      out: join(dir, 'crash.json.gz'),
    },
    running,
  );
  assert.match(crash.data.failure, /crash\.py: the script raised ValueError: boom; the trace keeps what was recorded/);
  assert.match(crash.data.output, /ValueError: boom\n$/);
  assert.equal(
    await error('profile', { python: 'no-such-python3', script }, running),
    'no-such-python3: Python interpreter not found; install Python or name one that exists',
  );
});

test("with --allow-run, capture writes the trace; the program's output stays off the protocol", async () => {
  const w = new RawCaptureWriter();
  w.device('NVIDIA H200', 132);
  const k = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 1000, end: 4000, stream: 1 });
  w.kernel(k, 'void step(float*)', 5000, 105_000);
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin: 5000, end: 108_000 });
  const raw = join(dir, 'sample.raw');
  writeFileSync(raw, w.bytes());
  // Stands in for a CUDA program: prints, and writes its raw stream where the library would.
  const fake = join(dir, 'fake.js');
  writeFileSync(
    fake,
    `console.log('hello from the program'); require('fs').copyFileSync(${JSON.stringify(raw)}, process.env.SYNCSCOPE_CAPTURE_OUT.replace('%p', process.pid));`,
  );
  const out = join(dir, 'fake.syncscope.json');
  const r = await ok('capture', { command: [process.execPath, fake], out }, running);
  assert.equal(r.data.trace, out);
  assert.equal(r.data.waits, 1);
  assert.equal(r.data.output, 'hello from the program\n');
  const waits = await ok('waits', { path: out }, running);
  assert.deepEqual(
    waits.data.waits.map((x: { kind: string; blockedNs: number; releasedBy: { name: string }[] }) => [
      x.kind,
      x.blockedNs,
      x.releasedBy[0].name,
    ]),
    [['deviceSync', 103000, 'step']],
  );
  // Plain steps are timed for a Python script alone: any other command is refused before it runs.
  const notPython = await error('capture', { command: [process.execPath, fake], plainSteps: 5 }, running);
  assert.equal(
    notPython,
    `plainSteps: plain steps are timed for a Python script; expected the command as <python> <script.py> [args...], not "${process.execPath} ${fake}"`,
  );
  const stepOnAlone = await error('capture', { command: ['python3', 'train.py'], stepOn: 'step' }, running);
  assert.equal(stepOnAlone, 'stepOn says what a plain step is: give plainSteps too');
  const none = await error('capture', { command: ['sh', '-c', 'echo not CUDA'] }, running);
  assert.equal(
    none,
    'nothing was captured: "sh -c echo not CUDA" exited with code 0 without initialising CUDA\n' +
      "the end of the program's output:\nnot CUDA\n",
  );
});

test('answers stay small: items past the size limit are left out and counted, long names are cut', async () => {
  const long = 'k'.repeat(2000);
  const scenario = join(dir, 'many.scenario.json');
  writeFileSync(
    scenario,
    JSON.stringify({
      name: 'many waits',
      streams: { s: {} },
      steps: [{ repeat: 300, steps: [{ launch: long, stream: 's', us: 10 }, { streamSync: 's' }] }],
    }),
  );
  const r = await ok('waits', { path: scenario, limit: 100 });
  assert.equal(r.data.matched, 300);
  const shown = r.data.waits.length;
  assert.ok(shown > 10 && shown < 100, `${shown} waits listed`);
  assert.equal(r.data.leftOut, 300 - shown);
  assert.ok(JSON.stringify(r.data).length <= 40_000);
  assert.equal(r.data.waits[0].releasedBy[0].name, 'k'.repeat(399) + '…');
  assert.ok(r.text.length <= 40_000, `${r.text.length} characters`);
  const tail = `\n${300 - shown} more matching waits left out (limit 100)`;
  assert.ok(r.text.endsWith(tail), r.text.slice(-200));
  assert.equal(r.text.split('\n  #').length - 1, shown, 'the text lists the waits the JSON lists');
});
