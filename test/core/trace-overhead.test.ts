// The trace overhead model (core/simulate/trace-overhead.ts, core/whatif/overhead.ts): a profile may
// carry one, the what-if takes it out of the host gaps and says which it used, and without one every
// prediction says none was measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200, loadProfile, ProfileError } from '../../core/simulate';
import { TraceBuilder } from '../../core/trace/model';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { traceKindOf } from '../../core/whatif/overhead';
import { whatIf } from '../../core/whatif/fixes';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const MODEL = {
  name: 'a probe',
  kinds: { 'profiler-default': { perCudaCallNs: 1000, perRecordFunctionNs: 500 } },
};

test('a profile carries a named trace overhead model, checked field by field', () => {
  assert.equal(h200.traceOverhead, undefined);
  assert.deepEqual(loadProfile({ traceOverhead: MODEL }).traceOverhead, MODEL);
  const bad: [unknown, RegExp][] = [
    [{ kinds: {} }, /^profile\.traceOverhead\.name: expected a non-empty string/],
    [
      { name: 'x', kinds: { 'profiler-fast': {} } },
      /^profile\.traceOverhead\.kinds\.profiler-fast: unknown trace kind; kinds are profiler-default, profiler-stacks, profiler-cuda-sync, capture$/,
    ],
    [
      { name: 'x', kinds: { capture: { perCudaCallNs: -1 } } },
      /^profile\.traceOverhead\.kinds\.capture\.perCudaCallNs: expected a number of at least 0, got -1$/,
    ],
    [
      { name: 'x', kinds: { capture: { perCall: 1 } } },
      /^profile\.traceOverhead\.kinds\.capture\.perCall: unknown field; fields are perCudaCallNs, perRecordFunctionNs$/,
    ],
    [{ name: 'x', kinds: {}, extra: 1 }, /^profile\.traceOverhead\.extra: unknown field; fields are name, kinds$/],
  ];
  for (const [model, message] of bad)
    assert.throws(
      () => loadProfile({ traceOverhead: model }),
      (e: Error) => e instanceof ProfileError && message.test(e.message),
      JSON.stringify(model),
    );
});

test("each recorded trace's kind is read from its data", async () => {
  const kinds = {
    'torch/programs/side_stream_sync.default.json.gz': 'profiler-default',
    'torch/programs/side_stream_sync.stack.json.gz': 'profiler-stacks',
    'torch/programs/side_stream_sync.sync.json.gz': 'profiler-cuda-sync',
    'capture/programs/side_stream_sync.plain.syncscope.json.gz': 'capture',
  };
  for (const [file, kind] of Object.entries(kinds))
    assert.equal(traceKindOf(await loadTraceFile(repoPath('test/fixtures', file))), kind, file);
});

/** Three launches 10 µs apart (each call 5 µs), two framework ranges in the first gap: a profiler trace with default settings. */
function small() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0, legacyDefault: true, handle: 7 });
  for (const at of [0, 15_000, 30_000]) {
    const c = b.call({ lane: host, kind: 'launch', begin: at, end: at + 5000, stream: s, name: 'cudaLaunchKernel' });
    b.op({ lane: s, kind: 'kernel', start: at + 6000, end: at + 8000, call: c, name: 'k' });
  }
  for (const at of [6000, 9000]) b.call({ lane: host, kind: 'context', begin: at, end: at + 1000, name: 'aten::add' });
  return b.finish({ source: 'pytorch', clock: 'test', alignmentErrorNs: 0 });
}

test('the model is taken out of each host gap: a CUDA call and the record_function ranges in it', () => {
  const t = small();
  const gaps = (g: ReturnType<typeof scenarioFromTrace>) =>
    g.threads.get('main')!.flatMap((s) => ('hostWork' in s.step ? [(s.step.hostWork as { ns: number }).ns] : []));
  // Each gap: 10 µs to the next call; the call's 5 µs are the profile's launch onto an idle stream,
  // and the first call, which the profile charges 0.5 µs more (cold), took that much less: its gap is shorter.
  assert.deepEqual(gaps(scenarioFromTrace(t, h200)), [10_000 - 500, 10_000]);
  const g = scenarioFromTrace(t, h200, {}, { overhead: MODEL });
  assert.deepEqual(gaps(g), [10_000 - 500 - 1000 - 2 * 500, 10_000 - 1000]);
  assert.deepEqual(g.overhead, {
    model: 'a probe',
    kind: 'profiler-default',
    perCudaCallNs: 1000,
    perRecordFunctionNs: 500,
    subtractedNs: 3000,
  });
  assert.match(
    g.text,
    /host gaps less the recorder's own cost: 1000 ns per CUDA call, 500 ns per record_function \(3000 ns in all\)/,
  );
});

test('every prediction says which overhead model it used: none measured by default', async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/torch/programs/side_stream_sync.default.json.gz'));
  for (const r of whatIf(t, h200, 'all')) assert.equal(r.overhead.model, 'none measured');
  const kinds = { 'profiler-default': { perCudaCallNs: 2000, perRecordFunctionNs: 0 } };
  const measured = whatIf(t, loadProfile({ traceOverhead: { name: 'a probe', kinds } }), 'all');
  for (const r of measured) {
    assert.equal(r.overhead.model, 'a probe');
    assert.ok(r.overhead.subtractedNs > 0);
  }
});
