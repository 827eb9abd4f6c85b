// Replay fidelity on recorded H200 traces (docs/whatif.md): each wait below was read by hand from its
// trace file (a capture's JSON gives the call's blockedNs and releasedBy; a torch.profiler trace's
// blocked time is from the synchronize's ts to the end, ts + dur, of the kernel that released it), and
// the replay must land within 15% of it with the same releasing op.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callSite, str, type Trace } from '../../core/trace/model';
import { h200 } from '../../core/simulate/profile';
import { replay, WAIT_TOLERANCE, type Replay, type WaitReplay } from '../../core/whatif/replay';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { stepsOfSimCalls } from '../../core/whatif/origins';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const load = (path: string): Promise<Trace> => loadTraceFile(repoPath(path));

function waitOf(r: Replay, call: number): WaitReplay {
  const w = r.waits.find((x) => x.call === call);
  assert.ok(w, `call ${call} is a wait of the replay`);
  return w;
}

/** Within the bound of the measured value `ns`, and released by an op named like `name` on `stream`. */
function assertReplayed(t: Trace, w: WaitReplay, ns: number, name: RegExp, stream: string): void {
  assert.ok(Math.abs(w.measuredNs - ns) <= 1, `measured ${w.measuredNs}, read ${ns}`);
  assert.ok(
    Math.abs(w.replayedNs - ns) <= WAIT_TOLERANCE * ns,
    `call ${w.call}: replayed ${w.replayedNs} ns, measured ${ns} ns`,
  );
  assert.ok(w.replayedBy >= 0, `call ${w.call}: the replay names an op`);
  assert.match(str(t, t.ops.name[w.replayedBy]), name);
  assert.equal(t.lanes[t.ops.lane[w.replayedBy]].name, stream);
  assert.equal(w.replayedBy, w.measuredBy);
}

test('torch.profiler, default settings (CUDA 13): the side stream GEMM event synchronizes replay where they were, not on the next .item()', async () => {
  const t = await load('test/fixtures/torch/programs/side_stream_sync.default.json.gz');
  const r = replay(t, h200);
  // cudaEventSynchronize correlation 1909: ts 5533813877715.545 µs; the GEMM of correlation 1887 on
  // stream 13 ends at 5533813880082.707 + 2673.938 µs: 5,041,100 ns. Correlation 2014 and the GEMM of
  // 1996 likewise: 5,290,920 ns. The trace names no event, so the import bound each by timing.
  const syncs = r.waits.filter((w) => w.name === 'cudaEventSynchronize' && w.measuredNs > 1e6);
  assert.equal(syncs.length, 2);
  assertReplayed(t, syncs[0], 5_041_100, /^sm80_xmma_gemm_f32f32/, 'stream 13');
  assertReplayed(t, syncs[1], 5_290_920, /^sm80_xmma_gemm_f32f32/, 'stream 13');
  for (const w of syncs) assert.equal(w.inferred, 'timing');
  // The .item() after each (cudaStreamSynchronize, 6.4 and 16.8 µs in the trace) waits for nothing long.
  for (const w of syncs) {
    const item = r.waits.find((x) => x.call > w.call && x.name === 'cudaStreamSynchronize')!;
    assert.ok(item.replayedNs < 50_000, `the .item() after call ${w.call} replayed ${item.replayedNs} ns`);
  }
  // The scenario says what it inferred.
  const text = r.scenario.text;
  assert.match(text, /"streams": \{"s13":\{"nonBlocking":true\}\}/);
  assert.match(text, /stream s13 is non-blocking, deduced: the trace gives no flag/);
  assert.match(text, /"eventSync":"ev_after_op12"\}, \/\/ inferred \(timing\): the trace has no record of its event/);
  assert.match(
    text,
    /"record":"ev_after_op12","stream":"s13"\}, \/\/ inferred \(timing\): records an event after op 12/,
  );
});

test('CUPTI capture, side stream GEMM loop: each event wait replays within 15% with the same GEMM', async () => {
  const t = await load('test/fixtures/capture/programs/side_stream_sync.plain.syncscope.json.gz');
  const r = replay(t, h200);
  // The capture's JSON: call 176 blockedNs 5030540 releasedBy [16]; call 192 blockedNs 5293745 releasedBy [27].
  assertReplayed(t, waitOf(r, 176), 5_030_540, /^sm80_xmma_gemm_f32f32/, 'stream 1');
  assertReplayed(t, waitOf(r, 192), 5_293_745, /^sm80_xmma_gemm_f32f32/, 'stream 1');
  const blocked = (f: (w: WaitReplay) => number) => r.waits.reduce((n, w) => n + f(w), 0);
  const total = blocked((w) => w.measuredNs);
  assert.ok(Math.abs(blocked((w) => w.replayedNs) - total) <= 0.05 * total, 'total blocked time within 5%');
});

test('CUPTI capture, two streams of GEMMs: a GEMM queued for SMs held by the other stream replays its wait', async () => {
  const t = await load('test/fixtures/capture/programs/streams_sync.plain.syncscope.json.gz');
  const r = replay(t, h200);
  // Call 155 (stream 5) blockedNs 5319657, releasedBy [4]: op 4 follows op 3, which started at
  // 138856267, 1.0 ms after its launch returned (137841192), when op 2 on stream 1 (136835221 to
  // 139525095, 512 blocks) entered the last of its 4 waves: one block per SM of the 132.
  assertReplayed(t, waitOf(r, 155), 5_319_657, /^sm80_xmma_gemm_f32f32/, 'stream 5');
  assertReplayed(t, waitOf(r, 163), 5_318_444, /^sm80_xmma_gemm_f32f32/, 'stream 5');
  assertReplayed(t, waitOf(r, 171), 5_337_209, /^sm80_xmma_gemm_f32f32/, 'stream 5');
  const gemm = r.scenario.threads.get('main')!.find((s) => s.op === 2)!;
  assert.equal(gemm.step.blocksPerSm, 1);
  for (const it of r.iterations) assert.ok(Math.abs(it.error) <= 0.05, `${it.label} ${it.error}`);
});

test("torch.compile's CUDA graphs (capture): a node that held its stream for less than a lone launch's latency replays as long as it held it", async () => {
  const t = await load('test/fixtures/whatif-truth-fresh/compiled_step_timer.capture.syncscope.json.gz');
  const r = replay(t, h200);
  // Op 20550, triton_poi_fused__to_copy_1, a node of the graph call 12756 launched: 10611002415 to
  // 10611003982 (1567 ns), 448 ns after op 20549 before it on the stream ended (10611001967). With
  // the profile's 2.6 us latency it would hold its stream 0.6 us longer than the trace shows.
  const node = r.scenario.threads.get('main')!.find((s) => s.op === 20550)!;
  assert.deepEqual([node.step.ns, node.step.latencyNs], [1567 + 448, 0]);
  // Its op in the replay: the kernel of the simulated call that stands for that step.
  const steps = stepsOfSimCalls(r.scenario.threads, r.simulated);
  const sim = r.simulated.ops;
  const replayed = [...Array(sim.count).keys()].find((j) => sim.call[j] >= 0 && steps[sim.call[j]] === node)!;
  assert.equal(sim.end[replayed] - sim.start[replayed], 1567 + 448);
  // In the scenario as made (before the replay fits durations), every one-wave kernel with a lead
  // holds its stream for its span, its latency in or out: 1,284 of them (as op 79: 1568 ns and a
  // lead of 1050) are short alone and not with their lead.
  const made = scenarioFromTrace(t, h200).threads.get('main')!;
  const kernels = made.filter((s) => 'launch' in s.step && s.lead?.waves === 1);
  assert.ok(kernels.length > 20_000, `${kernels.length} kernels`);
  for (const s of kernels)
    assert.equal(
      (s.step.ns as number) + ((s.step.latencyNs as number | undefined) ?? h200.kernelOverheadNs),
      s.spanNs,
      `op ${s.op}`,
    );
  // Call 12756, cudaGraphLaunch, launched 114 kernels (and 12 memsets): the first node's step is the
  // graph's launch, the other 113 ride on it.
  const graph = r.scenario.threads.get('main')!.filter((s) => s.call === 12756 && 'launch' in s.step);
  assert.deepEqual(
    graph.map((s) => s.step.graphNode),
    [undefined, ...new Array(113).fill(true)],
  );
});

test('S19 CUDA graphs with the host ahead (capture): each step replays within 5%, and so does the wait for the work queued ahead', async () => {
  const t = await load('test/fixtures/graph-queue/compiled_step_timer.fixed.capture.syncscope.json.gz');
  // The capture read 76 of its 158 cudaGraphLaunch calls as waits for room in the launch queue,
  // 22,907,262 ns in all: each took no longer than the launches that did not (test/fixtures/graph-queue/README.md).
  let labelled = 0;
  for (let i = 0; i < t.calls.count; i++)
    if (str(t, t.calls.name[i]) === 'cudaGraphLaunch') labelled += t.calls.blockedNs[i];
  assert.equal(labelled, 22_907_262);
  const r = replay(t, h200);
  // Their time is the host's own in the scenario: read as waits, from the 23rd step on the host ran
  // ahead faster than it did, and 37 of the 59 steps replayed more than 5% off.
  for (const it of r.iterations) assert.ok(Math.abs(it.error) <= 0.05, `${it.label} ${it.error}`);
  // Call 37487, the event synchronize after the loop: blocked 23,282,204 ns, released by op 42513.
  assertReplayed(
    t,
    waitOf(r, 37487),
    23_282_204,
    /^at::native::{anonymous}::multi_tensor_apply_kernel/,
    'legacy default',
  );
});

test('torch.profiler, pageable copies: each copy waits for the GEMM before it, as long as the trace counted', async () => {
  const t = await load('test/fixtures/torch/programs/pageable_copy.default.json.gz');
  const r = replay(t, h200);
  // cudaMemcpyAsync correlation 1361 (call 144): ts 5533765256442.909 µs, dur 12681.683 µs; the GEMM
  // of correlation 1347 before it ends at 5533765258524.002 + 2671.026 µs. The trace counts the call
  // blocked until then, 4,752,119 ns, the rest being the host's own staging of the pageable data.
  const w = waitOf(r, 144);
  assert.equal(w.readAs, 'copy');
  assertReplayed(t, w, 4_752_119, /^sm80_xmma_gemm_f32f32/, 'stream 7');
});

test("syncscope profile, pageable copies: the staging after the release is the host's, not the wait's", async () => {
  const t = await load('test/fixtures/whatif-staging/pageable_copy.profile.json.gz');
  const r = replay(t, h200);
  // ProfilerStep#3's first cudaMemcpyAsync (correlation 1578, call 677): ts 5701391263989.155 µs; the
  // optimizer kernel before it (correlation 1560) ends at 5701391264102.138 µs, so the trace counts
  // 112,983 ns blocked. The copy itself starts 43 µs later, at 5701391264145.178: the host's staging
  // of the pageable data, which the scenario holds as host work after the call and the trace does not
  // count as blocked.
  const w = waitOf(r, 677);
  assert.equal(w.readAs, 'copy');
  assertReplayed(t, w, 112_983, /^void at::native::.*multi_tensor_apply_kernel/, 'stream 7');
  assert.ok(Math.abs(w.replayedNs - 112_983) < 0.02 * 112_983, `replayed ${w.replayedNs} ns`);
});

test('the replayed timeline reads like the trace: op names, stream names, and the user line of each wait', async () => {
  const t = await load('test/fixtures/torch/profile/side_stream_sync.profile.json.gz');
  const sim = replay(t, h200).simulated;
  const names = new Set<string>();
  for (let j = 0; j < sim.ops.count; j++) names.add(str(sim, sim.ops.name[j]));
  assert.ok(names.has('Memcpy DtoH (Device -> Pinned)'));
  assert.ok(![...names].some((n) => /^DtoH d_/.test(n)), 'no generated buffer names');
  assert.deepEqual(
    sim.lanes.map((l) => l.name),
    t.lanes.filter((l) => l.kind !== 'copyEngine').map((l) => l.name),
  );
  // done.synchronize() is line 18 of test/gpu/torch/programs/side_stream_sync.py.
  const syncs = [...Array(sim.calls.count).keys()].filter(
    (i) => str(sim, sim.calls.name[i]) === 'cudaEventSynchronize' && sim.calls.blockedNs[i] > 1e6,
  );
  assert.equal(syncs.length, 2);
  for (const i of syncs) {
    const site = callSite(sim, i);
    assert.ok(site, 'the replayed wait carries its site');
    assert.match(site.frame.file, /side_stream_sync\.py$/);
    assert.equal(site.frame.line, 18);
    assert.equal(sim.calls.line[i], 0, 'no generated scenario line');
  }
});

test('a wait the scenario cannot hold is listed as left out, not dropped', async () => {
  const t = await load('test/fixtures/torch/programs/side_stream_sync.default.json.gz');
  const g = scenarioFromTrace(t, h200);
  const r = replay(t, h200);
  const left = r.waits.filter((w) => w.leftOut);
  assert.ok(left.length > 0);
  for (const w of left) {
    assert.equal(w.replayedNs, 0);
    const step = [...g.threads.values()].flat().find((s) => s.call === w.call)!;
    assert.match(step.note!, /^left out: /);
  }
});
