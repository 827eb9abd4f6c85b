// One test per SEMANTICS.md rule: each fails if the simulator breaks that rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200, loadProfile } from '../../core/simulate';
import { RELEASED_NONE, str } from '../../core/trace';
import { calls, end, hasEdge, lane, op, ops, sim, start } from './simulate-helpers';

const US = 1000;

test('S1 stream order: each op starts only after the previous op of its stream completed', () => {
  const t = sim({
    streams: { s: {} },
    steps: [
      { launch: 'long', stream: 's', us: 300 },
      { launch: 'short', stream: 's', us: 1 },
      { launch: 'grid', stream: 's', us: 5, grid: 5000 },
      { launch: 'after', stream: 's', us: 1 },
    ],
  });
  const ids = ['long', 'short', 'grid', 'after'].map((n) => op(t, n));
  for (let i = 1; i < ids.length; i++) {
    assert.ok(start(t, ids[i]) >= end(t, ids[i - 1]), `${i}: ${start(t, ids[i])} < ${end(t, ids[i - 1])}`);
    assert.ok(hasEdge(t, 'stream', ids[i - 1], ids[i]));
  }
  // The short kernel was issued long before the long one ended: only S1 held it back.
  assert.equal(start(t, ids[1]), end(t, ids[0]));
});

test('S2 kernels of two streams overlap when their grids fit, and wait for a full wave to drain', () => {
  const pair = (grid: number) => {
    const t = sim({
      streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
      steps: [
        { launch: 'k1', stream: 'a', us: 500, grid, block: 32 },
        { launch: 'k2', stream: 'b', us: 500, grid, block: 32 },
      ],
    });
    return { t, gap: start(t, op(t, 'k2')) - start(t, op(t, 'k1')), k1: op(t, 'k1') };
  };
  const slots = h200.sms * h200.blocksPerSm;
  const small = pair(slots / 4);
  assert.ok(small.gap >= 3 * US && small.gap <= 9 * US, `overlap gap ${small.gap}`);
  const wave = pair(slots);
  assert.equal(start(wave.t, op(wave.t, 'k2')), end(wave.t, wave.k1));
  assert.ok(Math.abs(wave.gap - 500 * US) < 5 * US, `one wave gap ${wave.gap}`);
  const two = pair(2 * slots);
  assert.ok(Math.abs(two.gap - 1000 * US) < 10 * US, `two waves gap ${two.gap}`);
  // Copies in opposite directions use separate engines and overlap.
  const t = sim({
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    buffers: {
      d1: { bytes: 1 << 26 },
      d2: { bytes: 1 << 26 },
      h1: { bytes: 1 << 26, host: 'pinned' },
      h2: { bytes: 1 << 26, host: 'pinned' },
    },
    steps: [
      { copy: 'h1', to: 'd1', async: true, stream: 'a' },
      { copy: 'd2', to: 'h2', async: true, stream: 'b' },
    ],
  });
  const [up, down] = [op(t, 'HtoD h1 -> d1'), op(t, 'DtoH d2 -> h2')];
  assert.ok(start(t, down) < end(t, up), 'HtoD and DtoH overlap');
});

test('S3 legacy default stream orders against blocking streams, never against non-blocking ones', () => {
  const run = (nonBlocking: boolean) =>
    sim({
      streams: { side: { nonBlocking } },
      steps: [
        { launch: 'side1', stream: 'side', us: 200 },
        { launch: 'legacy1', us: 10 },
        { launch: 'side2', stream: 'side', us: 10 },
      ],
    });
  const b = run(false);
  assert.ok(start(b, op(b, 'legacy1')) >= end(b, op(b, 'side1')), 'legacy op waits for prior blocking-stream work');
  assert.ok(start(b, op(b, 'side2')) >= end(b, op(b, 'legacy1')), 'later blocking-stream work waits for the legacy op');
  assert.ok(hasEdge(b, 'legacy', op(b, 'side1'), op(b, 'legacy1')));
  assert.ok(hasEdge(b, 'legacy', op(b, 'legacy1'), op(b, 'side2')));
  const n = run(true);
  assert.ok(start(n, op(n, 'legacy1')) < end(n, op(n, 'side1')), 'non-blocking stream overlaps the legacy stream');
  assert.ok(start(n, op(n, 'side2')) < end(n, op(n, 'legacy1')) || start(n, op(n, 'side2')) >= end(n, op(n, 'side1')));
  assert.equal(n.edges.kind.filter((k) => k === 1).length, 0, 'no legacy edges');
});

test('S4 per-thread default streams are ordered with the legacy stream only', () => {
  const t = sim({
    device: { perThreadDefaultStream: true },
    threads: {
      a: [{ launch: 'a1', us: 200 }, { hostWork: { us: 100 } }, { launch: 'viaLegacy', stream: 'legacy', us: 10 }],
      b: [{ launch: 'b1', us: 200 }],
    },
  });
  const [a1, b1, v] = [op(t, 'a1'), op(t, 'b1'), op(t, 'viaLegacy')];
  assert.notEqual(t.ops.lane[a1], t.ops.lane[b1]);
  assert.ok(t.lanes[t.ops.lane[a1]].perThreadDefault && t.lanes[t.ops.lane[b1]].perThreadDefault);
  assert.ok(start(t, b1) < end(t, a1), "the two threads' default streams overlap");
  assert.ok(start(t, v) >= Math.max(end(t, a1), end(t, b1)), 'the legacy stream waits for both');
});

test('S5 pending higher-priority work goes first at a wave boundary; running blocks are not pre-empted', () => {
  const slots = h200.sms * h200.blocksPerSm;
  const t = sim({
    streams: {
      lo: { priority: 0, nonBlocking: true },
      lo2: { priority: 0, nonBlocking: true },
      hi: { priority: -5, nonBlocking: true },
    },
    steps: [
      { launch: 'twoWaves', stream: 'lo', us: 200, grid: 2 * slots, block: 32 },
      { launch: 'lowPending', stream: 'lo2', us: 10, grid: 1 },
      { launch: 'urgent', stream: 'hi', us: 10, grid: 1 },
    ],
  });
  const [w, low, hi] = [op(t, 'twoWaves'), op(t, 'lowPending'), op(t, 'urgent')];
  const firstWaveEnd = start(t, w) + 200 * US + h200.kernelOverheadNs;
  assert.equal(start(t, hi), firstWaveEnd, 'starts when the first wave ends');
  assert.ok(start(t, hi) < end(t, w), 'does not wait for the second wave');
  assert.ok(
    start(t, low) >= end(t, w) - 200 * US - h200.kernelOverheadNs && start(t, low) > start(t, hi),
    "same-priority work waits behind the running kernel's remaining blocks",
  );
});

test('S6 a record completes when all work issued before it on its stream (and, on the legacy stream, S3 work) completed', () => {
  const t = sim({
    streams: { s: {} },
    events: { e: {}, f: {} },
    steps: [{ launch: 'k', stream: 's', us: 100 }, { record: 'e', stream: 's' }, { record: 'f' }],
  });
  const [k, e, f] = [op(t, 'k'), op(t, 'record e'), op(t, 'record f')];
  assert.equal(end(t, e), end(t, k));
  assert.equal(end(t, f), end(t, k), 'a legacy-stream record captures blocking stream work');
});

test('S7 a wait binds to the record current at the time of the call, not a later re-record', () => {
  const t = sim({
    streams: { p: { nonBlocking: true }, c: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'first', stream: 'p', us: 50 },
      { record: 'e', stream: 'p' },
      { wait: 'e', stream: 'c' },
      { launch: 'second', stream: 'p', us: 500 },
      { record: 'e', stream: 'p' },
      { launch: 'consumer', stream: 'c', us: 10 },
    ],
  });
  const [rec1, rec2] = [op(t, 'record e', 0), op(t, 'record e', 1)];
  const w = op(t, 'wait e');
  assert.ok(hasEdge(t, 'event', rec1, w));
  assert.ok(!hasEdge(t, 'event', rec2, w));
  const c = op(t, 'consumer');
  assert.ok(start(t, c) >= end(t, op(t, 'first')));
  assert.ok(start(t, c) < end(t, op(t, 'second')), 'the consumer did not wait for the re-record');
});

test('S8 a stream wait orders later work after the record and does not block the host', () => {
  const t = sim({
    streams: { p: { nonBlocking: true }, c: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'produce', stream: 'p', us: 300 },
      { record: 'e', stream: 'p' },
      { launch: 'before', stream: 'c', us: 10 },
      { wait: 'e', stream: 'c' },
      { launch: 'after', stream: 'c', us: 10 },
    ],
  });
  const wc = calls(t, 'streamWait')[0];
  assert.equal(t.calls.end[wc] - t.calls.begin[wc], h200.streamWaitNs);
  assert.equal(t.calls.blockedNs[wc], 0);
  assert.ok(start(t, op(t, 'before')) < end(t, op(t, 'produce')), 'work before the wait is not held');
  assert.ok(start(t, op(t, 'after')) >= end(t, op(t, 'record e')));
  assert.ok(t.calls.end[wc] < end(t, op(t, 'produce')), 'the host went on long before');
});

test('S9 waiting on, querying or synchronizing a never-recorded event is a no-op', () => {
  const t = sim({
    streams: { p: { nonBlocking: true }, c: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'produce', stream: 'p', us: 300 },
      { wait: 'e', stream: 'c' },
      { launch: 'consume', stream: 'c', us: 10 },
      { query: 'e' },
      { eventSync: 'e' },
      { record: 'e', stream: 'p' },
    ],
  });
  const w = op(t, 'wait e');
  assert.ok(!ops(t, 'record e').some((r) => hasEdge(t, 'event', r, w)));
  assert.ok(start(t, op(t, 'consume')) < end(t, op(t, 'produce')), 'the consumer ran without waiting');
  const q = calls(t, 'query')[0];
  assert.equal(t.calls.answer[q], 1); // 'ready'
  const s = calls(t, 'eventSync')[0];
  assert.equal(t.calls.releasedBy[s], RELEASED_NONE);
  assert.equal(t.calls.blockedNs[s], 0);
  assert.equal(t.calls.end[s] - t.calls.begin[s], h200.syncNs);
});

test('S10 a query never blocks and answers by time: notReady before the record completes, ready after', () => {
  const t = sim({
    streams: { s: {} },
    events: { e: {} },
    steps: [
      { launch: 'k', stream: 's', us: 100 },
      { record: 'e', stream: 's' },
      { query: 'e' },
      { hostWork: { us: 200 } },
      { query: 'e' },
    ],
  });
  const [q1, q2] = calls(t, 'query');
  const rec = op(t, 'record e');
  assert.ok(t.calls.begin[q1] < end(t, rec) && t.calls.begin[q2] >= end(t, rec));
  assert.equal(str(t, t.calls.status[q1]), 'cudaErrorNotReady');
  assert.deepEqual([t.calls.answer[q1], t.calls.answer[q2]], [2, 1]); // notReady, ready
  assert.equal(t.calls.end[q1] - t.calls.begin[q1], h200.queryNs);
});

test('S11 elapsed time: ms between completed timing events; NotReady before completion; InvalidResourceHandle without timing', () => {
  const t = sim({
    streams: { s: {} },
    events: { a: { timing: true }, b: { timing: true }, plain: {} },
    steps: [
      { record: 'a', stream: 's' },
      { launch: 'k', stream: 's', us: 123.4 },
      { record: 'b', stream: 's' },
      { record: 'plain', stream: 's' },
      { elapsed: ['a', 'b'] },
      { eventSync: 'b' },
      { elapsed: ['a', 'b'] },
      { elapsed: ['a', 'plain'] },
    ],
  });
  const [early, ok, noTiming] = calls(t, 'elapsed');
  assert.equal(str(t, t.calls.status[early]), 'cudaErrorNotReady');
  assert.ok(Number.isNaN(t.calls.value[early]));
  const ns = end(t, op(t, 'record b')) - end(t, op(t, 'record a'));
  assert.ok(Math.abs(t.calls.value[ok] * 1e6 - ns) <= h200.elapsedResolutionNs / 2);
  assert.equal((t.calls.value[ok] * 1e6) % h200.elapsedResolutionNs, 0, 'rounded to the resolution');
  assert.equal(str(t, t.calls.status[ok]), '');
  assert.equal(str(t, t.calls.status[noTiming]), 'cudaErrorInvalidResourceHandle', 'as measured on the H200');
});

test('S12 event synchronize returns after the current record completes, released by the work it captured', () => {
  const t = sim({
    streams: { s: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'k', stream: 's', us: 100 },
      { record: 'e', stream: 's' },
      { launch: 'later', stream: 's', us: 500 },
      { eventSync: 'e' },
    ],
  });
  const c = calls(t, 'eventSync')[0];
  const rec = op(t, 'record e');
  assert.equal(t.calls.releasedBy[c], op(t, 'k'));
  assert.ok(t.calls.end[c] >= end(t, rec));
  assert.ok(t.calls.end[c] < end(t, op(t, 'later')), 'later work on the stream is not awaited');
  assert.ok(hasEdge(t, 'release', op(t, 'k'), c));
});

test('S13 stream synchronize waits for all work issued to that stream, and nothing else', () => {
  const t = sim({
    streams: { s: { nonBlocking: true }, o: { nonBlocking: true } },
    steps: [
      { launch: 'other', stream: 'o', us: 900 },
      { launch: 'k1', stream: 's', us: 100 },
      { launch: 'k2', stream: 's', us: 100 },
      { streamSync: 's' },
    ],
  });
  const c = calls(t, 'streamSync')[0];
  assert.equal(t.calls.releasedBy[c], op(t, 'k2'));
  assert.ok(t.calls.end[c] < end(t, op(t, 'other')));
});

test('S14 device synchronize waits for every stream; the op that completed last released it', () => {
  const t = sim({
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    steps: [
      { launch: 'long', stream: 'a', us: 900 },
      { launch: 'short', stream: 'b', us: 100 },
      { launch: 'legacy', us: 50 },
      { deviceSync: true },
    ],
  });
  const c = calls(t, 'deviceSync')[0];
  assert.equal(t.calls.releasedBy[c], op(t, 'long'));
  for (let o = 0; o < t.ops.count; o++) assert.ok(t.calls.end[c] >= end(t, o));
});

test('S15 spin wake-up by default; sleep under blockingSync scheduling, and for eventSync on a blockingSync event', () => {
  const steps = [
    { launch: 'k', stream: 's', us: 200 },
    { record: 'e', stream: 's' },
    { eventSync: 'e' },
    { launch: 'k2', stream: 's', us: 200 },
    { streamSync: 's' },
  ];
  const unblock = (scenario: Record<string, unknown>) => {
    const t = sim({ streams: { s: {} }, steps, ...scenario });
    return [t.calls.unblockNs[calls(t, 'eventSync')[0]], t.calls.unblockNs[calls(t, 'streamSync')[0]]];
  };
  for (const schedule of ['auto', 'spin', 'yield']) {
    assert.deepEqual(
      unblock({ device: { schedule }, events: { e: {} } }),
      [h200.spinWakeNs, h200.spinWakeNs],
      schedule,
    );
  }
  assert.deepEqual(unblock({ device: { schedule: 'blockingSync' }, events: { e: {} } }), [
    h200.sleepWakeNs,
    h200.sleepWakeNs,
  ]);
  assert.deepEqual(unblock({ events: { e: { blockingSync: true } } }), [h200.sleepWakeNs, h200.spinWakeNs]);
});

test('S16 every host wait is released by the awaited op that completed last, never before it', () => {
  const t = sim({
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    events: { e: {} },
    buffers: { d: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pageable' } },
    steps: [
      { launch: 'ka', stream: 'a', us: 100 },
      { launch: 'kb', stream: 'b', us: 300 },
      { record: 'e', stream: 'a' },
      { eventSync: 'e' },
      { streamSync: 'b' },
      { deviceSync: true },
      { copy: 'd', to: 'h', async: true, stream: 'a' },
    ],
  });
  const waits = [...calls(t, 'eventSync'), ...calls(t, 'streamSync'), ...calls(t, 'deviceSync'), ...calls(t, 'memcpy')];
  assert.equal(t.calls.releasedBy[waits[0]], op(t, 'ka'), 'the kernel behind the record');
  assert.equal(t.calls.releasedBy[waits[1]], op(t, 'kb'));
  assert.equal(t.calls.releasedBy[waits[2]], RELEASED_NONE, 'nothing was pending any more');
  assert.ok(Number.isNaN(t.calls.unblockNs[waits[2]]));
  assert.equal(t.calls.releasedBy[waits[3]], op(t, 'DtoH d -> h'), 'the pageable copy itself released its call');
  for (const w of [waits[0], waits[1], waits[3]]) {
    const r = t.calls.releasedBy[w];
    assert.equal(t.calls.unblockNs[w], t.calls.end[w] - end(t, r));
    assert.ok(t.calls.unblockNs[w] >= 0);
    assert.ok(hasEdge(t, 'release', r, w));
  }
});

test('S16 releasing op is the work behind an event record', () => {
  const t = sim({
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    events: { ea: {}, eb: {}, late: {} },
    steps: [
      // Through a record, a stream wait and a second record on a stream that ran nothing itself.
      { launch: 'produce', stream: 'a', us: 200 },
      { record: 'ea', stream: 'a' },
      { wait: 'ea', stream: 'b' },
      { record: 'eb', stream: 'b' },
      { eventSync: 'eb' },
      // The kernel finished long before: the record itself is all that was pending.
      { launch: 'early', stream: 'a', us: 5 },
      { hostWork: { us: 300 } },
      { record: 'late', stream: 'a' },
      { eventSync: 'late' },
    ],
  });
  const [chained, markerOnly] = calls(t, 'eventSync');
  const produce = op(t, 'produce');
  assert.equal(t.calls.releasedBy[chained], produce, 'followed back through record eb, wait ea and record ea');
  assert.equal(t.lanes[t.ops.lane[produce]].name, 'a');
  assert.equal(end(t, op(t, 'record eb')), end(t, produce), 'the markers completed with the kernel');
  assert.ok(hasEdge(t, 'release', produce, chained) && !hasEdge(t, 'release', op(t, 'record eb'), chained));
  assert.equal(t.calls.unblockNs[chained], t.calls.end[chained] - end(t, produce));
  assert.equal(t.calls.unblockNs[chained], h200.spinWakeNs);

  const late = op(t, 'record late');
  assert.ok(end(t, op(t, 'early')) < t.calls.begin[markerOnly], 'the kernel was no longer pending');
  assert.equal(t.calls.releasedBy[markerOnly], late, 'nothing real was pending behind the record: the marker stays');
  assert.ok(hasEdge(t, 'release', late, markerOnly));
  assert.equal(t.calls.unblockNs[markerOnly], t.calls.end[markerOnly] - end(t, late));

  // A record on the legacy stream captures the blocking streams' work too (S3, S6).
  const legacy = sim({
    streams: { s: {} },
    events: { e: {} },
    steps: [{ launch: 'side', stream: 's', us: 300 }, { record: 'e' }, { eventSync: 'e' }],
  });
  const wait = calls(legacy, 'eventSync')[0];
  assert.ok(hasEdge(legacy, 'legacy', op(legacy, 'side'), op(legacy, 'record e')));
  assert.equal(legacy.calls.releasedBy[wait], op(legacy, 'side'));
});

test('S17 async copies with pageable memory are synchronous for the host; pinned ones are not', () => {
  const run = (host: string, to: boolean) => {
    const t = sim({
      streams: { s: { nonBlocking: true } },
      buffers: { d: { bytes: 64 << 20 }, h: { bytes: 64 << 20, host } },
      steps: [
        { launch: 'k', stream: 's', ms: 2 },
        to ? { copy: 'h', to: 'd', async: true, stream: 's' } : { copy: 'd', to: 'h', async: true, stream: 's' },
      ],
    });
    const c = calls(t, 'memcpy')[0];
    const o = op(t, to ? 'HtoD h -> d' : 'DtoH d -> h');
    return {
      dur: t.calls.end[c] - t.calls.begin[c],
      opEnd: end(t, o),
      callEnd: t.calls.end[c],
      opStart: start(t, o),
      k: end(t, op(t, 'k')),
    };
  };
  for (const to of [true, false]) {
    const pageable = run('pageable', to);
    assert.ok(pageable.opStart >= pageable.k, 'waits for prior work in its stream');
    // The host drives a pageable copy through staging buffers, so it returns as the copy ends.
    assert.equal(pageable.callEnd, pageable.opEnd, 'returns when the copy completes');
    const latency = to ? h200.pageableHtoDLatencyNs : h200.pageableDtoHLatencyNs;
    assert.equal(
      pageable.opEnd - pageable.opStart,
      Math.round(latency + (64 << 20) / (to ? h200.pageableHtoDGBps : h200.pageableDtoHGBps)),
      'a fixed cost, then its bytes',
    );
    assert.ok(
      pageable.dur > 7e6 && pageable.dur < 12e6,
      `64 MiB pageable ${to ? 'HtoD' : 'DtoH'} took ${pageable.dur} ns`,
    );
    const pinned = run('pinned', to);
    // The run's first copy in its direction: the driver's cold path, then it returns at once.
    assert.equal(pinned.dur, h200.coldCopyNs + h200.copyCallNs, 'returns at once');
    assert.ok(pinned.callEnd < pinned.opStart);
  }
  // On an idle stream: the host stages a host-to-device copy itself, so the call holds no GPU submit
  // latency; a device-to-host copy waits for the GPU to start and finish it.
  const small = (to: boolean) => {
    const t = sim({
      streams: { s: { nonBlocking: true } },
      buffers: { d: { bytes: 64 }, h: { bytes: 64, host: 'pageable' } },
      steps: [
        { hostWork: { us: 1 } },
        { launch: 'k', stream: 's', us: 1 },
        { streamSync: 's' },
        to ? { copy: 'h', to: 'd', async: true, stream: 's' } : { copy: 'd', to: 'h', async: true, stream: 's' },
      ],
    });
    const c = calls(t, 'memcpy')[0];
    return t.calls.end[c] - t.calls.begin[c];
  };
  assert.equal(
    small(true),
    h200.coldCopyNs + h200.copyCallNs + Math.round(h200.pageableHtoDLatencyNs + 64 / h200.pageableHtoDGBps),
  );
  assert.equal(
    small(false),
    h200.coldCopyNs +
      h200.copyCallNs +
      h200.submitNs +
      Math.round(h200.pageableDtoHLatencyNs + 64 / h200.pageableDtoHGBps),
  );
});

test('S18 cudaMemcpy runs on the legacy stream (S3) and blocks the host, except device to device', () => {
  const run = (nonBlocking: boolean, step: Record<string, unknown>) => {
    const t = sim({
      streams: { s: { nonBlocking } },
      buffers: { d: { bytes: 1 << 20 }, d2: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pageable' } },
      steps: [{ launch: 'k', stream: 's', ms: 2 }, step],
    });
    const c = calls(t, 'memcpy')[0];
    return { t, c, dur: t.calls.end[c] - t.calls.begin[c], copy: t.ops.count - 1 };
  };
  const behindBlocking = run(false, { copy: 'h', to: 'd' });
  assert.equal(behindBlocking.t.ops.lane[behindBlocking.copy], lane(behindBlocking.t, 'default'));
  assert.ok(behindBlocking.dur > 2e6, `waits for the kernel: ${behindBlocking.dur}`);
  const behindNonBlocking = run(true, { copy: 'h', to: 'd' });
  assert.ok(behindNonBlocking.dur < 200 * US, `does not wait: ${behindNonBlocking.dur}`);
  const dtod = run(false, { copy: 'd', to: 'd2' });
  assert.equal(dtod.dur, h200.coldCopyNs + h200.copyCallNs);
  assert.ok(start(dtod.t, dtod.copy) >= end(dtod.t, op(dtod.t, 'k')), 'still ordered by S3 on the GPU');
});

test('S19 the launch queue holds 1021 pending launches; the next launch blocks until room frees', () => {
  const t = sim({
    streams: { s: { nonBlocking: true } },
    steps: [
      { launch: 'long', stream: 's', ms: 20 },
      { repeat: h200.queueDepth + 2, steps: [{ launch: 'tiny', stream: 's', ns: 100 }] },
    ],
  });
  const launches = calls(t, 'launch');
  // launches[0] is the long kernel, which starts at once; the next 1021 queue behind it.
  const blocked = launches.filter((c) => t.calls.blockedNs[c] > 0);
  assert.deepEqual(
    blocked,
    [launches[h200.queueDepth + 1]],
    'only the 1022nd: once the queue drains, there is room again',
  );
  const first = blocked[0];
  const long = op(t, 'long');
  assert.equal(t.calls.releasedBy[first], long);
  assert.equal(t.calls.begin[first] + t.calls.blockedNs[first], end(t, long), 'blocked until the long kernel ended');
  assert.equal(t.calls.end[first], end(t, long) + h200.launchNs);
  assert.ok(hasEdge(t, 'release', long, first));
});

test("S19 each stream has its own launch queue, up to the GPU's count of them: another stream queued full does not block this one", () => {
  const t = sim(
    {
      streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
      events: { g: {} },
      steps: [
        { launch: 'long', stream: 'a', ms: 1 },
        { record: 'g', stream: 'a' },
        { wait: 'g', stream: 'b' },
        { repeat: 4, steps: [{ launch: 'b', stream: 'b', ns: 100 }] },
        { repeat: 2, steps: [{ launch: 'a', stream: 'a', ns: 100 }] },
      ],
    },
    loadProfile({ queueDepth: 3 }),
  );
  // b's queue: three launches behind the wait (which takes no entry); the fourth blocks. a's: the
  // record and two launches, which fit; one queue for both streams would hold six.
  const launches = calls(t, 'launch');
  const blocked = launches.filter((c) => t.calls.blockedNs[c] > 0);
  assert.deepEqual(blocked, [launches[4]]);
  assert.equal(t.calls.releasedBy[launches[4]], op(t, 'long'));
});

test('S19 more streams than the GPU has launch queues share them: the ninth created stream shares with the first', () => {
  // Measured on an H100 (CUDA 13, CUDA_DEVICE_MAX_CONNECTIONS unset): 16 streams, each behind a long
  // kernel, launched to round robin; the first launch to block was stream 9's 511th, with 511
  // launches queued on streams 1 to 8 and 510 on streams 9 to 16: 1021 in the queue it shares with
  // stream 1. With 32 connections, 700 launches on each of the 16 streams all fit.
  const streams = Object.fromEntries([...Array(16).keys()].map((k) => [`s${k}`, { nonBlocking: true }]));
  const roundRobin = (rounds: number, hardwareQueues: number) =>
    sim(
      {
        streams,
        steps: [
          ...Object.keys(streams).map((s) => ({ launch: `long ${s}`, stream: s, grid: 1, block: 32, ms: 50 })),
          {
            repeat: rounds,
            steps: Object.keys(streams).map((s) => ({ launch: 'tiny', stream: s, grid: 1, block: 32, ns: 100 })),
          },
        ],
      },
      loadProfile({ hardwareQueues }),
    );
  const t = roundRobin(600, 8);
  const tiny = calls(t, 'launch').slice(16);
  const firstBlocked = tiny.findIndex((c) => t.calls.blockedNs[c] > 0);
  assert.equal(firstBlocked, 16 * 510 + 8, "stream 9's 511th launch");
  assert.equal(h200.hardwareQueues, 8);
  const wide = roundRobin(700, 32);
  assert.deepEqual(
    calls(wide, 'launch').filter((c) => wide.calls.blockedNs[c] > 0),
    [],
    'with 32 queues, each stream has its own',
  );
});

test('S19 event records take launch-queue entries, and a record blocks for room like a launch', () => {
  const t = sim(
    {
      streams: { s: { nonBlocking: true } },
      events: { e: {}, f: {} },
      steps: [
        { launch: 'long', stream: 's', ms: 1 },
        { record: 'e', stream: 's' },
        { launch: 'k1', stream: 's', ns: 100 },
        { launch: 'k2', stream: 's', ns: 100 },
        { record: 'f', stream: 's' },
        { launch: 'k3', stream: 's', ns: 100 },
      ],
    },
    loadProfile({ queueDepth: 3 }),
  );
  // Behind the running kernel: record e, k1 and k2 fill the queue, so record f waits until the long
  // kernel ends and record e starts; then k1 has started, and k3 finds room.
  const [, recordF] = calls(t, 'record');
  const long = op(t, 'long');
  assert.equal(t.calls.begin[recordF] + t.calls.blockedNs[recordF], end(t, long));
  assert.equal(t.calls.releasedBy[recordF], long);
  assert.deepEqual(
    [...calls(t, 'launch'), ...calls(t, 'record')].filter((c) => t.calls.blockedNs[c] > 0),
    [recordF],
  );
});

test('S20 a host function delays the next op of its stream by the host-function gap', () => {
  const t = sim({
    streams: { s: {} },
    steps: [
      { launch: 'k1', stream: 's', us: 100 },
      { hostFunc: 'fn', stream: 's', us: 20 },
      { launch: 'k2', stream: 's', us: 100 },
    ],
  });
  const [k1, fn, k2] = [op(t, 'k1'), op(t, 'fn'), op(t, 'k2')];
  assert.equal(start(t, fn), end(t, k1));
  assert.equal(start(t, k2) - end(t, k1), h200.hostFuncGapNs + 20 * US);
  assert.equal(end(t, fn), start(t, k2));
});
