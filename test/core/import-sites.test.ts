import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { importPytorch } from '../../core/import';
import { isUserFile, MAX_STACK, parseFrame, parseMarker } from '../../core/import/python-sites';
import { siteLabel, waitSentence } from '../../core/analyze/describe';
import { callSite, CK, isWait, str, Trace } from '../../core/trace/model';
import { parseTrace, traceToJson } from '../../core/trace/json';
import { analyze } from '../../core/analyze';
import { buildReport, formatReport } from '../../core/report';
import { repoPath } from '../helpers/paths';

// Stacks below were read by hand from the recorded traces' python_function events around each wait.
const program = (name: string) =>
  importPytorch(gunzipSync(readFileSync(repoPath('test/fixtures/torch/programs', name + '.json.gz'))));

/** The call named `name` whose Kineto dur was `durUs`. */
function callOf(t: Trace, name: string, durUs: number): number {
  for (let i = 0; i < t.calls.count; i++)
    if (str(t, t.calls.name[i]) === name && t.calls.end[i] - t.calls.begin[i] === Math.round(durUs * 1000)) return i;
  throw new Error(`no ${name} of ${durUs} us`);
}

const frames = (t: Trace, call: number) => callSite(t, call)?.stack.map((f) => `${f.file}:${f.line} ${f.function}`);

test('user-frame rule: torch, site-packages, the standard library, pseudo-files and the launcher are not the user', () => {
  for (const f of [
    'torch/nn/modules/module.py',
    'torch/cuda/streams.py',
    '/usr/lib/python3.12/site-packages/transformers/trainer.py',
    '/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py',
    '/usr/lib/python3.12/threading.py',
    'C:\\Python312\\Lib\\site-packages\\torch\\nn\\functional.py',
    'pkgutil.py',
    'ctypes/__init__.py',
    '<frozen runpy>',
    '<string>',
    '/home/me/.vscode/extensions/syncscope/python/syncscope_profile.py',
    // Kineto writes these relative to their sys.path entry (seen in the recorded profiles).
    'typing_extensions.py',
    '_weakrefset.py',
    // torch.compile's generated code: Inductor's cache, where its default folder puts it.
    '/tmp/torchinductor_root/vc/cvcqbgetcjc7ot7wlhbzqhsyqtzhg3p2yibaxjryvvhlmw2jgbim.py',
  ])
    assert.equal(isUserFile(f), false, f);
  for (const f of ['train.py', 'record.py', 'test/gpu/torch/programs/train_step.py', '/home/me/proj/torchy/model.py'])
    assert.equal(isUserFile(f), true, f);
});

test('python_function names parse to frames; built-in calls are not frames', () => {
  assert.deepEqual(parseFrame('train.py(8): loop'), { file: 'train.py', line: 8, function: 'loop' });
  assert.deepEqual(parseFrame('/abs/path/x.py(12): f'), { file: '/abs/path/x.py', line: 12, function: 'f' });
  assert.deepEqual(parseFrame('<frozen runpy>(65): _run_code'), {
    file: '<frozen runpy>',
    line: 65,
    function: '_run_code',
  });
  assert.equal(parseFrame('<built-in method synchronize of Event object at 0x7f0e9f845e10>'), undefined);
});

test('side_stream_sync.stack: event.synchronize() is in the script, past torch/cuda/streams.py', () => {
  const t = program('side_stream_sync.stack');
  const call = callOf(t, 'cudaEventSynchronize', 5049.682);
  const site = callSite(t, call);
  assert.deepEqual(site?.frame, { file: 'test/gpu/torch/programs/side_stream_sync.py', line: 0, function: '<module>' });
  assert.equal(site?.precision, 'function');
  assert.deepEqual(frames(t, call), [
    'torch/cuda/streams.py:245 synchronize',
    'test/gpu/torch/programs/side_stream_sync.py:0 <module>',
    '<frozen runpy>:65 _run_code',
    '<frozen runpy>:91 _run_module_code',
    '<frozen runpy>:262 run_path',
    'record.py:18 <module>',
  ]);
  assert.equal(siteLabel(site!), 'in <module> (test/gpu/torch/programs/side_stream_sync.py)');
  // The profiler's own synchronize at stop (torch/profiler/profiler.py in its stack) is at no line,
  // though the recorder's script called the stop.
  const stop = callOf(t, 'cudaDeviceSynchronize', 5.151);
  assert.equal(callSite(t, stop), undefined);
  // Every other wait has a site, and the sites are shared.
  for (let i = 0; i < t.calls.count; i++)
    if (isWait(t, i) && i !== stop) assert.ok(callSite(t, i), `wait ${i} has a site`);
  assert.ok(t.sites.length < 20);
});

test('train_step.stack: .cuda() waits skip torch/nn/modules/module.py to the script', () => {
  const t = program('train_step.stack');
  const call = callOf(t, 'cudaStreamSynchronize', 12.307);
  assert.deepEqual(callSite(t, call)?.frame, {
    file: 'test/gpu/torch/programs/train_step.py',
    line: 0,
    function: '<module>',
  });
  assert.deepEqual(frames(t, call)?.slice(0, 5), [
    'torch/nn/modules/module.py:1097 <lambda>',
    'torch/nn/modules/module.py:931 _apply',
    'torch/nn/modules/module.py:931 _apply',
    'torch/nn/modules/module.py:1080 cuda',
    'test/gpu/torch/programs/train_step.py:0 <module>',
  ]);
  assert.equal(callSite(t, call)?.stack.length, 9);
});

test('a trace without stacks keeps all its waits, with no site', () => {
  const t = program('train_step.default');
  let waits = 0;
  for (let i = 0; i < t.calls.count; i++) if (isWait(t, i)) waits++;
  assert.equal(waits, 28);
  assert.equal(t.sites.length, 0);
  for (let i = 0; i < t.calls.count; i++) assert.equal(t.calls.site[i], 0);
});

// ---- Call-site markers: a small hand-made Kineto trace in the contract's exact format ----------

const ev = (cat: string, name: string, ts: number, dur: number, args: Record<string, unknown> = {}) => ({
  ph: 'X',
  cat,
  name,
  pid: 1,
  tid: 1,
  ts,
  dur,
  args,
});
const marker = (line: number, ts: number) =>
  ev(
    'user_annotation',
    'syncscope.site:' +
      JSON.stringify({
        stack: [
          ['/usr/lib/python3.12/site-packages/torch/cuda/streams.py', 108, 'synchronize'],
          ['/home/me/train.py', line, 'loop'],
          ['/home/me/train.py', 20, '<module>'],
        ],
      }),
    ts,
    0,
  );

function markedTrace(): Trace {
  return importPytorch(
    JSON.stringify({
      traceEvents: [
        ev('python_function', '/home/me/train.py(8): loop', 0, 100),
        marker(12, 10),
        ev('cpu_op', 'aten::item', 11, 20),
        ev('cuda_runtime', 'cudaMemcpyAsync', 12, 5, { correlation: 1 }),
        ev('cuda_runtime', 'cudaStreamSynchronize', 18, 10, { correlation: 2 }),
        ev('cuda_runtime', 'cudaLaunchKernel', 40, 2, { correlation: 3 }),
        ev('cuda_runtime', 'cudaStreamSynchronize', 45, 5, { correlation: 4 }),
        marker(14, 60),
        marker(15, 70),
        ev('cuda_runtime', 'cudaDeviceSynchronize', 80, 5, { correlation: 5 }),
      ],
    }),
  );
}

test('call-site markers give the following wait its line; they are not calls', () => {
  const t = markedTrace();
  const byName = (name: string, k = 0) => {
    const found = [];
    for (let i = 0; i < t.calls.count; i++) if (str(t, t.calls.name[i]) === name) found.push(i);
    return found[k];
  };
  for (let i = 0; i < t.calls.count; i++) assert.ok(!str(t, t.calls.name[i]).startsWith('syncscope.site:'));
  const sync = byName('cudaStreamSynchronize');
  assert.equal(t.calls.kind[sync], CK.streamSync);
  const site = callSite(t, sync);
  assert.deepEqual(site?.frame, { file: '/home/me/train.py', line: 12, function: 'loop' });
  assert.equal(site?.precision, 'line');
  assert.equal(site?.stack.length, 3);
  assert.equal(siteLabel(site!), '/home/me/train.py:12 in loop()');
  // A later wait outside the marked op: the function only, from the python_function event.
  const later = callSite(t, byName('cudaStreamSynchronize', 1));
  assert.deepEqual(later?.frame, { file: '/home/me/train.py', line: 8, function: 'loop' });
  assert.equal(later?.precision, 'function');
  assert.equal(siteLabel(later!), 'in loop() (/home/me/train.py:8)');
  // Of two markers in a row, the wait takes the second: the first had no wait before the next marker.
  assert.equal(callSite(t, byName('cudaDeviceSynchronize'))?.frame.line, 15);
  assert.ok(t.meta.notes?.some((n) => n.startsWith('1 call-site markers not followed by a host wait')));
});

test('a malformed marker is noted and ignored', () => {
  const t = importPytorch(
    JSON.stringify({
      traceEvents: [
        ev('user_annotation', 'syncscope.site:{"stack":[["a.py","x","f"]]}', 0, 0),
        ev('cuda_runtime', 'cudaDeviceSynchronize', 5, 5, { correlation: 1 }),
      ],
    }),
  );
  assert.equal(t.calls.site[0], 0);
  assert.ok(t.meta.notes?.some((n) => n.startsWith('ignored 1 call-site markers')));
});

test('a marker line is an integer from 1 to 2^31 - 1: 1e300 and 2^53 + 1 are refused with a reason', () => {
  const stack = (line: string) =>
    `syncscope.site:${encodeURIComponent(`{"stack":[["/home/me/train.py",${line},"loop"]]}`)}`;
  const expected = 'expected an integer from 1 to 2147483647';
  assert.equal(parseMarker(stack('1e300')), `a frame's line is 1e+300; ${expected}`);
  // JSON rounds 2^53 + 1 to 2^53 on the way in: only the bound tells it from a line.
  assert.equal(parseMarker(stack('9007199254740993')), `a frame's line is 9007199254740992; ${expected}`);
  assert.equal(parseMarker(stack('2147483648')), `a frame's line is 2147483648; ${expected}`);
  assert.equal(parseMarker(stack('0')), `a frame's line is 0; ${expected}`);
  assert.equal(parseMarker(stack('-5')), `a frame's line is -5; ${expected}`);
  assert.equal(parseMarker(stack('"12"')), `a frame's line is not a number; ${expected}`);
  assert.deepEqual(parseMarker(stack('2147483647')), {
    stack: [{ file: '/home/me/train.py', line: 2147483647, function: 'loop' }],
    line: false,
  });
  // Kineto's frames keep 0 (a module's top level) and lose a line past the bound.
  assert.deepEqual(parseFrame('/a.py(0): <module>'), { file: '/a.py', line: 0, function: '<module>' });
  assert.equal(parseFrame('/a.py(2147483648): f'), undefined);
  assert.equal(parseFrame('/a.py(1' + '0'.repeat(300) + '): f'), undefined);
});

test('a marker with a line of 1e300 gives its wait no site, and the note says why; the report never shows it', () => {
  const marked = (line: string) =>
    ev('user_annotation', `syncscope.site:{"stack":[["/home/me/train.py",${line},"loop"]]}`, 0, 0);
  const t = importPytorch(
    JSON.stringify({
      traceEvents: [marked('1e300'), ev('cuda_runtime', 'cudaDeviceSynchronize', 5, 5, { correlation: 1 })],
    }),
  );
  assert.equal(t.calls.site[0], 0);
  assert.equal(
    t.meta.notes?.[0],
    'ignored 1 call-site markers that are not syncscope.site:{"stack":[["file",line,"function"],...]} ' +
      "(the first: a frame's line is 1e+300; expected an integer from 1 to 2147483647)",
  );
  const report = buildReport(t, analyze(t));
  assert.equal(report.waits[0].source, undefined);
  assert.doesNotMatch(JSON.stringify(report.waits), /1e\+?300/);
  assert.doesNotMatch(formatReport(report), /train\.py:1e/);
});

test('deep stacks stay linear: each call at a distinct deep stack costs at most MAX_STACK frames', () => {
  // Every round's outermost frame differs, so no two calls share a stack node; a site worked out
  // from the whole stack would walk some 10^8 frames here.
  const events: unknown[] = [];
  const depth = 2000;
  const rounds = 25;
  let corr = 0;
  for (let r = 0; r < rounds; r++) {
    const t0 = r * 100_000;
    events.push(ev('python_function', `/u/main${r}.py(1): main`, t0, 50_000));
    for (let d = 1; d < depth; d++) {
      events.push(ev('python_function', `/u/m.py(${d}): f${d}`, t0 + 2 * d, 50_000 - 2 * d));
      events.push(ev('cuda_runtime', 'cudaDeviceSynchronize', t0 + 2 * d + 1, 0.5, { correlation: ++corr }));
    }
  }
  const start = performance.now();
  const t = importPytorch(JSON.stringify({ traceEvents: events }));
  const ms = performance.now() - start;
  const wait = callOf(t, 'cudaDeviceSynchronize', 0.5);
  assert.deepEqual(callSite(t, wait)?.frame, { file: '/u/m.py', line: 1, function: 'f1' });
  assert.equal(callSite(t, t.calls.count - 1)?.stack.length, MAX_STACK);
  assert.ok(ms < 30_000, `${ms} ms`);
});

test('an imported trace with sites saves, loads and validates against the shipped schema', async () => {
  const { validate } = await import('../helpers/json-schema');
  const t = program('side_stream_sync.stack');
  const text = traceToJson(t);
  const again = parseTrace(text);
  assert.deepEqual(again.sites, t.sites);
  assert.deepEqual([...again.calls.site], [...t.calls.site]);
  const schema = JSON.parse(readFileSync(repoPath('media/schema/trace.schema.json'), 'utf8'));
  assert.deepEqual(validate(JSON.parse(text), schema), []);
});

test('report: each wait of an imported trace names its site and stack, in JSON (per the schema) and in text', async () => {
  const { validate } = await import('../helpers/json-schema');
  const t = program('side_stream_sync.stack');
  const report = buildReport(t, analyze(t));
  const schema = JSON.parse(readFileSync(repoPath('media/schema/report.schema.json'), 'utf8'));
  assert.deepEqual(validate(JSON.parse(JSON.stringify(report)), schema), []);
  const call = callOf(t, 'cudaEventSynchronize', 5049.682);
  const wait = report.waits.find((w) => w.id === call);
  assert.deepEqual(wait?.source, {
    file: 'test/gpu/torch/programs/side_stream_sync.py',
    line: 0,
    function: '<module>',
    precision: 'function',
  });
  assert.deepEqual(wait?.stack?.[0], { file: 'torch/cuda/streams.py', line: 245, function: 'synchronize' });
  const stop = callOf(t, 'cudaDeviceSynchronize', 5.151);
  assert.ok(report.waits.every((w) => w.id === stop || (w.source && 'file' in w.source)));
  assert.match(formatReport(report), /\n {6}in <module> \(test\/gpu\/torch\/programs\/side_stream_sync\.py\)/);
});

test('report text: a marker site reads "at file:line in function()", and control characters in it are escaped', () => {
  const t = markedTrace();
  const site = t.sites.find((s) => s.precision === 'line' && s.frame.line === 12);
  site!.frame.file = '/home/me/\x1b[31mtrain.py';
  const text = formatReport(buildReport(t, analyze(t)));
  assert.match(text, /at \/home\/me\/\\x1b\[31mtrain\.py:12 in loop\(\)/);
  assert.ok(!text.includes('\x1b'));
});

test("a marker as the launcher writes it: percent-encoded, since Kineto leaves a name's quotes unescaped", () => {
  // json.dumps of the stack, then quote() with the launcher's safe characters: a quote in a path is \" then %5C%22.
  const name = 'syncscope.site:{%22stack%22:[[%22/home/me/say %5C%22hi%5C%22.py%22,12,%22loop%22]]}';
  assert.ok(!name.slice('syncscope.site:'.length).includes('"'), 'nothing Kineto would write unescaped');
  assert.deepEqual(parseMarker(name), {
    stack: [{ file: '/home/me/say "hi".py', line: 12, function: 'loop' }],
    line: false,
  });
  assert.equal(parseMarker('syncscope.site:{%22stack%2'), 'not percent-encoded JSON');
  // A line marker, as UserLines writes it: `"line": 1` before the user's frames.
  assert.deepEqual(parseMarker('syncscope.site:{%22line%22:1,%22stack%22:[[%22/home/me/t.py%22,20,%22<module>%22]]}'), {
    stack: [{ file: '/home/me/t.py', line: 20, function: '<module>' }],
    line: true,
  });
  assert.equal(parseMarker('syncscope.site:null'), 'no "stack" list');
});

// ---- Traces made by `syncscope profile` on an H200 (test/fixtures/torch/profile) --------------

const profiled = (name: string) =>
  importPytorch(gunzipSync(readFileSync(repoPath(`test/fixtures/torch/profile/${name}.profile.json.gz`))).toString());
const lineOfCall = (t: Trace, i: number) => {
  const site = callSite(t, i);
  return site?.precision === 'line' ? `${site.frame.file.split('/').pop()}:${site.frame.line}` : undefined;
};

test('syncscope profile: each wait of side_stream_sync.py names its own line, the first iteration included', () => {
  const t = profiled('side_stream_sync');
  // Read by hand: event.synchronize() is line 18, .item() 19, .cpu() 20 (a blocking copy, then a
  // stream sync), torch.cuda.synchronize() 21. Iteration 2's event wait blocked 4.93 ms.
  const lines: string[] = [];
  for (let i = 0; i < t.calls.count; i++) if (isWait(t, i)) lines.push(lineOfCall(t, i) ?? '-');
  assert.deepEqual(lines, [
    'side_stream_sync.py:9',
    ...['side_stream_sync.py:18', 'side_stream_sync.py:19', 'side_stream_sync.py:20', 'side_stream_sync.py:20'],
    ...['side_stream_sync.py:18', 'side_stream_sync.py:19', 'side_stream_sync.py:20', 'side_stream_sync.py:20'],
    ...['side_stream_sync.py:18', 'side_stream_sync.py:19', 'side_stream_sync.py:20', 'side_stream_sync.py:20'],
    'side_stream_sync.py:21',
    // The profiler's own synchronize when the launcher stops it: no frame of the user's.
    '-',
  ]);
});

test("syncscope profile: train_step.py's per-step .item() waits are at line 25, its uploads at line 20", () => {
  const t = profiled('train_step');
  const byLine = new Map<string, number[]>();
  for (let i = 0; i < t.calls.count; i++) {
    if (!isWait(t, i) || t.calls.blockedNs[i] < 1000) continue;
    const line = lineOfCall(t, i) ?? 'function only';
    byLine.set(line, [...(byLine.get(line) ?? []), Math.round(t.calls.blockedNs[i] / 1000)]);
  }
  // Read by hand from the report: ten .item() waits, of 3.2 to 4.1 ms after the first (3.42 us).
  const items = byLine.get('train_step.py:25')!;
  assert.equal(items.length, 10);
  assert.equal(items[1], 3232);
  // The first execution of a learnt line (model.cuda() at 12, the first upload at 20) has its function only.
  assert.equal(byLine.get('function only')?.length, 2);
  assert.equal(byLine.get('train_step.py:20')?.length, 9);
  assert.equal(byLine.get('train_step.py:12')?.length, 5);
});

test("syncscope profile: the copy that train_step.py's .item() launches is launched at line 25, the line that waits for it", () => {
  const t = profiled('train_step');
  const report = buildReport(t, analyze(t));
  // Read by hand: each .item() at line 25 launches a DtoH copy into pinned memory (ten in the
  // trace, one per step) and waits for it; the copy's cudaMemcpyAsync runs inside that aten::item.
  const launched = report.waits
    .filter((w) => w.releasedBy?.[0]?.name === 'Memcpy DtoH (Device -> Pinned)')
    .map((w) => {
      const s = w.releasedBy![0].source;
      return s && `${s.file.split('/').pop()}:${s.line} ${s.precision}`;
    });
  assert.equal(launched.length, 10);
  assert.deepEqual(new Set(launched), new Set(['train_step.py:25 line']));
});

const afterMarker = (line: number, ts: number) =>
  ev('user_annotation', 'syncscope.after:' + JSON.stringify({ stack: [['/home/me/train.py', line, 'loop']] }), ts, 0);

test('an after-marker gives its line to the last wait before it that has none: the first wait at a line learned from a warning', () => {
  const t = importPytorch(
    JSON.stringify({
      traceEvents: [
        ev('python_function', '/home/me/train.py(8): loop', 0, 200),
        // Line 11's first run: torch's warning teaches the launcher its line once nonzero returned.
        ev('cpu_op', 'aten::nonzero', 10, 30),
        ev('cuda_runtime', 'cudaMemcpyAsync', 12, 5, { correlation: 1 }),
        ev('cuda_runtime', 'cudaStreamSynchronize', 20, 10, { correlation: 2 }),
        afterMarker(11, 41),
        // Its second run: marked before.
        marker(11, 49),
        ev('cpu_op', 'aten::nonzero', 50, 30),
        ev('cuda_runtime', 'cudaStreamSynchronize', 60, 10, { correlation: 3 }),
        // A wait no warning follows, then line 13's first run.
        ev('cuda_runtime', 'cudaDeviceSynchronize', 100, 5, { correlation: 4 }),
        ev('cpu_op', 'aten::masked_select', 110, 30),
        ev('cuda_runtime', 'cudaStreamSynchronize', 120, 10, { correlation: 5 }),
        afterMarker(13, 150),
      ],
    }),
  );
  const waits: string[] = [];
  for (let i = 0; i < t.calls.count; i++) {
    if (!isWait(t, i)) continue;
    const s = callSite(t, i);
    waits.push(`${t.calls.begin[i] / 1000} ${str(t, t.calls.name[i])} ${s?.frame.line}:${s?.precision}`);
  }
  assert.deepEqual(waits, [
    '20 cudaStreamSynchronize 11:line',
    '60 cudaStreamSynchronize 11:line',
    '100 cudaDeviceSynchronize 8:function',
    '120 cudaStreamSynchronize 13:line',
  ]);
});

test("an empty line marker ends its thread's user code; an empty call-site marker is malformed", () => {
  const marker = (json: string) => `syncscope.site:${encodeURIComponent(json)}`;
  assert.deepEqual(parseMarker(marker('{"line":1,"stack":[]}')), { stack: [], line: true });
  assert.equal(parseMarker(marker('{"stack":[]}')), 'no "stack" list');
});

/**
 * A step as `syncscope profile` records it: the forward at line 47, `loss.backward()` at line 48
 * (its kernel launched on autograd's engine thread, tid 2, which runs no Python and has no marker),
 * `torch.cuda.synchronize()` at line 49, released by the backward kernel.
 */
function backwardStep(withBackwardFrame = true): Trace {
  const lineMarker = (line: number, ts: number) =>
    ev(
      'user_annotation',
      `syncscope.site:${JSON.stringify({ line: 1, stack: [['/home/me/train.py', line, '<module>']] })}`,
      ts,
      0,
    );
  const kernel = (name: string, ts: number, dur: number, correlation: number) => ({
    ...ev('kernel', name, ts, dur, { correlation, device: 0, stream: 7 }),
    pid: 0,
    tid: 7,
  });
  return importPytorch(
    JSON.stringify({
      traceEvents: [
        ev('python_function', '/home/me/train.py(1): <module>', 0, 1000),
        lineMarker(47, 5),
        ev('cuda_runtime', 'cudaLaunchKernel', 6, 2, { correlation: 1 }),
        lineMarker(48, 10),
        ...(withBackwardFrame ? [ev('python_function', 'torch/_tensor.py(626): backward', 11, 289)] : []),
        { ...ev('cpu_op', 'autograd::engine::evaluate_function: MmBackward0', 20, 40), tid: 2 },
        { ...ev('cuda_runtime', 'cudaLaunchKernel', 30, 2, { correlation: 2 }), tid: 2 },
        lineMarker(49, 305),
        ev('cuda_runtime', 'cudaDeviceSynchronize', 310, 90, { correlation: 3 }),
        kernel('forward_kernel', 10, 5, 1),
        kernel('mm_backward_kernel', 40, 350, 2),
      ],
    }),
  );
}

test("a launch on autograd's engine thread during backward() is at the line that called it, as a deduction", () => {
  const t = backwardStep();
  const launches = [...Array(t.calls.count).keys()].filter((i) => str(t, t.calls.name[i]) === 'cudaLaunchKernel');
  assert.deepEqual(
    launches.map((i) => [callSite(t, i)?.frame.line, callSite(t, i)?.deduced]),
    [
      [47, undefined],
      [48, "made by autograd's engine thread while this line ran backward()"],
    ],
  );
  const [wait] = buildReport(t, analyze(t)).waits;
  assert.equal(
    waitSentence(wait),
    'line 49 waited 80 µs for "mm_backward_kernel" launched at line 48' +
      " (deduced: made by autograd's engine thread while this line ran backward())",
  );
  // Without a backward() frame on a thread with lines, the engine's launch keeps no line.
  const bare = backwardStep(false);
  const engine = [...Array(bare.calls.count).keys()].filter(
    (i) => str(bare, bare.calls.name[i]) === 'cudaLaunchKernel',
  )[1];
  assert.equal(callSite(bare, engine), undefined);
});
