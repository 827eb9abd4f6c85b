// The what-if's calibration to the program's plain speed (core/whatif/calibrate.ts): a profile from
// `syncscope profile` holds the script's step timed with the profiler off, and the what-if takes the
// same time out of host work for each call and range the profiler logged there (scaling the rest only where
// that is not enough) so that the unchanged program's simulated step takes that long. loop_sync's
// profile (test/fixtures/whatif-programs, H100): its plain step, read by hand from the trace's marker,
// is 3732884 ns over 5 steps; its recorded steps (ProfilerStep#11 to #19) take 6.1 to 6.5 ms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { importPytorch } from '../../core/import/pytorch';
import { h200 } from '../../core/simulate/profile';
import { savedPerIterationNs, whatIf } from '../../core/whatif/fixes';
import { plainGpuWork, plainHostWork } from '../../core/whatif/calibrate';
import { overheadText } from '../../core/whatif/overhead';
import { scenarioFromTrace, type GeneratedStep } from '../../core/whatif/from-trace';
import { TraceBuilder } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';
import { loadTraceFile } from '../../node/trace-file';
import { recordedWindow } from '../../core/overview/window';
import { loopStepMismatch, optimizerStepsPerIteration } from '../../core/whatif/loop-step';

const loopSync = () =>
  importPytorch(gunzipSync(readFileSync(repoPath('test/fixtures/whatif-programs/loop_sync.profile.json.gz'))));

test('plainHostWork takes the time per range out of host work steps alone, then scales, on the copy it is given, never to 0 ns', () => {
  const steps: GeneratedStep[] = [
    { step: { hostWork: { ns: 1000 } }, call: -1, ranges: 3 },
    { step: { sync: 'device' }, call: 3 },
    { step: { hostWork: { ns: 500 } }, call: -1 },
    { step: { hostWork: { ns: 100 } }, call: -1, ranges: 2 },
  ];
  const th = new Map([['main', steps.slice()]]);
  plainHostWork(th, 200, 0.5);
  assert.deepEqual(
    th.get('main')!.map((s) => s.step),
    // (1000 - 3 x 200) / 2; a step without ranges is only scaled; 100 - 2 x 200 is nothing, kept at 1 ns.
    [{ hostWork: { ns: 200 } }, { sync: 'device' }, { hostWork: { ns: 250 } }, { hostWork: { ns: 1 } }],
  );
  assert.deepEqual(steps[0].step, { hostWork: { ns: 1000 } }, 'the original steps are untouched');
});

test("a profile's plain step calibrates the host work: the unchanged program's step takes it, and every fix runs at that scale", () => {
  const t = loopSync();
  assert.deepEqual(t.meta.plainStep, { ns: 3732884, steps: 5 });
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'loop-sync');
  const plain = fix.overhead.plain!;
  assert.equal(plain.plainStepNs, 3732884);
  assert.ok(plain.recordedStepNs > 6_000_000 && plain.recordedStepNs < 6_600_000, `recorded ${plain.recordedStepNs}`);
  // The ranges are enough: loop_sync logs about a thousand a step (Python calls and ops), and a few
  // µs each is what a tracer of Python calls costs.
  assert.equal(plain.hostScale, 1);
  assert.ok(plain.perRangeNs > 2000 && plain.perRangeNs < 10_000, `per range ${plain.perRangeNs}`);
  assert.ok(Math.abs(plain.calibratedStepNs - 3732884) <= 0.005 * 3732884, `calibrated ${plain.calibratedStepNs}`);
  // The calibrated step is the pace before the fix, as the saving per iteration is read.
  assert.ok(fix.pace, 'a pace');
  assert.ok(Math.abs(fix.pace.beforeNs - plain.calibratedStepNs) < 1000, `pace ${fix.pace.beforeNs}`);
  assert.match(
    overheadText(fix.overhead),
    /host work less \d\.\d+ µs per call or range the profiler logged in it so that the unchanged program's step takes 3\.7\d ms, its plain speed of 3\.73 ms/,
  );
  // Its 10 steps set a pace after the first, and the saving per iteration is read from it.
  assert.equal(savedPerIterationNs(fix), fix.pace.beforeNs - fix.pace.afterNs);
  // The same trace without its plain step is not scaled: its pace before is the recorded step.
  delete t.meta.plainStep;
  const [bare] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'loop-sync');
  assert.equal(bare.overhead.plain, undefined);
  assert.ok(Math.abs(bare.pace!.beforeNs - plain.recordedStepNs) < 1000);
});

test('the plain step is matched by the pace after the first iteration, as savings are read, not by the window over its iterations (item_every_step)', () => {
  // item_every_step's profile (H100): its plain marker, read by hand, is 5979567 ns over 5 steps,
  // timed after steps that settle. The window's first simulated step starts with the GPU idle and
  // lasts longer than the ones after it: a window averaged over its 10 steps reaches the plain step
  // with the steps after the first faster than it, and the saving of the .item() wait removed comes
  // out a third of what it is.
  const t = importPytorch(
    gunzipSync(readFileSync(repoPath('test/fixtures/whatif-programs/item_every_step.profile.json.gz'))),
  );
  assert.deepEqual(t.meta.plainStep, { ns: 5979567, steps: 5 });
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'hidden-sync');
  assert.ok(fix.pace, 'a pace');
  assert.ok(Math.abs(fix.pace.beforeNs - 5979567) <= 0.005 * 5979567, `pace before ${fix.pace.beforeNs}`);
  assert.ok(
    Math.abs(fix.overhead.plain!.calibratedStepNs - fix.pace.beforeNs) < 1000,
    `calibrated ${fix.overhead.plain!.calibratedStepNs}`,
  );
});

test('plainGpuWork scales the measured durations of kernels and copies alone, on the copy it is given, never to 0 ns', () => {
  const steps: GeneratedStep[] = [
    { step: { launch: 'gemm', stream: 's1', ns: 1000, grid: 132 }, call: 1 },
    { step: { copy: 'a', to: 'b', bytes: 4096, async: true, stream: 's1', ns: 300 }, call: 2 },
    { step: { copy: 'a', to: 'b', bytes: 4096 }, call: 3 },
    { step: { hostWork: { ns: 500 } }, call: -1 },
    { step: { launch: 'tiny', stream: 's1', ns: 1 }, call: 4 },
  ];
  const th = new Map([['main', steps.slice()]]);
  plainGpuWork(th, 0.25);
  assert.deepEqual(
    th.get('main')!.map((s) => s.step),
    [
      { launch: 'gemm', stream: 's1', ns: 250, grid: 132 },
      { copy: 'a', to: 'b', bytes: 4096, async: true, stream: 's1', ns: 75 },
      { copy: 'a', to: 'b', bytes: 4096 },
      { hostWork: { ns: 500 } },
      { launch: 'tiny', stream: 's1', ns: 1 },
    ],
  );
  assert.equal(steps[0].step.ns, 1000, 'the original steps are untouched');
});

test("plainGpuWork takes the recorder's time per op out of each op's lead, at most the lead, split over a kernel's waves", () => {
  const steps: GeneratedStep[] = [
    { step: { launch: 'gemm', stream: 's1', ns: 5000, grid: 264 }, call: 1, lead: { ns: 1000, waves: 2 } },
    { step: { launch: 'add', stream: 's1', ns: 3000 }, call: 2, lead: { ns: 100, waves: 1 } },
    {
      step: { copy: 'a', to: 'b', bytes: 4096, async: true, stream: 's1', ns: 2000 },
      call: 3,
      lead: { ns: 800, waves: 1 },
    },
    { step: { launch: 'first', stream: 's1', ns: 4000 }, call: 4 },
    { step: { hostWork: { ns: 500 } }, call: -1 },
  ];
  const th = new Map([['main', steps.slice()]]);
  plainGpuWork(th, 1, 250);
  // 5000 - 250 / 2 waves; 3000 - its whole 100 ns lead; 2000 - 250; no lead, nothing taken.
  assert.deepEqual(
    th.get('main')!.map((s) => s.step.ns ?? s.step),
    [4875, 2900, 1750, 4000, { hostWork: { ns: 500 } }],
  );
  // After the scale: (5000 x 0.5) - 125.
  const scaled = new Map([['main', steps.slice(0, 1)]]);
  plainGpuWork(scaled, 0.5, 250);
  assert.equal(scaled.get('main')![0].step.ns, 2375);
  assert.equal(steps[0].step.ns, 5000, 'the original steps are untouched');
});

test("a GPU-bound capture's calibration takes the recorder's time per op off the GPU, and its waits then come within 10% of the plain ones (compiled_step_timer)", async () => {
  // compiled_step_timer's capture (whatif-truth-fresh, H100): torch.compile with CUDA graphs, each
  // step ended by torch.cuda.synchronize(). Its plain run's marker, read by hand: a step of 5452346
  // ns, 1827320 ns of it in synchronizing calls. With the recorded GPU time, the unchanged program
  // held to its step waits 2.26 ms: the GPU work ahead of each synchronize was too long.
  const t = await loadTraceFile(
    repoPath('test/fixtures/whatif-truth-fresh/compiled_step_timer.capture.syncscope.json.gz'),
  );
  assert.equal(t.meta.plainStep?.ns, 5452346);
  assert.equal(t.meta.plainStep?.syncNs, 1827320);
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'loop-sync' && r.applied);
  const plain = fix.overhead.plain!;
  assert.equal(plain.gpuPerOpNs, 200);
  // Without the recorder's time per op taken out, 2.26 ms: 24% over.
  assert.ok(Math.abs(plain.calibratedWaitsNs! - 1827320) <= 0.1 * 1827320, `waits ${plain.calibratedWaitsNs}`);
});

test('a profile whose steps already run at their plain speed is left as recorded, its GPU work unscaled (legacy_stream)', () => {
  // legacy_stream's profile (H100, --step-on step): its plain marker, read by hand, is 2068714 ns
  // over 5 steps. Its encoder and copies serialize on the GPU with the host far ahead; once the
  // window's first step (which starts with the GPU idle) is left out, its simulated steps are no
  // slower than the plain ones, and there is nothing to take out, on the host or the GPU.
  const t = importPytorch(
    gunzipSync(readFileSync(repoPath('test/fixtures/whatif-programs/legacy_stream.profile.json.gz'))),
  );
  assert.deepEqual(t.meta.plainStep, { ns: 2068714, steps: 5 });
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'legacy-serialization');
  const plain = fix.overhead.plain!;
  assert.ok(plain.recordedStepNs < 2068714, `recorded ${plain.recordedStepNs}`);
  assert.deepEqual([plain.gpuScale, plain.perRangeNs, plain.hostScale], [1, 0, 1]);
  assert.equal(plain.calibratedStepNs, plain.recordedStepNs);
  assert.match(
    overheadText(fix.overhead),
    /the recording ran faster than the program's plain speed of 2\.07 ms per step, and nothing was taken out \(measured over 5 steps without the profiler; recorded, its step took 2\.0\d ms\)/,
  );
});

test('the plain marker is read, and a malformed one is a counted fault, not a step', () => {
  const marker = (fields: string) => ({
    ph: 'X',
    cat: 'user_annotation',
    name: `syncscope.site:${encodeURIComponent(fields)}`,
    pid: 1,
    tid: 1,
    ts: 10,
    dur: 0,
  });
  const call = {
    ph: 'X',
    cat: 'cuda_runtime',
    name: 'cudaDeviceSynchronize',
    pid: 1,
    tid: 1,
    ts: 20,
    dur: 5,
    args: {},
  };
  const read = (fields: string) =>
    importPytorch(new TextEncoder().encode(JSON.stringify({ traceEvents: [marker(fields), call] })));
  assert.deepEqual(read('{"plain":{"stepNs":2500000,"steps":5}}').meta.plainStep, { ns: 2500000, steps: 5 });
  // --step-on's step is kept with it: the loop it calibrates need not hold one optimizer step.
  assert.deepEqual(read('{"plain":{"stepNs":2500000,"steps":5,"stepOn":"train.py:40"}}').meta.plainStep, {
    ns: 2500000,
    steps: 5,
    stepOn: 'train.py:40',
  });
  for (const fields of ['{"plain":{"stepNs":-1,"steps":5}}', '{"plain":{"stepNs":2500000,"steps":5,"stepOn":7}}']) {
    const bad = read(fields);
    assert.equal(bad.meta.plainStep, undefined, fields);
    assert.ok(
      bad.meta.notes?.some((n) =>
        n.includes('"plain" is not {"stepNs": n, "steps": k} with n and k positive integers'),
      ),
      JSON.stringify(bad.meta.notes),
    );
  }
});

test('each host work step of a scenario counts the call and the ranges the profiler logged in its gap', () => {
  // Two launches 100 µs apart; three ranges (a Python call, an op, a nested op) begin between them,
  // one inside the first launch's call, and one after the second.
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0, legacyDefault: true });
  const launch = (at: number) => {
    const c = b.call({ lane: host, kind: 'launch', name: 'cudaLaunchKernel', begin: at, end: at + 5_000, stream: s });
    b.op({ lane: s, kind: 'kernel', name: 'k', start: at + 8_000, end: at + 9_000, call: c });
  };
  const range = (at: number, name: string) => b.call({ lane: host, kind: 'context', name, begin: at, end: at + 1_000 });
  launch(0);
  range(2_000, 'aten::add');
  range(30_000, 'model.py(12): forward');
  range(40_000, 'aten::mm');
  range(40_500, 'aten::addmm');
  launch(100_000);
  range(110_000, 'aten::relu');
  launch(200_000);
  const t = b.finish({ source: 'pytorch', clock: 'kineto', alignmentErrorNs: 0 });
  const steps = scenarioFromTrace(t, h200).threads.get('main')!;
  const work = steps.filter((x) => 'hostWork' in x.step);
  // The gap after each launch: the launch itself, and the ranges from its call's begin to the next
  // call's, the Python call's a fifth of one (the tracer's cost of it against an op's); the last
  // launch has no gap.
  assert.deepEqual(
    work.map((x) => x.ranges ?? 0),
    [1 + 3 + 0.2, 1 + 1],
  );
});

test("a capture's plain step calibrates it as a profile's does, where its loop's iteration can be that step", async () => {
  // item_every_step's capture (H100): its loop, found by the calls that repeat, is one optimizer
  // step, 7.6 to 7.9 ms captured; the script's plain step there was about 6 ms (its profile's plain
  // marker, read by hand: 5979567 ns over 5 steps). `syncscope capture --plain-steps` puts it in the meta.
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-programs/item_every_step.capture.syncscope.json.gz'));
  assert.equal(t.meta.plainStep, undefined);
  const hiddenSync = (r: ReturnType<typeof whatIf>) => r.find((f) => f.finding.kind === 'hidden-sync' && f.applied)!;
  const bare = hiddenSync(whatIf(t, h200, 'all'));
  assert.equal(bare.overhead.plain, undefined);
  assert.ok(bare.pace!.beforeNs > 7_500_000 && bare.pace!.beforeNs < 8_000_000, `recorded ${bare.pace!.beforeNs}`);
  t.meta.plainStep = { ns: 5979567, steps: 5 };
  const fix = hiddenSync(whatIf(t, h200, 'all'));
  const plain = fix.overhead.plain!;
  assert.ok(Math.abs(plain.calibratedStepNs - 5979567) <= 0.005 * 5979567, `calibrated ${plain.calibratedStepNs}`);
  // A capture logs no framework ranges: its cost is the one it pays for each CUDA call.
  assert.ok(plain.perRangeNs > 0 && plain.hostScale === 1, JSON.stringify(plain));
  assert.match(
    overheadText(fix.overhead),
    /per call or range the capture logged in it .* \(measured over 5 steps without the capture;/,
  );
  // Freed of the capture's cost, the host no longer trails the GPU by a third of a step: the saving
  // of the .item() removed shrinks to the GPU's idle time after each wait.
  const [saved, savedBare] = [savedPerIterationNs(fix)!, savedPerIterationNs(bare)!];
  assert.ok(saved < savedBare / 2, `${saved} against ${savedBare}`);
  // Where the stacks do not show the optimizer, a plain step a third of the loop's iteration is not
  // that step: nothing is scaled, and it says why.
  t.sites = t.sites.map((s) => ({ ...s, stack: s.stack.filter((f) => !f.file.includes('torch/optim/')) }));
  t.meta.plainStep = { ns: 2_500_000, steps: 5 };
  const unmatched = hiddenSync(whatIf(t, h200, 'all'));
  assert.equal(unmatched.overhead.plain, undefined);
  assert.match(
    overheadText(unmatched.overhead),
    /not scaled to the plain step of 2\.5 ms: an iteration of the loop found in the trace takes 7\.\d+ ms, too far from it to be the same step/,
  );
});

test("a capture's loop is the optimizer's step where its calls' stacks say each iteration holds one", async () => {
  // item_every_step's capture: each of its 60 iterations runs the script's step(), whose
  // optimizer.step() (line 49) launches the SGD kernels inside torch/optim/optimizer.py's wrapper.
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-programs/item_every_step.capture.syncscope.json.gz'));
  const rw = recordedWindow(t);
  assert.equal(rw.summary.detectedBy, 'loop');
  assert.equal(optimizerStepsPerIteration(t, rw), 1);
  // So a capture slowed far past the plain step is still scaled to it...
  assert.equal(loopStepMismatch(t, rw, 20_000_000, { ns: 5_979_567, steps: 5 }), undefined);
  // ...and a loop found over two steps is not, whatever its length.
  const pairs = {
    ...rw,
    spans: rw.spans.flatMap((s, k) => (k % 2 ? [] : [{ ...s, endNs: rw.spans[k + 1]?.endNs ?? s.endNs }])),
  };
  assert.equal(optimizerStepsPerIteration(t, pairs), 2);
  assert.equal(
    loopStepMismatch(t, pairs, 7_000_000, { ns: 5_979_567, steps: 5 }),
    'not scaled to the plain step of 5.98 ms: each iteration of the loop found in the trace holds 2 optimizer steps',
  );
  // A step the user named (--step-on) may hold any number of optimizer steps: the length alone decides.
  const epoch = { ns: 5_979_567, steps: 5, stepOn: 'train_epoch' };
  assert.match(loopStepMismatch(t, rw, 20_000_000, epoch) ?? '', /takes 20 ms, too far from it to be the same step$/);
  assert.equal(loopStepMismatch(t, pairs, 7_000_000, epoch), undefined);
  // Without stacks, the length alone decides.
  t.calls.site.fill(0);
  assert.equal(optimizerStepsPerIteration(t, rw), undefined);
  assert.equal(loopStepMismatch(t, rw, 7_900_000, { ns: 5_979_567, steps: 5 }), undefined);
});

test('a cost per call no recorder has is said to be inferred: the recording was slowed by more than its calls', () => {
  const used = (perRangeNs: number) =>
    overheadText({
      model: 'none measured',
      kind: 'capture',
      perCudaCallNs: 0,
      perRecordFunctionNs: 0,
      subtractedNs: 0,
      plain: {
        plainStepNs: 4_770_000,
        steps: 20,
        recordedStepNs: 4_940_000,
        calibratedStepNs: 4_770_000,
        perRangeNs,
        hostScale: 1,
        gpuScale: 1,
      },
    });
  // The capture costs a call a few µs (bench/results/trace-overhead.md): 7.8 µs is such a cost.
  assert.match(used(7_760), /host work less 7\.76 µs per call or range the capture logged in it so that/);
  assert.doesNotMatch(used(7_760), /inferred/);
  // 367 µs a call is no recorder's cost: the text says what it is.
  assert.match(
    used(367_000),
    /host work less 367 µs per call or range the capture logged in it \(far more than the capture costs a call: inferred from the plain step, the recording's host ran slower for more than its calls\) so that/,
  );
});
