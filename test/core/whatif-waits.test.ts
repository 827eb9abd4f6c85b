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
import { overheadText, STEP_BAND } from '../../core/whatif/overhead';
import { plainWaitsNs, simulatedWaitsNs } from '../../core/whatif/plain-waits';
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

test('waits the band cannot reach: the step stays within the band and the waits fall short, as said', async () => {
  const { plain } = await withWaits(3_000_000);
  assert.ok(Math.abs(plain.calibratedStepNs - 3864496) <= STEP_BAND * 3864496, `step ${plain.calibratedStepNs}`);
  assert.ok(plain.calibratedWaitsNs! < 3_000_000 * 0.95);
});
