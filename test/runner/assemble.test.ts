import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario } from '../../core/scenario/parse';
import { EDGE_KINDS, RELEASED_NONE, str } from '../../core/trace/model';
import { assembleTrace } from '../../runner/assemble';
import { REC, RECORD_WIDTH } from '../../runner/encode';

const program = compileScenario(JSON.stringify({
  name: 'assembly',
  streams: { side: {} },
  events: { e: { timing: true } },
  steps: [
    { launch: 'a', stream: 'side', us: 100 },
    { record: 'e', stream: 'side' },
    { launch: 'b', us: 50 },
    { query: 'e' },
    { eventSync: 'e' },
    { deviceSync: true },
    { streamSync: 'side' },
  ],
}, null, 2), 'assembly.scenario.json');

/** Raw records as the addon returns them, for host and device times given in µs, with an exact clock. */
function raw(rows: Partial<Record<keyof typeof REC, number>>[]) {
  const records = new Float64Array(rows.length * RECORD_WIDTH).fill(NaN);
  rows.forEach((r, g) => {
    for (const [k, v] of Object.entries(r)) records[g * RECORD_WIDTH + REC[k as keyof typeof REC]] = k === 'done' || k === 'answer' || k === 'status' ? v : v * 1000;
  });
  // Two bursts of perfect brackets (device time = host time): offset 0, error only the event resolution.
  const burst = [0, 1, 2].flatMap((i) => [i * 1e6, i * 1e6, i * 1e6]);
  const calibration = Float64Array.from([3, ...burst, ...burst.map((x) => x + 5e6), ...burst, ...burst.map((x) => x + 5e6)]);
  return { records, calibration, device: { name: 'Test GPU', sms: 4, computeCapability: '9.0', cudaDriverVersion: 13000 } };
}

const trace = assembleTrace(program, raw([
  { hostBegin: 10, hostEnd: 14, gpuStart: 15, gpuEnd: 115, truthStart: 16, truthEnd: 114, done: 1 }, // a
  { hostBegin: 16, hostEnd: 17, gpuStart: 115, gpuEnd: 115, done: 1 }, // record e
  { hostBegin: 18, hostEnd: 22, gpuStart: 116, gpuEnd: 168, done: 1 }, // b, after a (S3)
  { hostBegin: 23, hostEnd: 23.5, answer: 2, status: 600, done: 1 }, // query: not ready
  { hostBegin: 24, hostEnd: 119, done: 1 }, // eventSync e
  { hostBegin: 120, hostEnd: 172, done: 1 }, // deviceSync
  { hostBegin: 173, hostEnd: 173.5, done: 1 }, // streamSync side: nothing pending
]));

const call = (kind: string) => [...Array(trace.calls.count).keys()].find((i) => ['launch', 'record', 'streamWait', 'query', 'eventSync', 'streamSync', 'deviceSync'][trace.calls.kind[i]] === kind)!;
const op = (name: string) => [...Array(trace.ops.count).keys()].find((i) => str(trace, trace.ops.name[i]) === name)!;

test('times start at the first call and device times map into the host clock', () => {
  assert.equal(trace.meta.source, 'gpu');
  assert.equal(trace.calls.begin[0], 0);
  assert.equal(trace.ops.start[op('a')], 5000);
  assert.equal(trace.ops.end[op('a')], 105000);
  assert.equal(trace.ops.truthStart[op('a')], 6000);
  assert.equal(trace.meta.alignmentErrorNs, 250);
});

test('S12 S16 an event synchronize is released by the record it waited for, with its unblock latency', () => {
  const c = call('eventSync');
  assert.equal(trace.calls.releasedBy[c], op('record e'));
  assert.equal(trace.calls.unblockNs[c], 119000 - 115000);
  assert.equal(trace.calls.blockedNs[c], 119000 - 24000);
});

test('S14 a device synchronize is released by the op that completed last', () => {
  const c = call('deviceSync');
  assert.equal(trace.calls.releasedBy[c], op('b'));
  assert.equal(trace.calls.unblockNs[c], 172000 - 168000);
});

test('S13 a stream synchronize with nothing pending is released by nothing', () => {
  const c = call('streamSync');
  assert.equal(trace.calls.releasedBy[c], RELEASED_NONE);
  assert.equal(trace.calls.blockedNs[c], 0);
  assert.ok(Number.isNaN(trace.calls.unblockNs[c]));
});

test('S10 a query keeps the answer the driver gave', () => {
  const c = call('query');
  assert.equal(trace.calls.answer[c], 2);
  assert.equal(str(trace, trace.calls.status[c]), 'cudaErrorNotReady');
});

test('S1 S3 edges: stream order, the legacy stream after a blocking stream, launches and releases', () => {
  const edges = [...Array(trace.edges.count).keys()].map((i) => `${EDGE_KINDS[trace.edges.kind[i]]}:${trace.edges.from[i]}->${trace.edges.to[i]}`);
  assert.ok(edges.includes(`stream:${op('a')}->${op('record e')}`));
  assert.ok(edges.includes(`legacy:${op('record e')}->${op('b')}`));
  assert.ok(edges.includes(`launch:${call('launch')}->${op('a')}`));
  assert.ok(edges.includes(`release:${op('record e')}->${call('eventSync')}`));
  assert.ok(edges.includes(`release:${op('b')}->${call('deviceSync')}`));
});
