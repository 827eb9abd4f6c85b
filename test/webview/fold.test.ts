// A profiled Python program's host thread, folded to the user's frames: the launcher's, the
// interpreter's and the libraries' frames go to one hidden track, and what is left keeps its
// nesting. The trace is made by hand in the shape the PyTorch import gives one: Python frames and
// framework ops are context calls one depth apart, runtime calls sit at depth 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { importPytorch } from '../../core/import/pytorch';
import { Trace, TraceBuilder } from '../../core/trace/model';
import { foldPythonStacks } from '../../webview/fold';
import { buildRows, ROW_PAD, TRACK_H } from '../../webview/rows';
import { repoPath } from '../helpers/paths';
import { sampleTrace } from './sample';

/** Calls in the order of their ids: 0 launcher, 1 runpy, 2 train.py, 3 module.py, 4 model.py, 5 aten::linear, 6 launch, 7 sync. */
function profiledThread(): Trace {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'thread 922 (python3)', device: 0 });
  b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  const frame = (name: string, depth: number, begin: number, end: number) =>
    b.call({ lane: main, kind: 'context', name, depth, begin, end });
  frame('/home/dev/syncscope/dist/syncscope_profile.py(429): <module>', 0, 0, 1000);
  frame('<frozen runpy>(88): _run_code', 1, 10, 990);
  frame('/home/ada/proj/train.py(17): <module>', 2, 20, 980);
  frame('torch/nn/modules/module.py(1762): _call_impl', 3, 30, 500);
  frame('/home/ada/proj/model.py(9): forward', 4, 40, 490);
  frame('aten::linear', 5, 50, 480);
  b.call({ lane: main, kind: 'launch', name: 'cudaLaunchKernel', begin: 60, end: 70 });
  b.call({ lane: main, kind: 'streamSync', name: 'cudaStreamSynchronize', begin: 600, end: 900 });
  return b.finish({ source: 'pytorch', clock: 'host-monotonic', alignmentErrorNs: 0 });
}

test("folded, a thread keeps the user's frames, the framework ops and the runtime calls, each under the shown calls around it", () => {
  const f = foldPythonStacks(profiledThread(), new Set());
  // train.py at the top, model.py under it, aten::linear under that, the launch inside aten::linear;
  // the synchronize was made in train.py's <module>; launcher, runpy and module.py go to track 4.
  assert.deepEqual([...f.slot], [4, 4, 0, 4, 1, 2, 3, 1]);
  assert.deepEqual([...f.tracks], [5, 0]);
  assert.deepEqual([...f.hiddenSlot], [4, -1]);
  assert.deepEqual([...f.foldable], [1, 0]);
  // Six depths unfolded, four shown folded.
  assert.deepEqual([...f.saved], [2, 0]);
});

test('an unfolded thread keeps one track per depth, and still says how many folding saves', () => {
  const t = profiledThread();
  const f = foldPythonStacks(t, new Set([0]));
  assert.deepEqual([...f.slot], [0, 1, 2, 3, 4, 5, 0, 0]);
  assert.deepEqual([...f.tracks], [6, 0]);
  assert.deepEqual([...f.hiddenSlot], [-1, -1]);
  assert.deepEqual([...f.saved], [2, 0]);
});

test('a trace without Python frames is laid out as before', () => {
  const t = sampleTrace();
  const f = foldPythonStacks(t, new Set());
  assert.equal(f.slot, t.calls.depth);
  assert.ok(f.foldable.every((x) => x === 0));
});

test("the folded thread's row has its shown tracks only; the hidden one takes no room and the stream follows", () => {
  const rows = buildRows(profiledThread(), new Set());
  const [host, stream] = rows.rows;
  assert.deepEqual(host.fold, { folded: true, saves: 2 });
  assert.deepEqual(
    host.tracks.map((t) => [t.h, t.hidden ?? false]),
    [
      [TRACK_H, false],
      [TRACK_H, false],
      [TRACK_H, false],
      [TRACK_H, false],
      [0, true],
    ],
  );
  assert.equal(host.h, 4 * TRACK_H + 2 * ROW_PAD);
  assert.equal(stream.y, host.y + host.h + 24);
  const all = buildRows(profiledThread(), new Set(), new Set([0]));
  assert.deepEqual(all.rows[0].fold, { folded: false, saves: 2 });
  assert.equal(all.rows[0].h, 6 * TRACK_H + 2 * ROW_PAD);
});

test('a profile of a training step: its main thread folds from 20 tracks to the user code, and its GPU stream comes up', () => {
  const text = gunzipSync(readFileSync(repoPath('test/fixtures/torch/profile/train_step.profile.json.gz'))).toString();
  const t = importPytorch(text);
  const unfolded = buildRows(t, new Set(), new Set(t.lanes.map((l) => l.id)));
  const folded = buildRows(t, new Set());
  const main = (r: typeof folded) => r.rows.find((row) => row.lane.name === 'thread 922 (python3)')!;
  const visible = (r: typeof folded) => main(r).tracks.filter((tr) => tr.h > 0).length;
  // The launcher's frames are not in the trace at all (core/import/pytorch.ts): 20 tracks, of them 12 library frames.
  assert.equal(visible(unfolded), 20);
  assert.ok(visible(folded) < 12, `folded to ${visible(folded)} tracks`);
  const stream = (r: typeof folded) => r.rows.find((row) => row.lane.kind === 'stream')!.y;
  // A panel's timeline shows some 500 px: the stream is within them only folded.
  assert.ok(stream(folded) < 500, `stream at ${stream(folded)} px`);
  assert.ok(stream(unfolded) > stream(folded) + 200, `stream at ${stream(unfolded)} px`);
});
