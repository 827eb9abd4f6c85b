// DataLoader(pin_memory=True) moves receiving the workers' batches to the loader's pin thread
// (core/whatif/loader-receive.ts): where the plain steps timed the script's thread receiving them
// (meta.plainStep.batchReceiveNs), the pinned copies' fix takes that much host work out before each
// batch's first copy. loader_workers' capture (test/fixtures/whatif-truth-unseen, H100) copies each
// batch in two pageable copies on its first thread, "main": the images, 128 x 3 x 96 x 96 bytes, then
// the labels; its recording has no batchReceiveNs (the launcher did not time it yet), which the tests
// give it by hand. Its profile shows where each batch was handed out: in ProfilerStep#2 to #11, eleven
// `enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__` ranges on the script's thread,
// read by hand, of 1408, 1115, 1155, 1305, 945, 892, 916, 20 (the exhausted iterator's last, which
// handed out nothing), 4657, 1081 and 1828 µs; the first begins 492 µs into ProfilerStep#2, before
// the window's first CUDA call (cudaStreamIsCapturing, at 2103 µs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h200 } from '../../core/simulate/profile';
import { callSite, type Trace } from '../../core/trace/model';
import type { GeneratedScenario, GeneratedStep, Threads } from '../../core/whatif/from-trace';
import { savedPerIterationNs, whatIf } from '../../core/whatif/fixes';
import { takeOutBatchReceives } from '../../core/whatif/loader-receive';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { plainHostWork } from '../../core/whatif/calibrate';
import { overheadText } from '../../core/whatif/overhead';
import { recordedWindow, scenarioWindowOf } from '../../core/overview/window';
import { analyze } from '../../core/analyze';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const host = (ns: number): GeneratedStep => ({ step: { hostWork: { ns } }, call: -1 });
const copy = (name: string): GeneratedStep => ({ step: { copy: name, to: 'd' }, call: 1 });
const hostNs = (s: GeneratedStep) => (s.step.hostWork as { ns: number }).ns;

/** A script's first thread with two batches of two copies each, and the trace around it. */
function twoBatches(hostBefore: [number, number, number, number], receiveNs?: number) {
  const [a1, b1, a2, b2] = [copy('images'), copy('labels'), copy('images'), copy('labels')];
  const steps = [host(hostBefore[0]), a1, host(hostBefore[1]), b1, host(hostBefore[2]), a2, host(hostBefore[3]), b2];
  const th: Threads = new Map([['main', steps]]);
  const g = { laneOf: (kind: string, name: string) => (kind === 'thread' && name === 'main' ? 0 : undefined) };
  const t = {
    meta: { plainStep: { ns: 1_000_000, steps: 20, ...(receiveNs !== undefined && { batchReceiveNs: receiveNs }) } },
    lanes: [{ name: 'main' }],
    calls: { count: 0 },
  };
  return {
    th,
    steps,
    copies: new Set([a1, b1, a2, b2]),
    g: g as unknown as GeneratedScenario,
    t: t as unknown as Trace,
  };
}

test("each batch's first copy loses the receive time from the host work before it, the second copy none", () => {
  const { th, steps, copies, g, t } = twoBatches([500_000, 20_000, 400_000, 10_000], 300_000);
  assert.deepEqual(takeOutBatchReceives(g, th, t, copies, 2), { ns: 600_000, batches: 2 });
  assert.deepEqual(
    th
      .get('main')!
      .filter((s) => 'hostWork' in s.step)
      .map(hostNs),
    [200_000, 20_000, 100_000, 10_000],
  );
  // The copies themselves are the same steps.
  assert.equal(th.get('main')![1], steps[1]);
});

test('host work shorter than the receive time gives what it has, down to 1 ns, and says so in what it took', () => {
  const { th, copies, g, t } = twoBatches([150_000, 20_000, 400_000, 10_000], 300_000);
  assert.deepEqual(takeOutBatchReceives(g, th, t, copies, 2), { ns: 149_999 + 300_000, batches: 2 });
  assert.deepEqual(
    th
      .get('main')!
      .filter((s) => 'hostWork' in s.step)
      .map(hostNs),
    [1, 20_000, 100_000, 10_000],
  );
});

test('nothing is taken without a timed receive, without iterations, or on a thread that takes no batches', () => {
  for (const [receive, iterations] of [
    [undefined, 2],
    [300_000, 0],
  ] as const) {
    const { th, copies, g, t } = twoBatches([500_000, 20_000, 400_000, 10_000], receive);
    assert.deepEqual(takeOutBatchReceives(g, th, t, copies, iterations), { ns: 0, batches: 0 });
  }
  const other = twoBatches([500_000, 20_000, 400_000, 10_000], 300_000);
  (other.t.lanes[0] as { name: string }).name = 'worker thread';
  assert.deepEqual(takeOutBatchReceives(other.g, other.th, other.t, other.copies, 2), { ns: 0, batches: 0 });
});

test("loader_workers' capture: with the receive timed, the fix is the DataLoader's, and pinning saves it too, once per batch", async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-truth-unseen/loader_workers.capture.syncscope.json.gz'));
  const fixes = () =>
    analyze(t)
      .findings.filter((f) => f.kind === 'pageable-async-copy')
      .map((f) => f.fix ?? '');
  assert.match(fixes()[0], /pin the host memory/);
  const ids = 'F4+F5';
  const [before] = whatIf(t, h200, [ids]);
  assert.doesNotMatch(before.edit, /pin thread/);
  t.meta.plainStep!.batchReceiveNs = 300_000;
  // The capture shows no loader; the plain steps' receive says the first thread takes its batches.
  assert.ok(
    fixes().some((f) =>
      /^DataLoader\(pin_memory=True\).*which the predicted saving counts as the plain steps timed it/.test(f),
    ),
    fixes().join('\n'),
  );
  const [after] = whatIf(t, h200, [ids]);
  assert.match(
    after.edit,
    /^copy from pinned host memory, asynchronously, in 120 copies, and the DataLoader's pin thread receives the batches from its worker processes: [\d.]+ µs less host work for each of 60 batches/,
  );
  const grew = savedPerIterationNs(after)! - savedPerIterationNs(before)!;
  // Host work taken off a host-bound thread: the step shortens by about as much, never more.
  assert.ok(grew > 200_000 && grew <= 300_000, `the saving grew by ${grew} ns`);
});

test("loader_workers' profile: the DataLoader's fix says whether its saving counts the receive the plain steps timed", async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-truth-unseen/loader_workers.profile.json.gz'));
  const fixOf = () => analyze(t).findings.find((f) => f.kind === 'pageable-async-copy')?.fix ?? '';
  assert.match(
    fixOf(),
    /^DataLoader\(pin_memory=True\).*which the predicted saving counts only where the plain steps timed it/,
  );
  t.meta.plainStep!.batchReceiveNs = 300_000;
  assert.match(
    fixOf(),
    /^DataLoader\(pin_memory=True\).*which the predicted saving counts as the plain steps timed it/,
  );
});

test("loader_workers' profile: the host work that held a batch's receipt keeps the plain receive time through the calibration, and the fix takes it", async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-truth-unseen/loader_workers.profile.json.gz'));
  t.meta.plainStep!.batchReceiveNs = 300_000;
  const g = scenarioFromTrace(t, h200, scenarioWindowOf(recordedWindow(t)));
  const held = [...g.threads.values()].flat().filter((s) => s.receiveNs);
  // Nine batches in the scenario's gaps: the 20 µs range handed out none, the first came before its first call.
  assert.equal(
    held.reduce((n, s) => n + s.receiveNs!, 0),
    9 * 300_000,
  );
  // However much the calibration takes out per range, each keeps its batch's receive time.
  const th = new Map([...g.threads].map(([n, steps]) => [n, steps.slice()]));
  plainHostWork(th, 1e9, 1);
  for (const s of [...th.values()].flat().filter((s) => s.receiveNs))
    assert.equal((s.step.hostWork as { ns: number }).ns, 300_000);
  const [before] = (() => {
    delete t.meta.plainStep!.batchReceiveNs;
    return whatIf(t, h200, ['F1+F2']);
  })();
  t.meta.plainStep!.batchReceiveNs = 300_000;
  const [after] = whatIf(t, h200, ['F1+F2']);
  assert.match(
    after.edit,
    /: 300 µs less host work for each of 9 batches, the CPU time the plain steps spent receiving one/,
  );
  const grew = savedPerIterationNs(after)! - savedPerIterationNs(before)!;
  assert.ok(grew > 200_000 && grew <= 300_000, `the saving grew by ${grew} ns`);
  assert.equal(after.overhead.plain?.batchReceiveNs, 300_000);
  assert.match(
    overheadText(after.overhead),
    /the host work that received each DataLoader batch keeping the 300 µs the plain steps timed/,
  );
  assert.equal(before.overhead.plain?.batchReceiveNs, undefined);
});

test('plainHostWork keeps the part of host work the plain steps timed, as far as the recording held it', () => {
  const th: Threads = new Map([
    [
      'main',
      [
        { step: { hostWork: { ns: 1_000_000 } }, call: -1, ranges: 5, receiveNs: 600_000 },
        { step: { hostWork: { ns: 1_000_000 } }, call: -1, ranges: 5, receiveNs: 2_000_000 },
        { step: { hostWork: { ns: 1_000_000 } }, call: -1, ranges: 5 },
      ],
    ],
  ]);
  plainHostWork(th, 200_000, 1);
  assert.deepEqual(th.get('main')!.map(hostNs), [600_000, 1_000_000, 1]);
});

test("a recording under real torch holds the receive time the launcher measured, and the capture's fix takes it out of each of its 60 batches", async () => {
  // test/fixtures/whatif-truth-waits (H100), read by hand from the traces' plain-step markers.
  const dir = 'test/fixtures/whatif-truth-waits/loader_workers';
  const profile = await loadTraceFile(repoPath(`${dir}.profile.json.gz`));
  const capture = await loadTraceFile(repoPath(`${dir}.capture.syncscope.json.gz`));
  assert.equal(profile.meta.plainStep?.batchReceiveNs, 525_666);
  assert.equal(capture.meta.plainStep?.batchReceiveNs, 468_527);
  // The batch's two copies, lines 72 and 73 (`frames.to(dev, non_blocking=True)`, then the labels).
  const ids = analyze(capture).findings.flatMap((f, k) =>
    f.kind === 'pageable-async-copy' && [72, 73].includes(callSite(capture, f.calls[0])?.frame.line ?? 0)
      ? [`F${k + 1}`]
      : [],
  );
  assert.equal(ids.length, 2);
  const [fix] = whatIf(capture, h200, [ids.join('+')]);
  assert.match(
    fix.edit,
    /less host work for each of 60 batches, .*of the 469 µs of CPU time the plain steps spent receiving one/,
  );
});
