// SEMANTICS.md on hardware: each rule checked on the GPU and, with the same scenario, in the
// simulator. Where the hardware disagrees with SEMANTICS.md, the assertion follows the hardware
// and the message says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { str, type Trace } from '../../core/trace/model';
import { median } from '../../core/stats';
import { both, callsOf, noGpu, op, opsNamed, releaser, span } from './gpu';

const opts = { skip: noGpu };
const each = (r: { gpu: Trace; sim: Trace }, check: (t: Trace, where: string) => void) => {
  check(r.gpu, 'gpu');
  check(r.sim, 'simulator');
};

test('S1 stream order: the second kernel starts after the first ends', opts, async () => {
  const r = await both({
    name: 'S1',
    streams: { s: { nonBlocking: true } },
    steps: [{ launch: 'k1', stream: 's', us: 100 }, { launch: 'k2', stream: 's', us: 100 }, { streamSync: 's' }],
  });
  each(r, (t, w) => assert.ok(span(t, op(t, 'k2')).start >= span(t, op(t, 'k1')).end, `${w}: k2 before k1 ended`));
});

test('S2 kernels of two streams overlap when both fit on the device', opts, async () => {
  const r = await both({
    name: 'S2',
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    steps: [
      { launch: 'k1', stream: 'a', us: 500, grid: 32, block: 32 },
      { launch: 'k2', stream: 'b', us: 500, grid: 32, block: 32 },
      { deviceSync: true },
    ],
  });
  each(r, (t, w) => assert.ok(span(t, op(t, 'k2')).start < span(t, op(t, 'k1')).end - 300_000, `${w}: no overlap`));
});

test('S3 legacy default stream waits for a blocking stream, not for a non-blocking one', opts, async () => {
  const r = await both({
    name: 'S3',
    streams: { blocking: {}, free: { nonBlocking: true } },
    steps: [
      { launch: 'b1', stream: 'blocking', us: 300 },
      { launch: 'legacy1', us: 20 },
      { deviceSync: true },
      { launch: 'n1', stream: 'free', us: 300 },
      { launch: 'legacy2', us: 20 },
      { deviceSync: true },
    ],
  });
  each(r, (t, w) => {
    assert.ok(
      span(t, op(t, 'legacy1')).start >= span(t, op(t, 'b1')).end,
      `${w}: legacy work ran beside a blocking stream`,
    );
    assert.ok(
      span(t, op(t, 'legacy2')).start < span(t, op(t, 'n1')).end - 100_000,
      `${w}: legacy work waited for a non-blocking stream`,
    );
  });
});

test('S4 per-thread default streams of two threads run side by side', opts, async () => {
  const r = await both({
    name: 'S4',
    device: { perThreadDefaultStream: true },
    threads: {
      t1: [{ launch: 'p1', us: 400 }, { streamSync: 'default' }],
      t2: [{ launch: 'p2', us: 400 }, { streamSync: 'default' }],
    },
  });
  each(r, (t, w) => {
    const [a, b] = [span(t, op(t, 'p1')), span(t, op(t, 'p2'))];
    assert.ok(
      Math.max(a.start, b.start) < Math.min(a.end, b.end) - 200_000,
      `${w}: per-thread default streams serialized`,
    );
  });
});

test('S5 a high-priority kernel starts between the waves of a low-priority one', opts, async () => {
  const r = await both({
    name: 'S5',
    streams: { low: { nonBlocking: true, priority: 0 }, high: { nonBlocking: true, priority: -5 } },
    steps: [
      { launch: 'waves', stream: 'low', us: 200, grid: 8448, block: 32 },
      { hostWork: { us: 20 } },
      { launch: 'urgent', stream: 'high', us: 10 },
      { deviceSync: true },
    ],
  });
  each(r, (t, w) =>
    assert.ok(
      span(t, op(t, 'urgent')).start < span(t, op(t, 'waves')).end - 100_000,
      `${w}: urgent waited for the second wave`,
    ),
  );
});

test(
  'S6 S12 S16 event synchronize returns after the recorded work, released by the kernel the record captured',
  opts,
  async () => {
    const r = await both({
      name: 'S6',
      streams: { s: { nonBlocking: true } },
      events: { e: {} },
      steps: [
        { launch: 'k', stream: 's', us: 200 },
        { record: 'e', stream: 's' },
        { launch: 'later', stream: 's', us: 500 },
        { eventSync: 'e' },
        { deviceSync: true },
      ],
    });
    each(r, (t, w) => {
      const c = callsOf(t, 'eventSync')[0];
      assert.ok(t.calls.end[c] >= span(t, op(t, 'k')).end, `${w}: returned before k ended`);
      assert.ok(t.calls.end[c] < span(t, op(t, 'later')).end - 200_000, `${w}: waited for later work too`);
      assert.equal(releaser(t, c), 'k', w);
    });
  },
);

test('S7 S8 a stream wait binds to the record current when it is issued', opts, async () => {
  const r = await both({
    name: 'S7',
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'first', stream: 'a', us: 100 },
      { record: 'e', stream: 'a' },
      { wait: 'e', stream: 'b' },
      { launch: 'second', stream: 'a', us: 600 },
      { record: 'e', stream: 'a' },
      { launch: 'after', stream: 'b', us: 10 },
      { deviceSync: true },
    ],
  });
  each(r, (t, w) => {
    const after = span(t, op(t, 'after'));
    assert.ok(after.start >= span(t, op(t, 'first')).end, `${w}: S8 did not wait for the first record`);
    assert.ok(after.start < span(t, op(t, 'second')).end - 300_000, `${w}: S7 the wait moved to the re-record`);
    const waitCall = callsOf(t, 'streamWait')[0];
    assert.ok(t.calls.end[waitCall] < span(t, op(t, 'first')).end, `${w}: S8 the host blocked in cudaStreamWaitEvent`);
  });
});

test('S9 waiting on, querying or synchronizing a never-recorded event is a no-op', opts, async () => {
  const r = await both({
    name: 'S9',
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    events: { never: {} },
    steps: [
      { launch: 'busy', stream: 'a', us: 300 },
      { wait: 'never', stream: 'b' },
      { launch: 'free', stream: 'b', us: 10 },
      { query: 'never' },
      { eventSync: 'never' },
      { deviceSync: true },
    ],
  });
  each(r, (t, w) => {
    assert.equal(t.calls.answer[callsOf(t, 'query')[0]], 1, `${w}: query not ready`);
    const c = callsOf(t, 'eventSync')[0];
    assert.equal(releaser(t, c), '', w);
    assert.ok(t.calls.end[c] - t.calls.begin[c] < 50_000, `${w}: eventSync blocked`);
    assert.ok(span(t, op(t, 'free')).start < span(t, op(t, 'busy')).end - 100_000, `${w}: the wait ordered something`);
  });
});

test('S10 a query answers not ready while the work runs and ready after it', opts, async () => {
  const r = await both({
    name: 'S10',
    streams: { s: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'k', stream: 's', us: 300 },
      { record: 'e', stream: 's' },
      { query: 'e' },
      { eventSync: 'e' },
      { query: 'e' },
    ],
  });
  each(r, (t, w) =>
    assert.deepEqual(
      callsOf(t, 'query').map((c) => t.calls.answer[c]),
      [2, 1],
      w,
    ),
  );
});

test('S11 elapsed time: a value between completed timing events, errors otherwise', opts, async () => {
  const r = await both({
    name: 'S11',
    streams: { s: { nonBlocking: true } },
    events: { t0: { timing: true }, t1: { timing: true }, plain: {} },
    steps: [
      { record: 't0', stream: 's' },
      { launch: 'k', stream: 's', us: 200 },
      { record: 't1', stream: 's' },
      { record: 'plain', stream: 's' },
      { elapsed: ['t0', 't1'] },
      { streamSync: 's' },
      { elapsed: ['t0', 't1'] },
      { elapsed: ['t0', 'plain'] },
    ],
  });
  each(r, (t, w) => {
    const [early, done, noTiming] = callsOf(t, 'elapsed');
    assert.equal(str(t, t.calls.status[early]), 'cudaErrorNotReady', w);
    assert.ok(
      Math.abs(t.calls.value[done] - 0.2) < 0.03,
      `${w}: elapsed ${t.calls.value[done]} ms for a 0.2 ms kernel`,
    );
    assert.equal(str(t, t.calls.status[noTiming]), 'cudaErrorInvalidResourceHandle', w);
  });
});

test('S13 S14 stream and device synchronize are released by the last awaited op', opts, async () => {
  const r = await both({
    name: 'S13',
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    steps: [
      { launch: 'a1', stream: 'a', us: 100 },
      { launch: 'a2', stream: 'a', us: 100 },
      { launch: 'longB', stream: 'b', us: 600 },
      { streamSync: 'a' },
      { deviceSync: true },
    ],
  });
  each(r, (t, w) => {
    const s = callsOf(t, 'streamSync')[0];
    assert.equal(releaser(t, s), 'a2', w);
    assert.ok(t.calls.end[s] < span(t, op(t, 'longB')).end, `${w}: streamSync waited for stream b`);
    assert.equal(releaser(t, callsOf(t, 'deviceSync')[0]), 'longB', w);
  });
});

test('S15 a blocking-sync event wakes the host far later than a spinning wait', opts, async () => {
  const r = await both({
    name: 'S15',
    streams: { s: { nonBlocking: true } },
    events: { spin: {}, sleep: { blockingSync: true } },
    steps: [
      {
        repeat: 20,
        steps: [
          { launch: 'k', stream: 's', us: 100 },
          { record: 'spin', stream: 's' },
          { eventSync: 'spin' },
          { launch: 'k', stream: 's', us: 100 },
          { record: 'sleep', stream: 's' },
          { eventSync: 'sleep' },
        ],
      },
    ],
  });
  each(r, (t, w) => {
    const wake = (ev: string) =>
      median(
        callsOf(t, 'eventSync')
          .filter((c) => str(t, t.calls.event[c]) === ev)
          .map((c) => t.calls.unblockNs[c]),
      );
    const spin = wake('spin');
    const sleep = wake('sleep');
    assert.ok(spin > 0 && spin < 15_000, `${w}: spin wake ${spin} ns`);
    assert.ok(sleep > 2 * spin && sleep > 20_000, `${w}: sleep wake ${sleep} ns vs spin ${spin} ns`);
  });
});

test(
  'S17 an async copy to pageable memory blocks the host until it is done; to pinned memory it does not',
  opts,
  async () => {
    const r = await both({
      name: 'S17',
      streams: { s: { nonBlocking: true } },
      buffers: {
        d: { bytes: 1 << 20 },
        pageable: { bytes: 1 << 20, host: 'pageable' },
        pinned: { bytes: 1 << 20, host: 'pinned' },
      },
      steps: [
        { launch: 'k', stream: 's', ms: 2 },
        { copy: 'd', to: 'pageable', async: true, stream: 's' },
        { launch: 'k2', stream: 's', ms: 2 },
        { copy: 'd', to: 'pinned', async: true, stream: 's' },
        { streamSync: 's' },
      ],
    });
    each(r, (t, w) => {
      const [pageable, pinned] = callsOf(t, 'memcpy');
      assert.ok(t.calls.end[pageable] - t.calls.begin[pageable] >= 1_500_000, `${w}: pageable copy returned early`);
      assert.ok(t.calls.end[pinned] - t.calls.begin[pinned] < 200_000, `${w}: pinned copy blocked`);
    });
  },
);

test('S18 cudaMemcpy waits for a blocking stream (legacy order), not for a non-blocking one', opts, async () => {
  const r = await both({
    name: 'S18',
    streams: { blocking: {}, free: { nonBlocking: true } },
    buffers: { d: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pageable' } },
    steps: [
      { launch: 'kb', stream: 'blocking', ms: 2 },
      { copy: 'h', to: 'd' },
      { deviceSync: true },
      { launch: 'kn', stream: 'free', ms: 2 },
      { copy: 'h', to: 'd' },
      { deviceSync: true },
    ],
  });
  each(r, (t, w) => {
    const [behindBlocking, behindFree] = callsOf(t, 'memcpy').map((c) => t.calls.end[c] - t.calls.begin[c]);
    assert.ok(behindBlocking >= 1_500_000, `${w}: ${behindBlocking} ns behind a blocking stream`);
    assert.ok(behindFree < 1_000_000, `${w}: ${behindFree} ns behind a non-blocking stream`);
  });
});

test('S19 launches queue behind a long kernel until the queue is full, then block', opts, async () => {
  const r = await both({
    name: 'S19',
    streams: { s: { nonBlocking: true } },
    steps: [
      { launch: 'long', stream: 's', ms: 100 },
      { repeat: 1100, steps: [{ launch: 'tiny', stream: 's', ns: 1 }] },
      { streamSync: 's' },
    ],
  });
  each(r, (t, w) => {
    const launches = callsOf(t, 'launch')
      .slice(1)
      .map((c) => t.calls.end[c] - t.calls.begin[c]);
    // The first launch that waited for the 100 ms kernel: a host that was descheduled for 50 us is not a full queue.
    const first = launches.findIndex((d) => d > 10_000_000);
    // Recording adds events to the queue on the GPU, so it fills after fewer launches there.
    assert.ok(first >= 300 && first < 1100, `${w}: first blocked launch is number ${first}`);
  });
});

test('S20 a host function delays the next op on its stream', opts, async () => {
  const r = await both({
    name: 'S20',
    streams: { s: { nonBlocking: true } },
    steps: [
      {
        repeat: 5,
        steps: [
          { launch: 'before', stream: 's', us: 20 },
          { hostFunc: 'fn', stream: 's' },
          { launch: 'after', stream: 's', us: 20 },
          { streamSync: 's' },
        ],
      },
    ],
  });
  each(r, (t, w) => {
    const before = opsNamed(t, 'before');
    const after = opsNamed(t, 'after');
    const gap = median(before.map((b, i) => span(t, after[i]).start - span(t, b).end));
    assert.ok(gap > 20_000, `${w}: gap ${gap} ns`);
  });
});
