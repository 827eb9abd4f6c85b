// A captured CUDA graph whose launches the capture did not record: its nodes are ops without a call,
// and the scenario launches them itself, in the host gap before they started, so the replay waits
// for them. Values read by hand from test/fixtures/capture/programs/graph_replay.plain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200 } from '../../core/simulate';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { replay } from '../../core/whatif/replay';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const fixture = () => loadTraceFile(repoPath('test/fixtures/capture/programs/graph_replay.plain.syncscope.json.gz'));
// A kernel's name as a scenario identifier: its first 48 characters.
const GEMM = 'sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize25';

test("a graph's nodes without a call are launched in the gap before they started, with their measured durations", async () => {
  const t = await fixture();
  const steps = scenarioFromTrace(t, h200).threads.get('main')!;
  // Call 167 (cudaDeviceSynchronize) ends at 156,822,617 ns, 35,500 ns after it began, of which the
  // model's 1.6 us is the call: the replay's call ends 33,900 ns before the trace's. Ops 12 and 13, the
  // first replay's two GEMMs on the legacy default stream, have no call; op 12 starts at 156,900,629.
  const at = steps.findIndex((s) => s.call === 167);
  assert.deepEqual(
    steps.slice(at, at + 6).map((s) => [s.call, s.op, s.step]),
    [
      [167, undefined, { deviceSync: true }],
      // until op 12's start, less the launch onto the idle stream (5 us) and the submit (1 us)
      [-1, undefined, { hostWork: { ns: 156_900_629 - (156_822_617 - 33_900) - 5000 - 1000 } }],
      // 156,900,629..159,585,287 less the 2.6 us kernel overhead; 512 blocks of 256 threads fit in one wave
      [-1, 12, { launch: GEMM, ns: 159_585_287 - 156_900_629 - 2600, grid: 512, block: 256 }],
      // op 13 queued behind op 12, and started 288 ns after it ended: its duration takes that in; a
      // further node of the same graph launch, it costs the host no call (S19)
      [-1, 13, { launch: GEMM, ns: 162_260_761 - 159_585_287 - 2600, grid: 512, block: 256, graphNode: true }],
      // the gap to call 168 (136,870 ns) and the sync's own 33,900 ns, less the host work and the
      // graph's launch above
      [-1, undefined, { hostWork: { ns: 136_870 + 33_900 - 105_912 - 5000 } }],
      [168, undefined, { streamSync: 'default' }],
    ],
  );
});

test('the replay of a graph: each stream synchronize after a replay waits for its last node', async () => {
  const t = await fixture();
  const r = replay(t, h200);
  const syncs = r.waits.filter((w) => w.name === 'cudaStreamSynchronize');
  // The host blocked 5.32, 5.26 and 5.30 ms; the graph's second GEMM (ops 13, 15, 17) ended last.
  assert.deepEqual(
    syncs.map((w) => [w.call, w.replayedBy]),
    [
      [168, 13],
      [169, 15],
      [170, 17],
    ],
  );
  for (const w of syncs) assert.ok(Math.abs(w.error) < 0.02, `call ${w.call}: ${w.error}`);
  // The capture's import named the node that started before the wait; the reason says so.
  assert.deepEqual(
    syncs.map((w) => w.measuredBy),
    [12, 14, 16],
  );
  for (const w of syncs) assert.match(w.why ?? '', /no call for the graph launch/);
});
