// The overview's recorded window and each iteration's host and GPU time (core/overview/window.ts,
// core/overview/iteration-time.ts), on the H200 recordings of test/gpu/torch/programs/train_step.py.
// Values were read from the raw Kineto JSON with Python (ts and dur are microseconds; the import
// keeps nanoseconds, so a span is the difference of two ts times 1000, rounded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { importPytorch } from '../../core/import';
import { iterationTimes } from '../../core/overview/iteration-time';
import { overviewLines } from '../../core/overview/lines';
import { leadingWindow, recordedWindow, spanAt, WARMUP_RATIO } from '../../core/overview/window';
import { compileScenario } from '../../core/scenario/parse';
import { simulate, h200 } from '../../core/simulate';
import { CK, str, traceExtent, TraceBuilder } from '../../core/trace/model';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

interface KinetoEvent {
  ph?: string;
  cat?: string;
  name: string;
  pid?: number;
  tid?: number;
  ts: number;
  dur: number;
  args?: Record<string, unknown>;
}

const kineto = (name: string): { traceEvents: KinetoEvent[] } =>
  JSON.parse(gunzipSync(readFileSync(repoPath('test/fixtures/torch/programs', name))).toString('utf8'));
const importJson = (json: unknown) => importPytorch(new TextEncoder().encode(JSON.stringify(json)));

/** The main thread (tid 1668 in train_step.default) and its ten pageable batch copies, one per step (dur > 1 ms). */
const MAIN = 1668;
function batchCopies(events: KinetoEvent[]): KinetoEvent[] {
  return events
    .filter((e) => e.cat === 'cuda_runtime' && e.tid === MAIN && e.name === 'cudaMemcpyAsync' && e.dur > 1000)
    .sort((a, b) => a.ts - b.ts)
    .slice(-10);
}

/** The outermost op of the main thread around an event: where a step that holds it must begin. */
function outermostAround(events: KinetoEvent[], e: KinetoEvent): KinetoEvent {
  return events
    .filter((o) => o.cat === 'cpu_op' && o.tid === MAIN && o.ts <= e.ts && o.ts + o.dur >= e.ts + e.dur)
    .reduce((a, b) => (b.ts < a.ts ? b : a));
}

/**
 * train_step.default with a ProfilerStep#1..#10 range around each step, as torch.profiler's schedule
 * writes them: each from 1 us before the aten::to of its batch copy to 1 ns before the next one's, the last 8 ms
 * long; without the Optimizer.step range of step `dropOptimizerStepOf`, where given.
 */
function withProfilerSteps(dropOptimizerStepOf?: number) {
  const json = kineto('train_step.default.json.gz');
  const begins = batchCopies(json.traceEvents).map((c) => +(outermostAround(json.traceEvents, c).ts - 1).toFixed(3));
  const steps = begins.map((ts, k) => ({
    ph: 'X',
    cat: 'user_annotation',
    name: `ProfilerStep#${k + 1}`,
    pid: MAIN,
    tid: MAIN,
    ts,
    // Ending 1 ns before the next begins, as the profiler's steps never overlap.
    dur: k + 1 < begins.length ? +(begins[k + 1] - ts - 0.001).toFixed(3) : 8000,
  }));
  json.traceEvents.push(...steps);
  if (dropOptimizerStepOf !== undefined) {
    const s = steps[dropOptimizerStepOf - 1];
    json.traceEvents = json.traceEvents.filter(
      (e) => !(e.name.startsWith('Optimizer.step#') && e.ts >= s.ts && e.ts < s.ts + s.dur),
    );
  }
  return { trace: importJson(json), steps };
}

test('a loop found by its calls: train_step has ten iterations, the first left out as warm-up', async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/torch/programs/train_step.default.json.gz'));
  const { summary, spans, seen } = recordedWindow(t);
  assert.equal(summary.detectedBy, 'loop');
  // Each iteration begins with the batch copy (x = batch.to("cuda")): ten in the program's loop.
  assert.deepEqual(
    summary.labels,
    ['2', '3', '4', '5', '6', '7', '8', '9', '10'].map((k) => `iteration ${k}`),
  );
  assert.equal(seen.length, 9);
  // The first iteration ran from the copy at ts 5533957253667.427 to the next at 5533957545484.006:
  // 291.8 ms, against about 8 ms for the others (cuBLAS and autograd start-up, first allocations).
  assert.equal(summary.leftOut.length, 1);
  assert.equal(summary.leftOut[0].label, 'iteration 1');
  assert.match(summary.leftOut[0].why, /^warm-up, 36\.\dx the median iteration$/);
  assert.ok(291.8 / 8.0 > WARMUP_RATIO);
  assert.equal(
    summary.text,
    `9 iterations, iteration 2 to iteration 10, from a run of calls that repeats; iteration 1 left out: ${summary.leftOut[0].why}`,
  );
  // Iteration 2: from the copy at ts 5533957545484.006 to the next at 5533957553485.393.
  assert.equal(spans[0].endNs - spans[0].beginNs, 8_001_387);
  assert.equal(summary.beginNs, spans[0].beginNs);
  assert.equal(summary.endNs, spans[spans.length - 1].endNs);
});

test("an iteration's host time: in calls, blocked, and the rest, as read from the JSON; the GPU's busy time", async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/torch/programs/train_step.default.json.gz'));
  const rw = recordedWindow(t);
  const [it] = iterationTimes(t, rw.thread, rw.spans);
  assert.equal(it.label, 'iteration 2');
  // The 18 runtime calls of tid 1668 in it cover 5,032,365 ns (their union); the rest of the
  // 8,001,387 ns span is the program's own work. The import counts the copy as the call's own work and
  // 2,971,734 ns of the two cudaStreamSynchronize calls (dur 2963.271 and 19.944 us) as blocked.
  assert.equal(it.host.otherNs, 2_969_022);
  assert.equal(it.host.runningNs + it.host.blocked.reduce((n, b) => n + b.ns, 0), 5_032_365);
  assert.deepEqual(it.host.blocked, [{ kind: 'streamSync', ns: 2_971_734 }]);
  // Stream 7's kernels, copies and memsets in it: 31 intervals whose union is 7,459,861 ns.
  assert.deepEqual(it.gpu, [{ stream: 'stream 7', busyNs: 7_459_861, idleNs: 8_001_387 - 7_459_861 }]);
});

test("every iteration's host parts add up to its span (within 1%) on train_step, traced, profiled and captured", async () => {
  for (const file of [
    'test/fixtures/torch/programs/train_step.sync.json.gz',
    'test/fixtures/torch/profile/train_step.profile.json.gz',
    'test/fixtures/capture/programs/train_step.plain.syncscope.json.gz',
  ]) {
    const t = await loadTraceFile(repoPath(file));
    const rw = recordedWindow(t);
    const its = iterationTimes(t, rw.thread, rw.spans);
    assert.equal(its.length, 9, file);
    for (const it of its) {
      const span = it.endNs - it.beginNs;
      const parts = it.host.runningNs + it.host.otherNs + it.host.blocked.reduce((n, b) => n + b.ns, 0);
      assert.ok(Math.abs(parts - span) <= 0.01 * span, `${file} ${it.label}: ${parts} of ${span}`);
      assert.ok(it.host.runningNs >= 0 && it.host.otherNs >= 0, `${file} ${it.label}`);
      // Each step waits for its .item(): the host blocks in a stream synchronize every iteration.
      assert.ok(
        it.host.blocked.some((b) => b.kind === 'streamSync' && b.ns > 1_000_000),
        `${file} ${it.label}`,
      );
      for (const g of it.gpu) assert.equal(g.busyNs + g.idleNs, span);
    }
  }
});

test("ProfilerStep ranges are the iterations; a step 36x the median is warm-up; each step's span is its range's", () => {
  const { trace, steps } = withProfilerSteps();
  const rw = recordedWindow(trace);
  assert.equal(rw.summary.detectedBy, 'ProfilerStep');
  assert.deepEqual(
    rw.summary.labels,
    steps.slice(1).map((s) => s.name),
  );
  // 291,955.342 us over the median step's 8,023.994 us (the upper of the middle two).
  assert.equal(rw.summary.leftOut[0].why, 'warm-up, 36.4x the median step');
  assert.match(
    rw.summary.text,
    /^9 steps, ProfilerStep#2 to ProfilerStep#10, from the profiler's step markers; ProfilerStep#1 left out: warm-up, 36\.\dx the median step$/,
  );
  // ProfilerStep#5: from 1 us before its aten::to at ts 5533957569334.235 to 1 us and 1 ns before the next at 5533957577934.78.
  const five = rw.spans.find((s) => s.label === 'ProfilerStep#5')!;
  assert.equal(five.endNs - five.beginNs, 8_600_544);
  assert.equal(rw.spans[rw.spans.length - 1].endNs - rw.spans[rw.spans.length - 1].beginNs, 8_000_000);
  // Each step's waits run in its own range: one line per op context across the steps, not one per step.
  const wait = [...Array(trace.calls.count).keys()].find(
    (i) =>
      trace.calls.kind[i] === CK.streamSync &&
      trace.calls.begin[i] >= five.beginNs &&
      str(trace, trace.calls.context[i]).endsWith('aten::item > aten::_local_scalar_dense'),
  )!;
  assert.equal(str(trace, trace.calls.context[wait]), 'ProfilerStep#5 > aten::item > aten::_local_scalar_dense');
  const counted = (call: number) => spanAt(rw.spans, trace.calls.begin[call]) >= 0;
  assert.deepEqual(
    overviewLines(trace, counted, rw.spans.length).map((l) => [l.where, l.waits]),
    [
      [{ context: 'aten::item > aten::_local_scalar_dense' }, 9],
      [{ context: 'aten::to > aten::_to_copy > aten::copy_' }, 9],
    ],
  );
});

test("a step without the optimizer's step, which the others run, is left out and says so", () => {
  const { trace } = withProfilerSteps(6);
  const rw = recordedWindow(trace);
  assert.deepEqual(
    rw.summary.leftOut.map((l) => l.label),
    ['ProfilerStep#1', 'ProfilerStep#6'],
  );
  assert.equal(
    rw.summary.leftOut[1].why,
    "the optimizer's step was skipped: no Optimizer.step in it, which 9 of 10 steps run",
  );
  assert.deepEqual(
    rw.summary.labels,
    ['#2', '#3', '#4', '#5', '#7', '#8', '#9', '#10'].map((k) => `ProfilerStep${k}`),
  );
  // The skipped step lies inside the window: a saving over it is shared by the nine steps it spans.
  assert.equal(rw.seen.length, 9);
  // Its first five counted steps end at #7: the skipped #6 lies inside them, the warm-up #1 does not.
  const lead = leadingWindow(rw, 5);
  assert.deepEqual(
    lead.spans.map((s) => s.label),
    ['#2', '#3', '#4', '#5', '#7'].map((k) => `ProfilerStep${k}`),
  );
  assert.equal(lead.seen.length, 6);
  assert.deepEqual(
    lead.summary.leftOut.map((l) => l.label),
    ['ProfilerStep#6'],
  );
  assert.equal(lead.summary.text, 'the first 5 of its 8 steps, ProfilerStep#2 to ProfilerStep#7');
  assert.equal(lead.summary.endNs, rw.spans[4].endNs);
});

test('no loop and no step markers: the whole trace is one window, and the sentence says so', () => {
  const text = readFileSync(repoPath('examples/seed-side-stream-event-sync.scenario.json'), 'utf8');
  const t = simulate(compileScenario(text, 'seed.scenario.json'), h200);
  const rw = recordedWindow(t);
  const { start, end } = traceExtent(t);
  assert.equal(rw.summary.detectedBy, 'none');
  assert.deepEqual(rw.spans, [{ label: 'whole trace', beginNs: start, endNs: end }]);
  assert.match(
    rw.summary.text,
    /^no iterations found \(neither step markers nor a run of calls that repeats\): the whole trace, .+, as one window$/,
  );
});

test('calls and ops that overlap count once: in calls, blocked (the first to block keeps it) and busy', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  // A 0-100 us call blocked its last 60 us, with a call inside it (20-50 us, blocked its last 20 us) and
  // one from 90 to 130 us blocked its last 30 us; kernels from 10 to 70 and 40 to 90 us.
  b.call({ lane: host, kind: 'deviceSync', begin: 0, end: 100_000, blockedNs: 60_000 });
  b.call({ lane: host, kind: 'streamSync', begin: 20_000, end: 50_000, stream: s, blockedNs: 20_000 });
  b.call({ lane: host, kind: 'eventSync', begin: 90_000, end: 130_000, blockedNs: 30_000 });
  b.op({ lane: s, kind: 'kernel', start: 10_000, end: 70_000 });
  b.op({ lane: s, kind: 'kernel', start: 40_000, end: 90_000 });
  const t = b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
  const [it] = iterationTimes(t, host, [{ label: 'x', beginNs: 0, endNs: 150_000 }]);
  // In calls: 0 to 130 us. Blocked: 30-50 us streamSync, 40-100 us deviceSync (from 50 us on), 100-130 us eventSync.
  assert.deepEqual(it.host, {
    runningNs: 130_000 - 100_000,
    blocked: [
      { kind: 'deviceSync', ns: 50_000 },
      { kind: 'eventSync', ns: 30_000 },
      { kind: 'streamSync', ns: 20_000 },
    ],
    otherNs: 20_000,
  });
  assert.deepEqual(it.gpu, [{ stream: 's', busyNs: 80_000, idleNs: 70_000 }]);
});
