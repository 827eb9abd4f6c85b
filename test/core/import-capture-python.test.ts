// A capture of a Python program: every call carries the calling thread's Python stack, so a wait
// sits at the user's line and names the line that launched the op that released it. Raw streams
// written here, with frames as a training loop's would be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importCapture } from '../../core/import/capture-convert';
import { ImportError } from '../../core/import/scan';
import { isUserFile, parseUserCode, type UserCode } from '../../core/import/python-sites';
import { analyze } from '../../core/analyze';
import { buildReport, formatReport } from '../../core/report';
import { callSite, str, type Trace } from '../../core/trace/model';
import { parseTrace, traceToJson } from '../../core/trace/json';
import { RawCaptureWriter, type PyFrameSpec } from '../helpers/raw-capture';

const S = 0x7f00_0000_1000;
const TRAIN = '/home/ada/proj/train.py';
const SCALER = '/usr/lib/python3/dist-packages/torch/amp/grad_scaler.py';
const ADAMW = '/opt/venv/lib/python3.12/site-packages/torch/optim/adamw.py';
const MODULE: PyFrameSpec = [TRAIN, 40, '<module>'];
const READING = { status: 1, text: 'CPython 3.12.3', hexVersion: 0x030c03f0 };

const callsNamed = (t: Trace, name: string): number[] =>
  [...Array(t.calls.count).keys()].filter((i) => str(t, t.calls.name[i]) === name);
const where = (t: Trace, call: number): string | undefined => {
  const s = callSite(t, call);
  return s && `${s.frame.file.slice(s.frame.file.lastIndexOf('/') + 1)}:${s.frame.line} ${s.precision}`;
};

/**
 * A step: the forward kernel launched at train.py:20, the AdamW kernel launched inside
 * torch/optim/adamw.py from `opt.step()` at train.py:21, a backward kernel from a thread that runs
 * no Python (the autograd engine's), then `scaler.step(opt)` at train.py:24 synchronizes inside
 * grad_scaler.py.
 */
function trainingStep(): RawCaptureWriter {
  const w = new RawCaptureWriter();
  w.python = READING;
  const engine = w.thread('pt_autograd_0', 5001);
  w.call({ api: 'streamCreate', name: 'cudaStreamCreate', begin: 0, end: 500, stream: S, streamId: 13 });
  const forward = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    begin: 1_000,
    end: 3_000,
    stream: S,
    pyStack: w.pyStack([[TRAIN, 20, 'step'], MODULE]),
  });
  w.kernel(forward, 'ampere_sgemm_128x64_nn', 4_000, 50_000, 13);
  const backward = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    thread: engine,
    begin: 5_000,
    end: 7_000,
    stream: S,
  });
  w.kernel(backward, 'ampere_sgemm_128x64_tn', 50_500, 90_000, 13);
  const adamw = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    begin: 8_000,
    end: 10_000,
    stream: S,
    pyStack: w.pyStack([[ADAMW, 512, '_multi_tensor_adamw'], [ADAMW, 230, 'AdamW.step'], [TRAIN, 21, 'step'], MODULE]),
  });
  w.kernel(adamw, 'multi_tensor_apply_kernel', 90_500, 300_000, 13);
  w.call({
    api: 'streamSync',
    name: 'cudaStreamSynchronize',
    begin: 12_000,
    end: 302_000,
    stream: S,
    pyStack: w.pyStack([
      [SCALER, 380, 'GradScaler._maybe_opt_step'],
      [SCALER, 455, 'GradScaler.step'],
      [TRAIN, 24, 'step'],
      MODULE,
    ]),
  });
  return w;
}

test('a captured wait inside library code sits at the user line that called the library, with the library frames in its stack', () => {
  const t = importCapture(trainingStep().bytes());
  const [sync] = callsNamed(t, 'cudaStreamSynchronize');
  assert.equal(where(t, sync), 'train.py:24 line');
  assert.deepEqual(
    callSite(t, sync)?.stack.map((f) => `${f.function}:${f.line}`),
    ['GradScaler._maybe_opt_step:380', 'GradScaler.step:455', 'step:24', '<module>:40'],
  );
  // The line that called step(), the user's frame outward past none of the library's.
  assert.deepEqual(callSite(t, sync)?.caller, { file: TRAIN, line: 40, function: '<module>' });
  const launches = callsNamed(t, 'cudaLaunchKernel');
  assert.deepEqual(
    launches.map((c) => where(t, c)),
    ['train.py:20 line', undefined, 'train.py:21 line'],
    'the engine thread runs no Python: its launch has no site',
  );
  assert.ok(
    t.meta.notes?.includes(
      "Python stacks read from CPython 3.12.3: 3 of 5 calls were made from Python, 3 of them at a line of the user's code",
    ),
  );
});

test("a wait inside torch.compile's compiled code sits at the line that called the compiled function; a graph break's line stays", () => {
  const COMPILED = '/home/ada/proj/compiled.py';
  const DYNAMO = '/opt/venv/lib/python3.12/site-packages/torch/_dynamo/eval_frame.py';
  const TREES = '/opt/venv/lib/python3.12/site-packages/torch/_inductor/cudagraph_trees.py';
  const w = new RawCaptureWriter();
  w.python = READING;
  const sync = (begin: number, frames: PyFrameSpec[]) =>
    w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin, end: begin + 1000, pyStack: w.pyStack(frames) });
  const outer: PyFrameSpec[] = [
    [DYNAMO, 1024, '_TorchDynamoContext.__call__.<locals>.compile_wrapper'],
    [COMPILED, 19, '<module>', 1],
  ];
  // `@torch.compile` at line 10 over `def block(x)`: the frame TorchDynamo runs is at its code's
  // first line, 10, while the compiled graph synchronizes (CUDA graph trees); called from line 19.
  sync(1000, [
    [TREES, 2024, 'CUDAGraphTreeManager.__init__'],
    [DYNAMO, 1263, 'DisableContext.__call__.<locals>._fn'],
    [COMPILED, 10, 'block', 10],
    ...outer,
  ]);
  // A graph break: the function's own bytecode runs `x.item()` at line 13.
  sync(5000, [[COMPILED, 13, 'block', 10], ...outer]);
  // A one-line lambda is at its first line and runs there: not TorchDynamo's, it keeps its line.
  sync(9000, [
    [COMPILED, 30, '<lambda>', 30],
    [COMPILED, 31, '<module>', 1],
  ]);
  const t = importCapture(w.bytes());
  const syncs = callsNamed(t, 'cudaDeviceSynchronize');
  assert.deepEqual(
    syncs.map((c) => where(t, c)),
    ['compiled.py:19 line', 'compiled.py:13 line', 'compiled.py:30 line'],
  );
  // The compiled function stays in the wait's stack and in the API it called.
  assert.ok(callSite(t, syncs[0])?.stack.some((f) => f.function === 'block' && f.line === 10));
  const report = buildReport(t, analyze(t));
  const atCaller = report.waits.find((x) => x.source?.line === 19);
  assert.equal(
    atCaller?.context,
    '_TorchDynamoContext.__call__.<locals>.compile_wrapper > block > DisableContext.__call__.<locals>._fn > CUDAGraphTreeManager.__init__',
  );
});

test("S16: the report names the releasing op's launch line, in words and in JSON", () => {
  const t = importCapture(trainingStep().bytes());
  const report = buildReport(t, analyze(t));
  const wait = report.waits.find((w) => w.kind === 'streamSync');
  assert.ok(wait);
  assert.equal(wait.blockedNs, 290_000);
  assert.deepEqual(wait.source, { file: TRAIN, line: 24, function: 'step', precision: 'line' });
  // The library API the user's line called, outermost first.
  assert.equal(wait.context, 'GradScaler.step > GradScaler._maybe_opt_step');
  assert.equal(wait.releasedBy?.length, 1);
  const [by] = wait.releasedBy!;
  assert.equal(by.name, 'multi_tensor_apply_kernel');
  assert.equal(by.how, 'exact');
  assert.deepEqual(by.source, { file: TRAIN, line: 21, function: 'step', precision: 'line' });
  assert.deepEqual(
    by.stack?.map((f) => f.line),
    [512, 230, 21, 40],
  );
  const text = formatReport(report);
  assert.match(
    text,
    /released by op \d+ "multi_tensor_apply_kernel" on stream 1, launched at \/home\/ada\/proj\/train\.py:21 in step\(\)/,
  );
  assert.match(text, /at \/home\/ada\/proj\/train\.py:24 in step\(\)/);
  // One sentence per wait, with the lines' code where it can be read.
  const code = new Map([
    [21, '        opt.step()'],
    [24, '        scaler.step(opt)  # unscales, checks for inf, steps'],
  ]);
  const spoken = formatReport(report, { code: (file, line) => (file === TRAIN ? code.get(line) : undefined) });
  assert.ok(
    spoken.includes(
      '      line 24 (scaler.step(opt)  # unscales, checks for inf, steps) waited 290 µs for "multi_tensor_apply_kernel" launched at line 21 (opt.step())\n',
    ),
    spoken,
  );
  assert.ok(text.includes('      line 24 waited 290 µs for "multi_tensor_apply_kernel" launched at line 21\n'), text);
});

/**
 * `loss.backward()` at train.py:30: torch's _make_grads launches the ones-like gradient from the
 * main thread inside backward(), then autograd's engine thread (no Python) launches the backward
 * kernel, and `torch.cuda.synchronize()` at train.py:31 waits for it. `second`: another Python
 * thread is inside a backward() of its own meanwhile; `unseen`: the main thread makes no call
 * inside backward(), so nothing shows it was there.
 */
function backwardThenSync(second: boolean, unseen = false): Trace {
  const w = new RawCaptureWriter();
  w.python = READING;
  const engine = w.thread('pt_autograd_0', 5001);
  const other = w.thread('worker', 5002);
  const inBackward = (line: number): PyFrameSpec[] => [
    ['/opt/venv/lib/python3.12/site-packages/torch/autograd/__init__.py', 231, '_make_grads'],
    ['/opt/venv/lib/python3.12/site-packages/torch/autograd/__init__.py', 374, 'backward'],
    ['/opt/venv/lib/python3.12/site-packages/torch/_tensor.py', 631, 'Tensor.backward'],
    [TRAIN, line, 'step'],
    MODULE,
  ];
  w.call({ api: 'streamCreate', name: 'cudaStreamCreate', begin: 0, end: 500, stream: S, streamId: 13 });
  if (!unseen) {
    const ones = w.call({
      api: 'launch',
      name: 'cudaLaunchKernel',
      begin: 1_000,
      end: 2_000,
      stream: S,
      pyStack: w.pyStack(inBackward(30)),
    });
    w.kernel(ones, 'fill_kernel', 2_500, 3_000, 13);
  }
  if (second)
    w.call({
      api: 'launch',
      name: 'cudaLaunchKernel',
      thread: other,
      begin: 2_500,
      end: 2_800,
      stream: S,
      pyStack: w.pyStack(inBackward(55)),
    });
  const backward = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    thread: engine,
    begin: 5_000,
    end: 7_000,
    stream: S,
  });
  w.kernel(backward, 'ampere_sgemm_128x64_tn', 8_000, 90_000, 13);
  w.call({
    api: 'deviceSync',
    name: 'cudaDeviceSynchronize',
    begin: 10_000,
    end: 91_000,
    pyStack: w.pyStack([[TRAIN, 31, 'step'], MODULE]),
  });
  // After backward() returned: the engine's launches now belong to no line.
  const late = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    thread: engine,
    begin: 95_000,
    end: 96_000,
    stream: S,
  });
  w.kernel(late, 'late_kernel', 96_500, 97_000, 13);
  return importCapture(w.bytes());
}

test("a launch of autograd's engine thread during backward() is at the line that called it, as a deduction", () => {
  const t = backwardThenSync(false);
  const launches = callsNamed(t, 'cudaLaunchKernel');
  assert.deepEqual(
    launches.map((i) => [where(t, i), callSite(t, i)?.deduced]),
    [
      ['train.py:30 line', undefined],
      ['train.py:30 line', "made by autograd's engine thread while this line ran backward()"],
      [undefined, undefined],
    ],
  );
  const [wait] = buildReport(t, analyze(t)).waits;
  assert.deepEqual(wait.source, { file: TRAIN, line: 31, function: 'step', precision: 'line' });
  assert.equal(wait.releasedBy?.[0].name, 'ampere_sgemm_128x64_tn');
  assert.equal(wait.releasedBy?.[0].source?.line, 30);
  assert.ok(
    t.meta.notes?.some((n) =>
      n.startsWith('1 calls of threads that run no Python placed at the line that ran backward()'),
    ),
  );
  // Two threads inside backward() at once: the engine's launch could be either's, and has no line.
  const two = backwardThenSync(true);
  const engineLaunch = callsNamed(two, 'cudaLaunchKernel').filter(
    (i) => two.lanes[two.calls.lane[i]].name === 'pt_autograd_0',
  );
  assert.deepEqual(
    engineLaunch.map((i) => where(two, i)),
    [undefined, undefined],
  );
});

test('a wait released by an op that a thread without Python launched, outside any backward() seen, names the op and no launch line', () => {
  const t = backwardThenSync(false, true);
  const [wait] = buildReport(t, analyze(t)).waits;
  assert.deepEqual(wait.source, { file: TRAIN, line: 31, function: 'step', precision: 'line' });
  assert.deepEqual(wait.releasedBy, [{ op: 0, name: 'ampere_sgemm_128x64_tn', stream: 'stream 1', how: 'exact' }]);
  assert.equal(wait.context, undefined, "a call from the user's own line (a C method, .item()) has no library API");
});

test('a capture whose Python could not be read says why in the trace, and its calls have no line', () => {
  const w = new RawCaptureWriter();
  w.python = { status: 2, text: 'CPython 3.14.0: stacks are read from CPython 3.10 to 3.13', hexVersion: 0x030e00f0 };
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin: 0, end: 100 });
  const t = importCapture(w.bytes());
  assert.equal(callSite(t, 0), undefined);
  assert.ok(
    t.meta.notes?.includes(
      'Python stacks not read (CPython 3.14.0: stacks are read from CPython 3.10 to 3.13): calls have no source line',
    ),
    String(t.meta.notes),
  );
});

test('a call naming a Python stack the stream does not hold is a corrupt capture', () => {
  const w = new RawCaptureWriter();
  w.python = READING;
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin: 0, end: 100, pyStack: 7 });
  assert.throws(
    () => importCapture(w.bytes()),
    (e: unknown) =>
      e instanceof ImportError &&
      e.message === 'raw capture corrupt: call 1 names Python stack 7, which the stream does not hold',
  );
});

test("--user-code: a path added to the user's code holds the line, and a path taken out gives it up", () => {
  const bytes = trainingStep().bytes();
  const siteOfSync = (userCode?: UserCode) => {
    const t = importCapture(bytes, { userCode });
    return where(t, callsNamed(t, 'cudaStreamSynchronize')[0]);
  };
  assert.equal(siteOfSync(), 'train.py:24 line');
  // The GradScaler's own folder made the user's: its innermost frame there is the line.
  assert.equal(
    siteOfSync({ add: ['/usr/lib/python3/dist-packages/torch/amp'], remove: [] }),
    'grad_scaler.py:380 line',
  );
  // The project taken out: no frame is left that is the user's.
  assert.equal(siteOfSync({ add: [], remove: ['/home/ada/proj/'] }), undefined);
  // The longer path decides: torch/amp added inside a removed torch.
  assert.equal(
    siteOfSync({ add: ['/usr/lib/python3/dist-packages/torch/amp'], remove: ['/usr/lib/python3/dist-packages/torch'] }),
    'grad_scaler.py:380 line',
  );
});

test('parseUserCode reads + and - paths, and says what is wrong with an empty one', () => {
  assert.deepEqual(parseUserCode('+/srv/app/vendored, -/srv/app/third_party,/opt/lib'), {
    add: ['/srv/app/vendored', '/opt/lib'],
    remove: ['/srv/app/third_party'],
  });
  assert.equal(
    parseUserCode('/srv/app,,-/x'),
    '"" names no path; expected paths, each with + to add it or - to take it out',
  );
  assert.equal(isUserFile('/srv/app/x.py', { add: [], remove: ['/srv/app'] }), false);
  assert.equal(
    isUserFile('/srv/application/x.py', { add: [], remove: ['/srv/app'] }),
    true,
    'a prefix is a folder, not a name',
  );
});

test('a Python frame past any source line is a corrupt capture', () => {
  const w = new RawCaptureWriter();
  w.python = READING;
  w.call({
    api: 'deviceSync',
    name: 'cudaDeviceSynchronize',
    begin: 0,
    end: 100,
    pyStack: w.pyStack([[TRAIN, 2 ** 31, 'step']]),
  });
  assert.throws(
    () => importCapture(w.bytes()),
    (e: unknown) =>
      e instanceof ImportError &&
      /a Python frame is at line 2147483648; expected 0 \(unknown\) to 2147483647 at byte \d+$/.test(e.message),
  );
});

test('a captured wait without a line says why, and never guesses one', () => {
  const w = new RawCaptureWriter();
  w.python = READING;
  const engine = w.thread('pt_autograd_0', 5001);
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', thread: engine, begin: 0, end: 100 });
  w.call({
    api: 'deviceSync',
    name: 'cudaDeviceSynchronize',
    begin: 200,
    end: 300,
    pyStack: w.pyStack([
      [SCALER, 380, 'GradScaler._maybe_opt_step'],
      ['/usr/lib/python3.12/threading.py', 1010, 'Thread.run'],
    ]),
  });
  const reasons = (bytes: Uint8Array) => {
    const t = importCapture(bytes);
    return buildReport(t, analyze(t)).waits.map((x) => [x.source, x.noSource, x.context]);
  };
  assert.deepEqual(reasons(w.bytes()), [
    [undefined, 'no Python code ran where it was made (a thread of the runtime or of a library)', undefined],
    [
      undefined,
      "no frame of its Python stack is in the user's code (--user-code adds paths)",
      'Thread.run > GradScaler._maybe_opt_step',
    ],
  ]);
  w.python = { status: 2, text: 'CPython 3.14.0: stacks are read from CPython 3.10 to 3.13', hexVersion: 0x030e00f0 };
  assert.deepEqual(
    reasons(w.bytes())[0][1],
    'Python stacks were not read: CPython 3.14.0: stacks are read from CPython 3.10 to 3.13',
  );
  // A program that is not Python: nothing to say of lines.
  w.python = { status: 0, text: 'not a Python process', hexVersion: 0 };
  assert.deepEqual(reasons(w.bytes())[0][1], undefined);
});

test("a capture's Python meta survives a save and a reload, and is checked on the way in", () => {
  const w = trainingStep();
  const t = importCapture(w.bytes());
  assert.deepEqual(t.meta.python, { read: true, text: 'CPython 3.12.3' });
  const back = parseTrace(traceToJson(t));
  assert.deepEqual(back.meta.python, { read: true, text: 'CPython 3.12.3' });
  const bad = traceToJson(t).replace('"read":true', '"read":"yes"');
  assert.throws(() => parseTrace(bad), /meta\.python\.read: got "yes"; expected true or false/);
});
