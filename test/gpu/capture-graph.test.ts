// A CUDA graph captured on the GPU: graph_replay.py replays a graph of two GEMMs three times, each
// replay joined by current_stream().synchronize(). The graph launch must be a call that issued both
// GEMMs, and each synchronize must be released by the graph's second GEMM, which ends last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callKind, str } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';
import { assertCaptureLibrary, capture, noCaptureTorch } from './capture/run';

/** Far above a spinning synchronize's few µs, far below a GEMM's ms: a wait released by the first GEMM fails it. */
const MAX_UNBLOCK_NS = 50_000;

test(
  "a replayed CUDA graph: each synchronize after a replay is released by the graph's second GEMM",
  { skip: noCaptureTorch },
  async (t) => {
    assertCaptureLibrary();
    const { trace } = await capture(['python3', repoPath('test/gpu/torch/programs/graph_replay.py')], 'graph_replay');
    const calls = [...Array(trace.calls.count).keys()].sort((a, b) => trace.calls.begin[a] - trace.calls.begin[b]);
    const name = (c: number) => str(trace, trace.calls.name[c]);
    const launches = calls.filter((c) => /^cu(da)?GraphLaunch/.test(name(c)));
    assert.equal(launches.length, 3, 'three graph launches recorded as calls');
    for (const launch of launches) {
      assert.equal(callKind(trace, launch), 'launch');
      const ops = [...Array(trace.ops.count).keys()].filter((o) => trace.ops.call[o] === launch);
      assert.equal(ops.length, 2, 'the graph launch issued both GEMMs');
      const [first, second] = ops.sort((a, b) => trace.ops.start[a] - trace.ops.start[b]);
      assert.ok(trace.ops.end[first] <= trace.ops.start[second]);
      const sync = calls.find(
        (c) => trace.calls.begin[c] > trace.calls.begin[launch] && callKind(trace, c) === 'streamSync',
      );
      assert.ok(sync !== undefined, 'the synchronize after the replay');
      t.diagnostic(
        `${name(launch)}: ${str(trace, trace.ops.name[second])} released ${name(sync)}, ${trace.calls.unblockNs[sync]} ns after it ended`,
      );
      assert.equal(trace.calls.releasedBy[sync], second, 'released by the second GEMM');
      assert.ok(trace.calls.unblockNs[sync] >= 0 && trace.calls.unblockNs[sync] < MAX_UNBLOCK_NS);
    }
  },
);
