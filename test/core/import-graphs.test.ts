// CUDA graphs in Kineto traces: test/gpu/torch/programs/graph_replay.py replays a graph of two GEMMs
// three times, each replay followed by current_stream().synchronize(). Expected values were read
// by hand from the gzipped Kineto JSON (ts and dur in µs; the graph's kernels carry the
// cudaGraphLaunch's correlation id).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { importPytorch } from '../../core/import';
import { callKind, edgeKind, str, type Trace } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';

const load = (name: string): Trace =>
  importPytorch(gunzipSync(readFileSync(repoPath('test/fixtures/torch/programs', name))));

const GEMM =
  'sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas';

/** Per replay: the cudaGraphLaunch's ts, then each GEMM's ts and dur (µs). */
interface Replay {
  launch: number;
  gemms: [number, number][];
}

function graphLaunches(t: Trace): number[] {
  return [...Array(t.calls.count).keys()]
    .filter((c) => str(t, t.calls.name[c]) === 'cudaGraphLaunch')
    .sort((a, b) => t.calls.begin[a] - t.calls.begin[b]);
}

/** The launches are calls that issued both GEMMs of their replay, on the stream they ran on. */
function checkLaunches(t: Trace, replays: Replay[], first: number): number[][] {
  const ns = (us: number) => Math.round(us * 1000) - Math.round(first * 1000);
  const launches = graphLaunches(t);
  assert.deepEqual(
    launches.map((c) => t.calls.begin[c]),
    replays.map((r) => ns(r.launch)),
  );
  return launches.map((launch, k) => {
    assert.equal(callKind(t, launch), 'launch');
    const ops = [...Array(t.ops.count).keys()].filter((o) => t.ops.call[o] === launch);
    assert.deepEqual(
      ops.map((o) => [str(t, t.ops.name[o]), t.ops.start[o], t.ops.end[o] - t.ops.start[o]]),
      replays[k].gemms.map(([ts, dur]) => [GEMM, ns(ts), Math.round(dur * 1000)]),
    );
    for (const o of ops) {
      assert.equal(t.lanes[t.ops.lane[o]].name, 'stream 7');
      assert.ok(
        [...Array(t.edges.count).keys()].some(
          (e) => edgeKind(t, e) === 'launch' && t.edges.from[e] === launch && t.edges.to[e] === o,
        ),
        'a launch edge from the graph launch to each of its kernels',
      );
    }
    assert.equal(t.calls.stream[launch], t.ops.lane[ops[0]]);
    return ops;
  });
}

test("graph_replay.sync: each synchronize after a replay is released by the graph's second GEMM", () => {
  const t = load('graph_replay.sync.json.gz');
  // Times count from the earliest event: the python_function "record.py(18): <module>" at 5533737199190.678 µs.
  const first = 5533737199190.678;
  const ops = checkLaunches(
    t,
    [
      {
        launch: 5533737463229.939,
        gemms: [
          [5533737463262.409, 2682.738],
          [5533737465945.436, 2670.834],
        ],
      },
      {
        launch: 5533737468658.188,
        gemms: [
          [5533737468681.07, 2673.298],
          [5533737471354.624, 2670.45],
        ],
      },
      {
        launch: 5533737474041.598,
        gemms: [
          [5533737474051.506, 2670.835],
          [5533737476722.629, 2669.81],
        ],
      },
    ],
    first,
  );
  const syncs = [...Array(t.calls.count).keys()]
    .filter((c) => str(t, t.calls.name[c]) === 'cudaStreamSynchronize')
    .sort((a, b) => t.calls.begin[a] - t.calls.begin[b]);
  assert.equal(syncs.length, 3);
  // Each synchronize ends (ts + dur) a few µs after its replay's second GEMM: 5533737468628.567
  // against 5533737468616.27, 5533737474029.855 against 5533737474025.074, 5533737479397.489
  // against 5533737479392.439.
  assert.deepEqual(
    syncs.map((s) => t.calls.releasedBy[s]),
    ops.map(([, second]) => second),
  );
  assert.deepEqual(
    syncs.map((s) => t.calls.unblockNs[s]),
    [12_297, 4_781, 5_050],
  );
});

test('graph_replay.default: graph launches are launch calls that issued their kernels, on their stream', () => {
  const t = load('graph_replay.default.json.gz');
  // Times count from the earliest event: cudaGetDeviceCount at 5533717185415.87 µs.
  checkLaunches(
    t,
    [
      {
        launch: 5533717588724.913,
        gemms: [
          [5533717588769.468, 2696.178],
          [5533717591465.934, 2678.866],
        ],
      },
      {
        launch: 5533717594229.045,
        gemms: [
          [5533717594269.536, 2679.602],
          [5533717596949.458, 2674.195],
        ],
      },
      {
        launch: 5533717599667.101,
        gemms: [
          [5533717599694.469, 2681.426],
          [5533717602376.183, 2672.019],
        ],
      },
    ],
    5533717185415.87,
  );
});
