// The plain steps' waits (core/whatif/plain-waits.ts, calibrate.ts's toWaits): where the sync clock
// timed how long the program without a recorder waited in synchronizing calls, the calibration
// holds those waits too, with the step kept within STEP_BAND of the plain one. hard_negatives'
// profile (test/fixtures/whatif-truth-unseen, H100): its recorded synchronize calls, read by hand from
// the trace's cuda_runtime events, are ten cudaStreamSynchronize of 7.792, 7.816, 8.459, 7.713,
// 7.648, 8.544, 8.262, 8.667, 7.849 and 7.739 µs (one per step: nonzero's read; under the profiler
// the host is slower than the GPU and hardly waits) and the profiler's closing cudaDeviceSynchronize
// of 131.231 µs. Its plain step, read from its marker, is 3864496 ns over 20 steps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h200 } from '../../core/simulate/profile';
import { CK } from '../../core/trace/kinds';
import type { Trace } from '../../core/trace/model';
import { savedPerIterationNs, whatIf } from '../../core/whatif/fixes';
import { overheadText, PLAIN_TOLERANCE, STEP_BAND } from '../../core/whatif/overhead';
import { plainEndsNs, plainWaitsNs, simulatedWaitsNs } from '../../core/whatif/plain-waits';
import { TraceBuilder } from '../../core/trace/model';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const hardNegatives = () => loadTraceFile(repoPath('test/fixtures/whatif-truth-unseen/hard_negatives.profile.json.gz'));

test('the plain waits are the script thread’s and the other threads’ together, where the sync clock ran', () => {
  assert.equal(plainWaitsNs({ ns: 10, steps: 1 }), undefined);
  assert.equal(plainWaitsNs({ ns: 10, steps: 1, syncNs: 300 }), 300);
  assert.equal(plainWaitsNs({ ns: 10, steps: 1, syncNs: 300, otherSyncNs: 40 }), 340);
});

test("a simulation's waits count cudaMemcpy, which the sync clock times too, and no other copy or call", () => {
  const t = {
    strings: ['cudaMemcpy', 'cudaMemcpyAsync', 'cudaMemcpy_v3020', 'cudaLaunchKernel', 'cudaStreamSynchronize'],
    calls: {
      kind: [CK.memcpy, CK.memcpy, CK.memcpy, CK.launch, CK.streamSync],
      begin: [0, 10, 20, 30, 40],
      name: [0, 1, 2, 3, 4],
    },
  } as unknown as Trace;
  const sim = { calls: { count: 5, begin: [0, 10, 20, 30, 40], end: [5, 17, 23, 32, 41] } } as unknown as Trace;
  const steps = [0, 1, 2, 3, 4].map((call) => ({ step: {}, call }));
  assert.equal(simulatedWaitsNs(t, steps, sim, -Infinity, 1), 5 + 3 + 1);
});

test("a simulation's waits: its synchronize calls' time, from the second iteration, per iteration", async () => {
  const t = await hardNegatives();
  // The trace read as its own simulation: each call is its own step.
  const steps = Array.from({ length: t.calls.count }, (_, i) => ({ step: {}, call: i }));
  const syncs = [...Array(t.calls.count).keys()].filter((i) => t.calls.kind[i] === CK.streamSync);
  assert.equal(syncs.length, 10);
  const all = 7792 + 7816 + 8459 + 7713 + 7648 + 8544 + 8262 + 8667 + 7849 + 7739 + 131231;
  const near = (ns: number, want: number) => assert.ok(Math.abs(ns - want) <= 11, `${ns} vs ${want}`);
  near(simulatedWaitsNs(t, steps, t as Trace, -Infinity, 1), all);
  // From the second step's read on, over the nine steps after the first.
  near(simulatedWaitsNs(t, steps, t as Trace, t.calls.begin[syncs[1]], 9), (all - 7792) / 9);
});

async function withWaits(syncNs: number | undefined) {
  const t = await hardNegatives();
  assert.deepEqual(t.meta.plainStep, { ns: 3864496, steps: 20, backwardNs: 1885969 });
  if (syncNs !== undefined) t.meta.plainStep = { ...t.meta.plainStep!, syncNs, otherSyncNs: 0 };
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'hidden-sync');
  return { fix, plain: fix.overhead.plain!, saved: savedPerIterationNs(fix)! };
}

test('waits timed without the recorder move the calibration to them, the step kept within its band', async () => {
  const none = await withWaits(undefined);
  assert.equal(none.plain.waitsNs, undefined);
  // Calibrated to the step alone, the unchanged program waits about 0.63 ms a step. Shorter plain
  // waits: the host was slower than the step alone says, and the read's wait, which the fix removes,
  // shorter; longer ones: the host faster.
  const runs = [];
  for (const waits of [300_000, 400_000, 700_000]) {
    const run = await withWaits(waits);
    const { plain, fix } = run;
    assert.equal(plain.waitsNs, waits);
    assert.ok(
      Math.abs(plain.calibratedWaitsNs! - waits) <= 0.05 * waits,
      `waits ${plain.calibratedWaitsNs} for ${waits}`,
    );
    assert.ok(Math.abs(plain.calibratedStepNs - 3864496) <= STEP_BAND * 3864496, `step ${plain.calibratedStepNs}`);
    assert.match(
      overheadText(fix.overhead),
      /waits of [\d.]+ µs per step in synchronizing calls, as the program without the profiler waited/,
    );
    runs.push(run);
  }
  const [short, shorter, longer] = [runs[0], runs[1], runs[2]];
  // The cost per range taken out grows with the plain waits, through the step's own calibration.
  const perRange = [short, shorter, none, longer].map((r) => r.plain.perRangeNs);
  assert.deepEqual(
    perRange,
    [...perRange].sort((a, b) => a - b),
    `per range ${perRange}`,
  );
  // Up to the unchanged program's own waits, each step up saves at least 15 µs a step more. Beyond
  // them, the faster host also shortens the step within its band, and the saving grows no more.
  assert.ok(shorter.saved > short.saved + 15_000, `saved ${shorter.saved} after ${short.saved}`);
  assert.ok(none.saved > shorter.saved + 15_000, `saved ${none.saved} after ${shorter.saved}`);
});

test('waits the band cannot reach: the step keeps its own fit, the waits fall short, and the text says so', async () => {
  const { plain, fix } = await withWaits(3_000_000);
  // A step moved to the band's edge to bring the waits nearer would put every saving that much off.
  assert.ok(Math.abs(plain.calibratedStepNs - 3864496) <= PLAIN_TOLERANCE * 3864496, `step ${plain.calibratedStepNs}`);
  assert.ok(plain.calibratedWaitsNs! < 3_000_000 * 0.95);
  assert.match(
    overheadText(fix.overhead),
    /its waits of [\d.]+ .s per step in synchronizing calls are not the program's without the profiler \(3 ms, timed by the sync clock\) at any cost per range that keeps the step within 3% of it/,
  );
});

/**
 * A loop on one stream, read as its own simulation (each call its own step): a launch at 0 (its
 * kernel 6 to 506 µs), the second iteration from 100 µs (a launch whose kernel runs 506 to 1006 µs,
 * a synchronize from 110 µs to 1006 µs), and a last launch at 1010 µs whose kernel runs 1016 to 1516
 * µs, after the host's last call returned at 1015 µs.
 */
function endsOfLoop() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  const launch = (at: number, start: number) => {
    const c = b.call({ lane: host, kind: 'launch', begin: at, end: at + 5000, stream: s, name: 'cudaLaunchKernel' });
    b.op({ lane: s, kind: 'kernel', start, end: start + 500_000, call: c, name: 'k' });
  };
  launch(0, 6000);
  launch(100_000, 506_000);
  b.call({ lane: host, kind: 'streamSync', begin: 110_000, end: 1_006_000, stream: s, blockedNs: 896_000 });
  launch(1_010_000, 1_016_000);
  const t = b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
  const steps = Array.from({ length: t.calls.count }, (_, i) => ({ step: {}, call: i }));
  return { t, steps };
}

test("the plain steps' ends: the launcher's last synchronize waits for the work queued after the host's last call, the first step the less by what a steady one finds queued", () => {
  const { t, steps } = endsOfLoop();
  // 1516 - 1015 µs left at the end. At the second iteration's start (100 µs) the first kernel has
  // 406 µs to run: a step begun on an idle GPU waits that much less, at most its own waits.
  assert.equal(plainEndsNs(t, steps, t, 100_000, 896_000), 501_000 - 406_000);
  assert.equal(plainEndsNs(t, steps, t, 100_000, 200_000), 501_000 - 200_000);
  // A loop that waits in no timed call has the last synchronize's wait alone.
  assert.equal(plainEndsNs(t, steps, t, 100_000, 0), 501_000);
});

test("a loop with no timed wait is held to its step alone: the sync clock's waits are the launcher's last synchronize (thread_prefetch)", async () => {
  // thread_prefetch's capture (whatif-truth-fresh, H100): its loop's only waits are pageable copies
  // (cudaMemcpyAsync, which the sync clock does not time); its plain marker, read by hand, has
  // 272681 ns per step in synchronizing calls: the launcher's last synchronize over 20 steps.
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-truth-fresh/thread_prefetch.capture.syncscope.json.gz'));
  assert.equal(t.meta.plainStep?.syncNs, 272681);
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'pageable-async-copy' && r.applied);
  assert.equal(fix.overhead.plain!.waitsNs, undefined);
  assert.equal(fix.overhead.plain!.calibratedWaitsNs, undefined);
});
