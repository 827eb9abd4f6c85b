// The overview's lines and ranked findings (core/overview/build.ts), and the one ranking that the
// report, the MCP server, the Problems panel and the findings list share (core/overview/rank.ts),
// on the H200 recordings of test/gpu/torch/programs/train_step.py:
//   20  x = batch.to("cuda", non_blocking=fix)        (a pageable copy each step)
//   25  losses.append(... loss.item())               (a stream synchronize each step)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyze } from '../../core/analyze';
import { siteProblems } from '../../core/analyze/site-lines';
import { buildOverview } from '../../core/overview/build';
import { predictSavings, windowPredictions } from '../../core/overview/predict';
import { rankFindings } from '../../core/overview/rank';
import { contextOf } from '../../core/overview/where';
import { recordedWindow } from '../../core/overview/window';
import { buildReport, formatReport } from '../../core/report';
import { h200 } from '../../core/simulate';
import { CK, str } from '../../core/trace/model';
import { loadTraceFile } from '../../node/trace-file';
import { validate } from '../helpers/json-schema';
import { repoPath } from '../helpers/paths';

const SCRIPT = '/home/dev/syncscope/test/gpu/torch/programs/train_step.py';
const load = async (path: string) => {
  const trace = await loadTraceFile(repoPath(path));
  const analysis = analyze(trace);
  trace.findings = analysis.findings;
  return { trace, analysis };
};
const PROFILED = 'test/fixtures/torch/profile/train_step.profile.json.gz';
const TRACED = 'test/fixtures/torch/programs/train_step.default.json.gz';
const CAPTURED = 'test/fixtures/capture/programs/train_step.plain.syncscope.json.gz';

test("the line that blocks longest is loss.item()'s, released by the loss's copy to the host", async () => {
  const { trace, analysis } = await load(PROFILED);
  const o = buildOverview(trace, analysis, h200);
  const [item, copy] = o.lines;
  assert.deepEqual(item.where, { file: SCRIPT, line: 25, function: '<module>', precision: 'line' });
  // One cudaStreamSynchronize per counted iteration (2 to 10).
  assert.equal(item.waits, 9);
  assert.equal(item.perIterationNs, item.blockedNs / 9);
  assert.deepEqual(item.releasedBy, {
    name: 'Memcpy DtoH (Device -> Pinned)',
    shortName: 'Memcpy DtoH (Device -> Pinned)',
    stream: 'stream 7',
    how: 'exact',
    // The copy's cudaMemcpyAsync runs inside the .item() the launcher marked at line 25.
    launch: { file: SCRIPT, line: 25, function: '<module>', precision: 'line' },
    // Read by hand: 27 ops of stream 7 ran while the host waited, the last AdamW's kernel, whose
    // launch has only its function's site in Kineto's python_function events.
    queuedBehind: {
      name: item.releasedBy!.queuedBehind!.name,
      shortName: 'multi_tensor_apply_kernel<TensorListMetadata>',
      ops: 27,
      launch: { file: 'train_step.py', line: 0, function: '<module>', precision: 'function' },
    },
  });
  assert.equal(item.releasedByText, 'released by "Memcpy DtoH (Device -> Pinned)" on stream 7');
  assert.ok(item.share > 0.99, `${item.share}`);
  assert.deepEqual(copy.where, { file: SCRIPT, line: 20, function: '<module>', precision: 'line' });
  assert.equal(copy.releasedBy?.name, 'Memcpy HtoD (Pageable -> Device)');
  assert.ok(Math.abs(o.lines.reduce((n, l) => n + l.share, 0) - 1) < 1e-9);
  // The longest wait is one of the line's: the one "show in timeline" selects.
  assert.equal(trace.calls.kind[item.longest], CK.streamSync);
});

test("waits without a line group by their op context, without the profiler's step range", async () => {
  const { trace, analysis } = await load(TRACED);
  const o = buildOverview(trace, analysis, h200);
  assert.deepEqual(
    o.lines.map((l) => [l.where, l.waits]),
    [
      [{ context: 'aten::item > aten::_local_scalar_dense' }, 9],
      [{ context: 'aten::to > aten::_to_copy > aten::copy_' }, 9],
    ],
  );
  const profiled = await loadTraceFile(repoPath(PROFILED));
  const item = [...Array(profiled.calls.count).keys()].find(
    (i) => profiled.calls.kind[i] === CK.streamSync && str(profiled, profiled.calls.context[i]).includes('aten::item'),
  )!;
  assert.equal(str(profiled, profiled.calls.context[item]), 'ProfilerStep#0 > aten::item > aten::_local_scalar_dense');
  assert.equal(contextOf(profiled, item), 'aten::item > aten::_local_scalar_dense');
});

test('the first-ranked finding is the one whatif predicts the largest saving for', async () => {
  // `syncscope whatif train_step.profile.json.gz` (the recorded window: iterations 2 to 10), until the
  // work is done: F4 pageable-async-copy 16 ms (line 20's 9 blocking copies, pinned and made
  // non-blocking), F3 hidden-sync 1.45 ms (the .item() at line 25). Removing the synchronizes frees the host by 5.49 ms, but the GPU's kernels
  // run on after it: the saving is the GPU's idle time the host then fills. F1 and F2 are the
  // model's copies before the loop (line 12, and two the profile gives no line for): outside the
  // window, no prediction, ranked after.
  const { trace, analysis } = await load(PROFILED);
  const o = buildOverview(trace, analysis, h200);
  assert.deepEqual(
    o.findings.map((f) => [f.id, f.kind]),
    [
      ['F4', 'pageable-async-copy'],
      ['F3', 'hidden-sync'],
      ['F1', 'pageable-async-copy'],
      ['F2', 'pageable-async-copy'],
    ],
  );
  const [copies, item, ...before] = o.findings;
  assert.deepEqual(
    [copies, item].map((f) => Math.round(f.predictedSavingNs! / 1e4)),
    [1603, 145],
  );
  // Per iteration, from the pace of the window's iterations after its first (`syncscope whatif` on
  // it: 1.8 ms and 181 µs): the copies' saving is steady, within 1% of the 16 ms shared over the
  // 9; the read's fix frees a GPU that the first iteration still finds idle, and saves more per
  // iteration once it runs than shared (161 µs).
  assert.deepEqual(
    [copies, item].map((f) => Math.round(f.perIterationNs! / 1e4)),
    [180, 18],
  );
  for (const f of [copies, item]) {
    assert.equal(f.isCost, false);
    assert.equal(f.noSaving, undefined);
  }
  for (const f of before) {
    assert.equal(f.predictedSavingNs, undefined);
    assert.equal(f.noSaving, 'cannot apply: its copies are not in the scenario (its calls are outside the window)');
  }
  assert.equal(o.profile, 'h200');
  // F4's copies in the window are the uploads the launcher marked at line 20; its first call in the
  // window is shown.
  assert.deepEqual(copies.where, { file: SCRIPT, line: 20, function: '<module>', precision: 'line' });
  assert.ok(trace.calls.begin[copies.call!] >= o.window.beginNs);
  assert.deepEqual(item.where, { file: SCRIPT, line: 25, function: '<module>', precision: 'line' });
  assert.deepEqual(before[1].where, { file: SCRIPT, line: 12, function: '<module>', precision: 'line' });
});

test('a pageable-copy finding of an imported trace without stacks names its op context', async () => {
  const { trace, analysis } = await load(TRACED);
  const o = buildOverview(trace, analysis, h200);
  const copy = o.findings.find((f) => f.kind === 'pageable-async-copy')!;
  assert.equal(copy.id, 'F1');
  assert.deepEqual(copy.where, { context: 'aten::to > aten::_to_copy > aten::copy_' });
  const report = buildReport(trace, analysis, windowPredictions(trace, analysis, h200));
  assert.equal(report.findings[0].source, undefined);
  assert.equal(report.findings[0].context, 'aten::to > aten::_to_copy > aten::copy_');
  assert.match(
    formatReport(report),
    /\n {2}F1 warning S17 pageable-async-copy in aten::to > aten::_to_copy > aten::copy_: asynchronous HtoD copy/,
  );
});

test("a capture's findings outside the window cannot apply there, and say so; they rank after the savings", async () => {
  const { trace, analysis } = await load(CAPTURED);
  const o = buildOverview(trace, analysis, h200);
  assert.deepEqual(
    o.findings.map((f) => f.id),
    ['F6', 'F7', 'F1', 'F2', 'F3', 'F4', 'F5'],
  );
  // F1 to F5: the model's weights copied before the loop began.
  for (const f of o.findings.slice(2)) {
    assert.equal(f.predictedSavingNs, undefined);
    assert.equal(f.noSaving, 'cannot apply: its copies are not in the scenario (its calls are outside the window)');
  }
  // The capture of a program run without Python stacks: its waits have neither a line nor a context.
  assert.deepEqual(o.lines[0].where, { context: 'cudaStreamSynchronize on main' });
  assert.equal(o.lines[0].waits, 18);
});

test("above the budget the fixes are simulated over the window's first iterations that fit, and below two none is", async () => {
  const { trace, analysis } = await load(PROFILED);
  // 332 host calls in the window's 9 iterations (36 or 37 each), simulated unfixed and once per
  // finding with a fix (4): 1,660. Within 1,000: 5 iterations (5 x 37 x 5 = 925; 6 would be 1,110).
  const p = predictSavings(trace, analysis, h200, recordedWindow(trace), undefined, 1000);
  assert.equal(p.over.summary.text, 'the first 5 of its 9 iterations, iteration 2 to iteration 6');
  assert.equal(
    p.overWhy,
    "5 simulations of the window's 332 host calls exceed the budget of 1,000 simulated calls (syncscope whatif --fix simulates one over all of it)",
  );
  // F3 and F4 have an edit; F1 and F2 (the model's copies before the loop) cannot apply.
  assert.deepEqual(
    p.list.map((x) => x.perIterationNs !== undefined),
    [false, false, true, true],
  );
  // Two iterations take 2 x 37 x 5 = 370 simulated calls: below that, none is simulated.
  const none = predictSavings(trace, analysis, h200, recordedWindow(trace), undefined, 360);
  assert.equal(none.overWhy, undefined);
  for (const x of none.list) {
    assert.equal(x.predictedSavingNs, undefined);
    assert.equal(
      x.noSaving,
      "not simulated: 5 simulations of the window's 332 host calls exceed the budget of 360 simulated calls (syncscope whatif --fix simulates one)",
    );
  }
});

test('a trace with a plain step counts its calibration in the budget: a 60-step capture is simulated over 12 iterations', async () => {
  const { trace, analysis } = await load(
    'test/fixtures/whatif-truth-device-wait/ema_metrics_sync.capture.syncscope.json.gz',
  );
  // 59 iterations of 583 host calls each, 34,397 in all; 4 findings with a fix, the unfixed
  // scenario and 15 for the calibration: 20 simulations. 150,000 / 20 = 7,500 calls: 12 iterations
  // (6,996 calls), as 13 would be 7,579.
  const p = predictSavings(trace, analysis, h200, recordedWindow(trace));
  assert.equal(p.over.summary.text, 'the first 12 of its 59 iterations, iteration 1 to iteration 12');
  assert.equal(
    p.overWhy,
    "20 simulations of the window's 34,397 host calls (15 of them for the calibration to the plain step) exceed the budget of 150,000 simulated calls (syncscope whatif --fix simulates one over all of it)",
  );
  // The device-wide wait's fix over the whole window saves 271 µs an iteration
  // (bench/results/whatif-truth.md); its first 12 iterations stand for it within 10%.
  const [, , wide, loop] = p.list;
  assert.ok(Math.abs(wide.perIterationNs! - 271_000) < 27_100, `${wide.perIterationNs}`);
  assert.ok(loop.perIterationNs! > 0);
});

test('report --json carries the predictions, and meets the schema', async () => {
  const { trace, analysis } = await load(PROFILED);
  const report = buildReport(trace, analysis, windowPredictions(trace, analysis, h200));
  const json = JSON.parse(JSON.stringify(report));
  const schema = JSON.parse(readFileSync(repoPath('media/schema/report.schema.json'), 'utf8'));
  assert.deepEqual(validate(json, schema), []);
  // In the analysis's order: the two places of the model's copies before the window have none.
  assert.deepEqual(
    json.findings.map(
      (f: { predictedSavingNs?: number }) => f.predictedSavingNs && Math.round(f.predictedSavingNs / 1e4),
    ),
    [undefined, undefined, 145, 1603],
  );
  const shared = json.findings[3].predictedSavingNs / 9;
  assert.ok(Math.abs(json.findings[3].predictedSavingPerIterationNs - shared) < 0.01 * shared);
  assert.match(json.predictedOver.window, /^9 iterations, iteration 2 to iteration 10/);
  // The text lists them by saving, each with the id whatif takes.
  const text = formatReport(report);
  const ids = [...text.matchAll(/\n {2}(F\d+) warning/g)].map((m) => m[1]);
  assert.deepEqual(ids, ['F4', 'F3', 'F1', 'F2']);
  assert.match(text, /\n {6}predicted saving 16 ms \(1\.8 ms per iteration\)\n/);
});

test('ranking: savings largest first, a cost after them, then the rest by severity; ties keep the analysis order', () => {
  const ranked = rankFindings([
    { index: 0, severity: 'info' },
    { index: 1, severity: 'warning', predictedSavingNs: 5 },
    { index: 2, severity: 'error' },
    { index: 3, severity: 'error', predictedSavingNs: -40 },
    { index: 4, severity: 'info', predictedSavingNs: 90 },
    { index: 5, severity: 'warning' },
    { index: 6, severity: 'error' },
    { index: 7, severity: 'warning', predictedSavingNs: 5 },
  ]);
  assert.deepEqual(
    ranked.map((r) => r.index),
    [4, 1, 7, 3, 2, 6, 5, 0],
  );
});

test('ranking compares savings per iteration where every saving has one, else over the window', () => {
  // F1 saves more over the window (its first iteration gains most), F2 more each iteration after it.
  const items = [
    { index: 0, severity: 'warning' as const, predictedSavingNs: 1_470_000, perIterationNs: 163_000 },
    { index: 1, severity: 'warning' as const, predictedSavingNs: 1_450_000, perIterationNs: 181_000 },
    { index: 2, severity: 'error' as const },
  ];
  assert.deepEqual(
    rankFindings(items).map((r) => r.index),
    [1, 0, 2],
  );
  // One saving without its figure per iteration (no loop): all compare over the window.
  const mixed = [items[0], { ...items[1], perIterationNs: undefined }, items[2]];
  assert.deepEqual(
    rankFindings(mixed).map((r) => r.index),
    [0, 1, 2],
  );
});

test("the Problems entries of a profiled script follow the overview's ranking", async () => {
  const { trace, analysis } = await load(PROFILED);
  const o = buildOverview(trace, analysis, h200);
  assert.deepEqual(
    siteProblems(trace, o.findings).map((p) => [p.index, p.predictedSavingNs && Math.round(p.predictedSavingNs / 1e4)]),
    [
      [3, 1603],
      [2, 145],
      [0, undefined],
      [1, undefined],
    ],
  );
  // Without predictions: by severity, then in the analysis order.
  assert.deepEqual(
    siteProblems(trace).map((p) => p.index),
    [0, 1, 2, 3],
  );
});

test("a scenario's line has no function: its label is the place alone", async () => {
  const { siteLabel } = await import('../../core/analyze/describe');
  const frame = { file: 'seed.scenario.json', line: 37, function: '' };
  assert.equal(siteLabel({ frame, precision: 'line', stack: [] }), 'seed.scenario.json:37');
  assert.equal(
    siteLabel({ frame: { ...frame, function: 'step' }, precision: 'line', stack: [] }),
    'seed.scenario.json:37 in step()',
  );
});
