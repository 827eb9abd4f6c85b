// What a releasing op queued behind (S1: an op starts only after the op before it on its stream).
// The rule on hand-built traces, then on a real profile where every figure was read from the JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { TraceBuilder } from '../../core/trace/model';
import { queuedBehind } from '../../core/analyze/queued-behind';
import { importPytorch } from '../../core/import';
import { analyze } from '../../core/analyze';
import { buildReport } from '../../core/report';
import { waitSentence } from '../../core/analyze/describe';
import { repoPath } from '../helpers/paths';

const META = { source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 } as const;

/** One host thread and one stream; `add` puts an op on the stream, launched by a call at `launchAt`. */
function setup() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const stream = b.lane({ kind: 'stream', name: 's0', device: 0 });
  const add = (launchAt: number, start: number, end: number) => {
    const call = b.call({ lane: host, kind: 'launch', begin: launchAt, end: launchAt + 1 });
    return b.op({ lane: stream, kind: 'kernel', start, end, call });
  };
  return { b, add };
}

test('S1: a copy launched while the stream ran queues behind the op before it, and counts what ran during the wait', () => {
  const { b, add } = setup();
  add(0, 10, 50); // ended before the wait began at 60: not waited for
  add(1, 50, 100);
  const gemm = add(2, 100, 400);
  const copy = add(55, 400, 402);
  const t = b.finish(META);
  assert.deepEqual(queuedBehind(t, copy, 60), { op: gemm, ops: 2, busyNs: 40 + 300 });
});

test('S1: a releaser that ran longer within the wait than the ops ahead of it is what the host waited for', () => {
  const { b, add } = setup();
  add(0, 50, 100);
  const long = add(55, 100, 500); // queued behind 40 ns of work within the wait, then ran 400
  assert.equal(queuedBehind(b.finish(META), long, 60), undefined);
});

test('S1: an op launched after the one before it ended, or on an idle stream, queued behind nothing', () => {
  const { b, add } = setup();
  const first = add(0, 10, 50);
  const late = add(70, 72, 80); // launched at 70, after the op before it ended at 50
  const t = b.finish(META);
  assert.equal(queuedBehind(t, first, 0), undefined);
  // The op before it ran during the wait (which began at 40), yet it was launched only once that
  // op had ended: it started on its own.
  assert.equal(queuedBehind(t, late, 40), undefined);
  // The op before it ended before the wait began: the host did not wait for it.
  const { b: b2, add: add2 } = setup();
  add2(0, 10, 50);
  const copy = add2(20, 50, 52);
  assert.equal(queuedBehind(b2.finish(META), copy, 51), undefined);
});

test("train_step profile: step 2's .item() waits 3.23 ms for a 1.9 us copy queued behind 10 ops, the last AdamW's multi_tensor_apply_kernel", () => {
  const t = importPytorch(
    gunzipSync(readFileSync(repoPath('test/fixtures/torch/profile/train_step.profile.json.gz'))).toString(),
  );
  const report = buildReport(t, analyze(t));
  // Read by hand from the JSON: the second DtoH copy (correlation 2443) starts at ...166496.652 us;
  // the cudaStreamSynchronize waiting for it began at ...163266.503 us. Ten GPU ops of stream 7
  // ran in between, 3214.7 us of them within the wait, the last a multi_tensor_apply_kernel that
  // ended at ...166494.092 us, after the copy was launched at ...163251.407 us.
  const wait = report.waits.find((w) => w.blockedNs > 3.2e6 && w.blockedNs < 3.25e6)!;
  const [by] = wait.releasedBy!;
  assert.equal(by.name, 'Memcpy DtoH (Device -> Pinned)');
  const q = by.queuedBehind!;
  assert.equal(q.ops, 10);
  assert.ok(Math.abs(q.busyNs - 3214663) < 1000, `${q.busyNs}`);
  assert.match(q.name, /^void at::native::\(anonymous namespace\)::multi_tensor_apply_kernel</);
  assert.equal(q.source?.precision, 'function');
  assert.match(
    waitSentence(wait)!,
    /^line 25 waited 3\.23 ms for "Memcpy DtoH \(Device -> Pinned\)" launched at line 25, queued behind 10 ops of stream 7 \(3\.21 ms of GPU time\), the last "multi_tensor_apply_kernel<TensorListMetadata>", launched in <module> \(train_step\.py\)$/,
  );
});
