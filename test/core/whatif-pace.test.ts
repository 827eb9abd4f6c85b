// The saving per iteration from the pace of the iterations after the first (core/whatif/pace.ts):
// the window's first iteration starts from the GPU as the recording left it, which a fixed program
// does not, so the pace is read from when the first iteration's GPU work is done to when the
// window's work is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TraceBuilder, type Trace } from '../../core/trace/model';
import type { GeneratedStep } from '../../core/whatif/from-trace';
import { doneWithWorkBefore, paceAfterFirst } from '../../core/whatif/pace';
import { savedPerIterationNs, type FixResult } from '../../core/whatif/fixes';

const meta = { source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 } as const;

/** The recorded trace: three iterations of one launch each, beginning at 0, 1000 and 2000 ns. */
function recorded(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  for (const at of [0, 1000, 2000]) {
    const c = b.call({ lane: host, kind: 'launch', begin: at, end: at + 10, stream: s });
    b.op({ lane: s, kind: 'kernel', start: at + 20, end: at + 900, call: c });
  }
  b.call({ lane: host, kind: 'streamSync', begin: 2950, end: 3000, stream: s });
  return b.finish(meta);
}

/**
 * A simulation of it: the first iteration's kernel ends at 1500 (it started late, from an idle GPU),
 * the others at 2300 and 3100; the wait, moved by the fix to the end, returns at 3200.
 */
function simulated(): { sim: Trace; steps: GeneratedStep[] } {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  const steps: GeneratedStep[] = [];
  [1500, 2300, 3100].forEach((end, k) => {
    const c = b.call({ lane: host, kind: 'launch', begin: k * 10, end: k * 10 + 5, stream: s });
    b.op({ lane: s, kind: 'kernel', start: end - 800, end, call: c });
    steps.push({ step: { launch: 'k' }, call: k });
  });
  b.call({ lane: host, kind: 'streamSync', begin: 40, end: 3200, stream: s });
  // The wait is the trace's call 3, which began in the third iteration; a moved wait keeps its call.
  steps.push({ step: { sync: 's' }, call: 3 });
  return { sim: b.finish(meta), steps };
}

test("the first iteration's work is done when its last GPU op ends; host calls, which a fix may move, are left out", () => {
  const { sim, steps } = simulated();
  assert.equal(doneWithWorkBefore(recorded(), steps, sim, 1000), 1500);
  assert.equal(doneWithWorkBefore(recorded(), steps, sim, 2000), 2300);
  // A wait of the first iteration moved to the end does not make the first iteration end there.
  steps[3] = { step: { sync: 's' }, call: 0 };
  assert.equal(doneWithWorkBefore(recorded(), steps, sim, 1000), 1500);
});

test('the pace is the time from the first iteration done to the window done, over the iterations after it', () => {
  const { sim, steps } = simulated();
  // Done at 3200 (the wait's return); the first iteration's work at 1500: 1700 ns over 2 iterations.
  assert.equal(paceAfterFirst(recorded(), steps, sim, 1000, 3), 850);
  // Two iterations leave one to set a pace: none is given.
  assert.equal(paceAfterFirst(recorded(), steps, sim, 1000, 2), undefined);
  // No op of the first iteration in the simulation: none is given.
  assert.equal(
    paceAfterFirst(
      recorded(),
      steps.map(() => undefined),
      sim,
      1000,
      3,
    ),
    undefined,
  );
});

test('the saving per iteration comes from the pace, unless the pace says the opposite of the window', () => {
  const base = {
    id: 'F1',
    finding: {} as FixResult['finding'],
    edit: 'remove 9 synchronize steps',
    applied: true,
    waits: [],
    isCost: false,
    overhead: { model: 'none measured', perCudaCallNs: 0, perRecordFunctionNs: 0, subtractedNs: 0 },
    iterations: 10,
    before: { hostNs: 0, gpuBusyNs: 0, doneNs: 41_000_000 },
    after: { hostNs: 0, gpuBusyNs: 0, doneNs: 30_000_000 },
  };
  // 11 ms over the window; at the pace after the first, 4.1 ms before and 2.9 ms after.
  assert.equal(savedPerIterationNs({ ...base, pace: { beforeNs: 4_100_000, afterNs: 2_900_000 } }), 1_200_000);
  // No pace: the window's saving shared over its 10 iterations.
  assert.equal(savedPerIterationNs(base), 1_100_000);
  // A pace 1.6 µs slower after a fix that saves 4.14 µs over the window: the shared 414 ns.
  const tiny = { ...base, after: { hostNs: 0, gpuBusyNs: 0, doneNs: 41_000_000 - 4_140 } };
  assert.equal(savedPerIterationNs({ ...tiny, pace: { beforeNs: 4_100_000, afterNs: 4_101_600 } }), 414);
});
