// The engine's threads (core/whatif/engine-threads.ts): autograd's backward pass runs on threads of
// its own, which launch with no Python frames, so a recorder slows them less than the script's
// thread. The what-if finds them by their calls' lines (each deduced: the line that ran
// backward()), measures the time the script waits in each stretch of their calls, and takes their
// recorder cost out apart, to the backward pass's plain time (meta.plainStep.backwardNs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TraceBuilder, type CallSite, type Trace } from '../../core/trace/model';
import { engineLanes, engineTimeNs } from '../../core/whatif/engine-threads';
import { plainHostWork } from '../../core/whatif/calibrate';
import type { GeneratedStep } from '../../core/whatif/from-trace';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';
import { h200 } from '../../core/simulate/profile';
import { whatIf } from '../../core/whatif/fixes';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { overheadText } from '../../core/whatif/overhead';
import { CAPTURE_CALL_NS } from '../../core/whatif/calibrate';

const frame = { file: '/w/train.py', line: 12, function: 'step' };
const own: CallSite = { frame, precision: 'line', stack: [frame] };
const deduced: CallSite = { ...own, deduced: "made by autograd's engine thread while this line ran backward()" };

/** main: launches at 0-10 and 20-30; the engine: 40-50 and 60-70; `between` (lanes main, engine); main again at 100-110. */
function handOff(between = (_b: TraceBuilder, _main: number, _engine: number): void => undefined): Trace {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const engine = b.lane({ kind: 'thread', name: 'pt_autograd_0', device: 0 });
  b.sites.push(own, deduced);
  const at = (lane: number, begin: number, site: number) =>
    b.call({ lane, kind: 'launch', begin, end: begin + 10, name: 'cudaLaunchKernel', site });
  at(main, 0, 0);
  at(main, 20, 0);
  at(engine, 40, 1);
  at(engine, 60, 1);
  between(b, main, engine);
  at(main, 100, 0);
  return b.finish({ source: 'capture' } as Trace['meta']);
}

test("the engine's lanes are those whose calls have deduced lines only", () => {
  assert.deepEqual([...engineLanes(handOff())], [1]);
});

test("the time in the engine: from the end of the script's call before each stretch to the end of the engine's last call in it", () => {
  const t = handOff();
  // The trace as its own simulation: each call is the scenario step of the same call.
  const steps: GeneratedStep[] = [0, 1, 2, 3, 4].map((call) => ({ step: { launch: 'k', stream: 's' }, call }));
  // main's call 1 ends at 30, the engine's call 3 at 70.
  assert.equal(engineTimeNs(t, steps, t), 40);
});

test("the time in the engine ends with the engine's host work after its last call, not the script's after it", () => {
  // handOff, with host work as the simulator runs it: the engine's 70-80 (up to backward()'s return),
  // the script's 80-100 (its own Python before its next call).
  const t = handOff((b, main, engine) => {
    b.call({ lane: engine, kind: 'hostWork', begin: 70, end: 80 });
    b.call({ lane: main, kind: 'hostWork', begin: 80, end: 100 });
  });
  const launch = (call: number): GeneratedStep => ({ step: { launch: 'k', stream: 's' }, call });
  const work = (engine?: true): GeneratedStep => ({
    step: { hostWork: { ns: 10 } },
    call: -1,
    ...(engine && { engine }),
  });
  // main's call 1 ends at 30, the engine's host work at 80.
  assert.equal(engineTimeNs(t, [launch(0), launch(1), launch(2), launch(3), work(true), work(), launch(6)], t), 50);
  // On a thread of its own, the engine's host work runs on until its next pass: to 150 here. The
  // stretch ends by main's next call, at 100.
  const apart = handOff((b, _main, engine) => void b.call({ lane: engine, kind: 'hostWork', begin: 70, end: 150 }));
  assert.equal(engineTimeNs(apart, [launch(0), launch(1), launch(2), launch(3), work(true), launch(5)], apart), 70);
});

test("host work between the engine's last call and the script's next is the engine's up to backward()'s return, the script's after", () => {
  // A profile with stacks: main launches at 0, runs Tensor.backward from 10 to 90 µs (the engine
  // launches at 40 and 60 µs meanwhile), then the optimizer's Python and its first launch at 100 µs.
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'python3', device: 0 });
  const engine = b.lane({ kind: 'thread', name: 'pt_autograd_0', device: 0 });
  const stream = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  b.sites.push(own, deduced);
  const launch = (lane: number, begin: number, site: number) => {
    const call = b.call({ lane, kind: 'launch', begin, end: begin + 5000, name: 'cudaLaunchKernel', site, stream });
    b.op({ lane: stream, kind: 'kernel', start: begin + 6000, end: begin + 8000, call, name: 'k' });
  };
  launch(main, 0, 0);
  b.call({ lane: main, kind: 'context', name: 'torch/_tensor.py(576): backward', begin: 10_000, end: 90_000 });
  launch(engine, 40_000, 1);
  launch(engine, 60_000, 1);
  // A range the engine's host work logged, and one of the script's after the return.
  b.call({ lane: engine, kind: 'context', name: 'aten::zeros', begin: 75_000, end: 76_000 });
  b.call({ lane: main, kind: 'context', name: 'torch/optim/optimizer.py(512): wrapper', begin: 95_000, end: 99_000 });
  launch(main, 100_000, 0);
  const t = b.finish({ source: 'pytorch' } as Trace['meta']);
  const [steps] = [...scenarioFromTrace(t, h200).threads.values()];
  // Calls in the order made: the engine's last launch is call 3, the script's next call 6.
  const afterLast = steps.slice(
    steps.findIndex((s) => s.call === 3) + 1,
    steps.findIndex((s) => s.call === 6),
  );
  const work = afterLast.filter((s) => 'hostWork' in s.step);
  // The engine's: from its call's end at 65 µs to the return at 90 µs (its launch found the stream
  // idle: the model charges the 5 µs it took, leaving no own time); the script's: the 10 µs from the
  // return to its launch.
  assert.deepEqual(
    work.map((s) => ({
      ns: (s.step.hostWork as { ns: number }).ns,
      engine: s.engine === true,
      ranges: Math.round((s.ranges ?? 0) * 10) / 10,
    })),
    [
      { ns: 25_000, engine: true, ranges: 2 },
      // The optimizer's wrapper is a Python call: its range counts a fifth of an op's.
      { ns: 10_000, engine: false, ranges: 0.2 },
    ],
  );
});

test("plainHostWork takes the engine's cost per range out of the engine's host work, the rest's out of the rest", () => {
  const steps: GeneratedStep[] = [
    { step: { hostWork: { ns: 1000 } }, call: -1, ranges: 3 },
    { step: { hostWork: { ns: 1000 } }, call: -1, ranges: 3, engine: true },
  ];
  const th = new Map([['main', steps.slice()]]);
  plainHostWork(th, 200, 1, 50);
  // 1000 - 3 x 200, and 1000 - 3 x 50.
  assert.deepEqual(
    th.get('main')!.map((s) => s.step),
    [{ hostWork: { ns: 400 } }, { hostWork: { ns: 850 } }],
  );
});

test("a capture whose plain step timed the backward pass: the engine's threads are calibrated to it apart, the script's take at least the capture's measured cost", async () => {
  // hard_negatives' capture (whatif-truth-unseen, H100). Read by hand from its meta: plain step
  // 3939799 ns over 20 steps, of which 1973431 ns in the backward pass; the capture read the stacks
  // of CPython 3.12.3. Autograd's engine thread made 211 of an iteration's 272 calls.
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-truth-unseen/hard_negatives.capture.syncscope.json.gz'));
  assert.deepEqual(t.meta.plainStep, { ns: 3939799, steps: 20, backwardNs: 1973431 });
  assert.equal(t.lanes[[...engineLanes(t)][0]].name, 'pt_autograd_0');
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'hidden-sync');
  const plain = fix.overhead.plain!;
  assert.equal(plain.backwardNs, 1973431);
  assert.ok(plain.recordedBackwardNs! > 2_500_000, `recorded ${plain.recordedBackwardNs}`);
  assert.ok(plain.enginePerRangeNs! > 0, `engine ${plain.enginePerRangeNs}`);
  // The step needs nothing more taken out of the script's thread than the capture's measured cost.
  assert.equal(plain.perRangeNs, CAPTURE_CALL_NS);
  assert.match(
    overheadText(fix.overhead),
    /on autograd's engine threads, host work less [\d.]+ µs per call or range \(its backward pass took 1\.97 ms per step without the capture, [\d.]+ ms recorded\); elsewhere host work less 5\.74 µs per call or range the capture logged in it \(the capture's measured cost per call, the least taken\)/,
  );
  // Without the backward pass's time, every thread loses the same cost per call.
  t.meta.plainStep = { ns: 3939799, steps: 20 };
  const [bare] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'hidden-sync');
  assert.equal(bare.overhead.plain!.enginePerRangeNs, undefined);
  assert.doesNotMatch(overheadText(bare.overhead), /engine/);
});

test("the engine's cost holds at the script's calibrated speed: the unchanged program's backward pass takes its plain time", async () => {
  // hard_negatives' profile (whatif-truth-waits, H100). Read by hand from its meta: plain step
  // 4239999 ns over 20 steps, of which 2191528 ns in the backward pass. The engine's time moves with
  // the script's speed: at the cost per range found with the script as recorded, the engine takes
  // about 1.67 ms once the script runs at its calibrated speed, a quarter short.
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-truth-waits/hard_negatives.profile.json.gz'));
  assert.equal(t.meta.plainStep?.ns, 4239999);
  assert.equal(t.meta.plainStep?.backwardNs, 2191528);
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'hidden-sync');
  const plain = fix.overhead.plain!;
  assert.ok(
    Math.abs(plain.calibratedBackwardNs! - 2191528) <= 0.05 * 2191528,
    `backward ${plain.calibratedBackwardNs} for 2191528`,
  );
  assert.ok(Math.abs(plain.calibratedStepNs - 4239999) <= 0.03 * 4239999, `step ${plain.calibratedStepNs}`);
  // The plain steps waited 359817 ns a step (meta.plainStep.syncNs): the unchanged program waits as
  // long once the Python after backward()'s return is the script's, not the engine's (0.22 ms when
  // the engine's time ran to the script's next call).
  assert.equal(t.meta.plainStep?.syncNs, 359817);
  assert.ok(Math.abs(plain.calibratedWaitsNs! - 359817) <= 0.05 * 359817 + 1000, `waits ${plain.calibratedWaitsNs}`);
});
