// Which op released each host wait of a PyTorch trace whose data does not name the wait's target
// (CUDA 13: no event record; default settings: no cuda_sync events). Values read by hand from the
// recorded H200 traces in test/fixtures/torch/programs (Kineto times in µs, as in the file), and
// the whole of each trace checked against a CUPTI capture of the same program.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { analyze } from '../../core/analyze';
import { importPytorch } from '../../core/import/pytorch';
import { buildReport } from '../../core/report';
import { parseTrace, traceToJson } from '../../core/trace/json';
import { callKind, RELEASED_UNKNOWN, releaseHow, str, type Trace } from '../../core/trace/model';
import {
  checkAttribution,
  importedTrace,
  PROGRAMS,
  SETTINGS,
  summarize,
  truthTrace,
} from '../helpers/attribution-truth';
import { repoPath } from '../helpers/paths';

const us = (v: number) => Math.round(v * 1000);
/** Kineto times are rounded to ns one by one, so a difference of two is within 2 ns of the file's. */
const near = (actual: number, expectedUs: number) =>
  assert.ok(Math.abs(actual - us(expectedUs)) <= 2, `${actual} ns, expected ${us(expectedUs)}`);
/** The one call of that API whose Kineto `dur` (µs) is `durUs`. */
function callOf(t: Trace, name: string, durUs: number): number {
  const found: number[] = [];
  for (let i = 0; i < t.calls.count; i++)
    if (str(t, t.calls.name[i]) === name && t.calls.end[i] - t.calls.begin[i] === us(durUs)) found.push(i);
  assert.equal(found.length, 1, `${name} of ${durUs} µs`);
  return found[0];
}
const released = (t: Trace, call: number) => {
  const op = t.calls.releasedBy[call];
  return op < 0
    ? op
    : { name: str(t, t.ops.name[op]).slice(0, 30), stream: t.lanes[t.ops.lane[op]].name, how: releaseHow(t, call) };
};

test('deduced: .item() synchronizes the stream of the copy just before it (side_stream_sync, default settings)', () => {
  const t = importedTrace('side_stream_sync', 'default');
  // cudaStreamSynchronize ts 5533813844356.941 dur 13.129, inside aten::item > aten::_local_scalar_dense;
  // the copy before it: Memcpy DtoH (Device -> Pinned) on stream 7, ts 5533813844357.326 to 5533813844359.534.
  const call = callOf(t, 'cudaStreamSynchronize', 13.129);
  assert.deepEqual(released(t, call), { name: 'Memcpy DtoH (Device -> Pinned)', stream: 'stream 7', how: 'deduced' });
  near(t.calls.unblockNs[call], 5533813844370.07 - 5533813844359.534);
  near(t.calls.blockedNs[call], 5533813844359.534 - 5533813844356.941);
  assert.equal(t.lanes[t.calls.stream[call]].name, 'stream 7');
});

test('deduced: a device synchronize is released by the last-ending pending op of the device (streams_sync)', () => {
  const t = importedTrace('streams_sync', 'default');
  // cudaDeviceSynchronize ts 5533858792080.541 dur 2546.254; the GEMM on stream 13 ended at
  // 5533858794621.384, after stream 17's elementwise kernel (ended 5533858794066.312).
  const call = callOf(t, 'cudaDeviceSynchronize', 2546.254);
  assert.deepEqual(released(t, call), { name: 'sm80_xmma_gemm_f32f32_f32f32_f', stream: 'stream 13', how: 'deduced' });
  near(t.calls.unblockNs[call], 5533858794626.795 - 5533858794621.384);
});

test('timing: a stream sync without its stream is likely released by the one op that ended just before the host resumed', () => {
  const t = importedTrace('streams_sync', 'default');
  // cudaStreamSynchronize ts 5533858760210.047 to 5533858761919.954. Stream 13's GEMM ended at
  // 5533858761915.241; stream 17's (ts 5533858761246.828, dur 3337.136) ended after the host
  // resumed, so it was not that stream; stream 7 had nothing pending, so "nothing" stays possible.
  const call = callOf(t, 'cudaStreamSynchronize', 1709.907);
  assert.deepEqual(released(t, call), { name: 'sm80_xmma_gemm_f32f32_f32f32_f', stream: 'stream 13', how: 'timing' });
  near(t.calls.unblockNs[call], 5533858761919.954 - 5533858761915.241);
  const w = analyze(t).waits.find((x) => x.id === call)!;
  assert.equal(w.releasedBy?.[0].how, 'timing');
});

test('timing: an event sync without its record (CUDA 13) is likely released by the side stream GEMM (side_stream_sync)', () => {
  const t = importedTrace('side_stream_sync', 'default');
  // cudaEventSynchronize ts 5533813877715.545 to 5533813882762.802. Inside it ended: the first
  // GEMM on stream 13 (5533813880081.556), a kernel on stream 7 (5533813879560.311) and the second
  // GEMM on stream 13 (5533813882756.646), the only one within the bound of the return.
  const call = callOf(t, 'cudaEventSynchronize', 5047.257);
  assert.deepEqual(released(t, call), { name: 'sm80_xmma_gemm_f32f32_f32f32_f', stream: 'stream 13', how: 'timing' });
  near(t.calls.unblockNs[call], 5533813882762.802 - 5533813882756.646);
});

test('ambiguity: two streams ending just before the host resumed leave the wait unknown, with both listed', () => {
  const path = repoPath('test', 'fixtures', 'torch', 'programs', 'streams_sync.default.json.gz');
  const text = gunzipSync(readFileSync(path)).toString('utf8');
  // The second stream sync (ts 5533858761925.847, dur 5346.892) was released by stream 17's
  // GEMM, which ended 16.1 µs before the host resumed. Stream 13's GEMM (ts 5533858759228.502,
  // dur 2686.739) is made to end at 5533858767268.000, 4.7 µs before: two candidates within the bound.
  const edited = text.replace('"ts": 5533858759228.502, "dur": 2686.739', '"ts": 5533858759228.502, "dur": 8039.498');
  assert.notEqual(edited, text);
  const t = importPytorch(edited);
  const call = callOf(t, 'cudaStreamSynchronize', 5346.892);
  assert.equal(t.calls.releasedBy[call], RELEASED_UNKNOWN);
  const a = analyze(t);
  const f = a.findings.find((x) => x.kind === 'ambiguous-release' && x.calls.includes(call));
  assert.ok(f, 'an ambiguous-release finding for the wait');
  assert.deepEqual(
    f.ops.map((op) => t.lanes[t.ops.lane[op]].name),
    ['stream 17', 'stream 13'],
  );
  const w = buildReport(t, a).waits.find((x) => x.id === call)!;
  assert.equal(w.releasedBy, null);
  assert.deepEqual(
    w.candidates?.map((c) => c.stream),
    ['stream 17', 'stream 13'],
  );
});

test('suspect: an exact answer whose host resumed 2.7 ms later is flagged (CUPTI capture of graph_replay)', () => {
  const t = truthTrace('graph_replay');
  const suspect = analyze(t).findings.filter((f) => f.kind === 'suspect-release');
  // The three stream syncs after g.replay() resumed 2694.6, 2688.9 and 2688.1 µs after the GEMM
  // the capture names; the device sync before them (22.9 µs) is not flagged.
  assert.deepEqual(
    suspect.map((f) => [callKind(t, f.calls[0]), Math.round(t.calls.unblockNs[f.calls[0]] / 100) / 10]),
    [
      ['streamSync', 2694.6],
      ['streamSync', 2688.9],
      ['streamSync', 2688.1],
    ],
  );
});

test('imported streams carry no blocking flag; stream 7 of a CUDA trace is the legacy default stream', () => {
  const t = importedTrace('streams_sync', 'default');
  const streams = t.lanes.filter((l) => l.kind === 'stream');
  assert.deepEqual(
    streams.map((l) => [l.name, l.legacyDefault ?? false, l.nonBlocking]),
    [
      ['stream 7', true, undefined],
      ['stream 13', false, undefined],
      ['stream 17', false, undefined],
    ],
  );
});

test('against CUPTI captures of the same programs: >= 90% of waits over 50 µs named, >= 95% of inferred answers right', () => {
  const rows = PROGRAMS.flatMap((p) =>
    SETTINGS.map((s) => [`${p}.${s}`, summarize(checkAttribution(importedTrace(p, s), truthTrace(p)))] as const),
  );
  const sum = (k: keyof (typeof rows)[0][1]) => rows.reduce((n, [, r]) => n + r[k], 0);
  const named = sum('exact') + sum('deduced') + sum('timing');
  assert.ok(named >= 0.9 * sum('long'), `${named} of ${sum('long')} named`);
  assert.ok(sum('inferredCompared') > 0);
  assert.ok(
    sum('inferredAgree') >= 0.95 * sum('inferredCompared'),
    `${sum('inferredAgree')} of ${sum('inferredCompared')}`,
  );
  // None silently wrong: every answer the capture can check agrees with it.
  for (const [name, r] of rows) {
    assert.equal(r.inferredAgree, r.inferredCompared, `${name}: inferred answers that disagree with the capture`);
    assert.equal(r.exactAgree, r.exactCompared, `${name}: exact answers that disagree with the capture`);
  }
});

test('a saved trace keeps how each release was found; a bad "how" is a positioned error', () => {
  const t = importedTrace('streams_sync', 'default');
  const text = traceToJson(t);
  const back = parseTrace(text);
  const hows = (x: Trace) => Array.from({ length: x.calls.count }, (_, i) => releaseHow(x, i));
  assert.deepEqual(hows(back), hows(t));
  assert.ok(hows(t).includes('timing') && hows(t).includes('deduced'));
  const rows = JSON.parse(text) as { calls: { how?: string }[] };
  assert.ok(
    rows.calls.every((c) => c.how !== 'exact'),
    'exact is the absent value',
  );
  const i = rows.calls.findIndex((c) => c.how === 'timing');
  rows.calls[i].how = 'guessed';
  assert.throws(
    () => parseTrace(JSON.stringify(rows)),
    (e: Error) =>
      new RegExp(`^1:\\d+: \\$\\.calls\\[${i}\\]\\.how: got "guessed"; expected one of deduced, timing$`).test(
        e.message,
      ),
  );
});

test("timing, by the event's stream: an event sync whose record Kineto does not name (cudaEventRecordWithFlags) is the EMA stream's, like the event's other syncs", async () => {
  // bench/whatif-truth/programs/event_sync.py, profiled with cuda_sync events on torch 2.11: each
  // step ends in `ema_done.synchronize()`, recorded on the EMA's stream right after
  // `torch._foreach_lerp_`. Kineto names the event but not its record (record corr id -1). In every
  // step a kernel of the default stream also ended just before the host resumed. Read by hand, the
  // first: the sync (correlation 13348) began at 5689469893751.7 µs and took 7986.1 µs, to
  // 901737.7; a multi_tensor_apply kernel of stream 7 ended at 901695.4, the EMA's lerp on stream 13
  // at 901728.1. The event's other syncs, all settled on the EMA's stream, say which of the two it was.
  const { loadTraceFile } = await import('../../node/trace-file');
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-programs/event_sync.profile.json.gz'));
  const syncs = [...Array(t.calls.count).keys()].filter((i) => str(t, t.calls.name[i]) === 'cudaEventSynchronize');
  assert.equal(syncs.length, 10);
  // All ten blocked, 6.5 to 8.7 ms each (read by hand from their durations).
  for (const call of syncs) {
    assert.ok(t.calls.blockedNs[call] > 6_400_000, `call ${call} blocked ${t.calls.blockedNs[call]}`);
    const op = t.calls.releasedBy[call];
    assert.ok(op >= 0, `call ${call} released by ${op}`);
    assert.match(str(t, t.ops.name[op]), /multi_tensor_apply_kernel.*Lerp/);
    assert.equal(t.lanes[t.ops.lane[op]].name, 'stream 13', 'the EMA stream, not the default one');
    assert.equal(releaseHow(t, call), 'timing');
  }
  // The first ends on the lerp at 901728.1 µs: 9.7 µs before the host resumed.
  assert.equal(Math.round((t.calls.end[syncs[0]] - t.ops.end[t.calls.releasedBy[syncs[0]]]) / 100) / 10, 9.7);
});
