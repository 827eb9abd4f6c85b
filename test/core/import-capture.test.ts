// The capture converter on raw streams written here: lanes, releasing ops, event edges bound to
// the exact record, and clear errors for corrupt input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importCapture } from '../../core/import/capture-convert';
import { LEGACY_STREAM, PER_THREAD_STREAM, SEQ_UNKNOWN } from '../../core/import/capture-raw';
import { ImportError } from '../../core/import/scan';
import { CALL_KINDS, EDGE_KINDS, RELEASED_NONE, RELEASED_UNKNOWN, str, type Trace } from '../../core/trace/model';
import { RawCaptureWriter } from '../helpers/raw-capture';

const S1 = 0x7f00_0000_1000;
const S2 = 0x7f00_0000_2000;
const E = 0x7f00_0000_9000;
const PAGEABLE = 1;
const PINNED = 2;
const DEVICE = 3;

const opNamed = (t: Trace, name: string): number[] =>
  [...Array(t.ops.count).keys()].filter((i) => str(t, t.ops.name[i]) === name);
const callsNamed = (t: Trace, name: string): number[] =>
  [...Array(t.calls.count).keys()].filter((i) => str(t, t.calls.name[i]) === name);
const edges = (t: Trace, kind: string): [number, number][] =>
  [...Array(t.edges.count).keys()]
    .filter((i) => t.edges.kind[i] === EDGE_KINDS.indexOf(kind as never))
    .map((i) => [t.edges.from[i], t.edges.to[i]]);
const released = (t: Trace, call: number): string =>
  t.calls.releasedBy[call] >= 0 ? str(t, t.ops.name[t.calls.releasedBy[call]]) : String(t.calls.releasedBy[call]);

/** Two streams created by the program; `s1` blocking, `s2` non-blocking with priority -2. */
function withStreams(w: RawCaptureWriter): void {
  w.call({ api: 'streamCreate', name: 'cudaStreamCreate', begin: 0, end: 900, stream: S1, streamId: 13 });
  w.call({
    api: 'streamCreate',
    name: 'cudaStreamCreateWithPriority',
    begin: 1000,
    end: 1900,
    stream: S2,
    flags: 1,
    priority: -2,
    streamId: 14,
  });
  w.call({ api: 'eventCreate', name: 'cudaEventCreateWithFlags', begin: 2000, end: 2100, event: E, flags: 2, seq: 0 });
}

test('a re-recorded event: each wait gets an event edge from the record it bound to, even when the calls overlap in time', () => {
  const w = new RawCaptureWriter();
  const loader = w.thread('loader', 5000);
  withStreams(w);
  const k1 = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 14_000, stream: S1 });
  w.kernel(k1, 'void produce<1>(float*, int)', 15_000, 115_000, 13);
  w.call({ api: 'record', name: 'cudaEventRecord', begin: 14_500, end: 15_000, stream: S1, event: E, seq: 1 });
  const k2 = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 20_000, end: 24_000, stream: S1 });
  w.kernel(k2, 'void produce<2>(float*, int)', 115_500, 300_000, 13);
  // The second record's call runs from 25 to 30 us; a wait on another thread began at 26 us,
  // before the record returned, and the library saw record 1 as the latest: it bound to record 1.
  w.call({ api: 'record', name: 'cudaEventRecord', begin: 25_000, end: 30_000, stream: S1, event: E, seq: 2 });
  w.call({
    api: 'streamWait',
    name: 'cudaStreamWaitEvent',
    thread: loader,
    begin: 26_000,
    end: 26_500,
    stream: S2,
    event: E,
    seq: 1,
  });
  const k3 = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    thread: loader,
    begin: 27_000,
    end: 31_000,
    stream: S2,
  });
  w.kernel(k3, 'consume', 116_000, 120_000, 14);
  w.call({ api: 'eventSync', name: 'cudaEventSynchronize', begin: 40_000, end: 303_000, event: E, seq: 2 });
  const t = importCapture(w.bytes());

  const [rec1, rec2] = opNamed(t, 'record event 1');
  const [wait] = opNamed(t, 'wait event 1');
  assert.deepEqual(edges(t, 'event'), [[rec1, wait]]);
  assert.notEqual(rec1, rec2);
  // The wait's marker passed once record 1's work (produce<1>) ended.
  assert.equal(t.ops.end[wait], t.ops.end[opNamed(t, 'produce<1>')[0]]);
  const [sync] = callsNamed(t, 'cudaEventSynchronize');
  assert.equal(released(t, sync), 'produce<2>', 'record 2 stands for the kernel before it (S16)');
  assert.equal(t.calls.unblockNs[sync], 303_000 - 300_000);
  assert.equal(t.calls.blockedNs[sync], 303_000 - 40_000);
  // Kernel names lose their return type and parameters, not their template arguments.
  assert.deepEqual(opNamed(t, 'produce<1>').length, 1);
});

test('S16: a synchronize on a record behind a stream wait is released by the work that ended last, through the wait and the record it bound to', () => {
  const E2 = 0x7f00_0000_a000;
  const w = new RawCaptureWriter();
  withStreams(w);
  w.call({ api: 'eventCreate', name: 'cudaEventCreate', begin: 2200, end: 2300, event: E2, seq: 0 });
  const a = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 14_000, stream: S1 });
  w.kernel(a, 'long', 15_000, 500_000, 13);
  const b = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 15_000, end: 18_000, stream: S2 });
  w.kernel(b, 'short', 19_000, 100_000, 14);
  // On stream 2, behind "short": a wait for the record after "long", then a record of E2.
  w.call({ api: 'record', name: 'cudaEventRecord', begin: 18_500, end: 19_000, stream: S1, event: E, seq: 1 });
  w.call({ api: 'streamWait', name: 'cudaStreamWaitEvent', begin: 19_500, end: 20_000, stream: S2, event: E, seq: 1 });
  w.call({ api: 'record', name: 'cudaEventRecord', begin: 20_500, end: 21_000, stream: S2, event: E2, seq: 1 });
  w.call({ api: 'eventSync', name: 'cudaEventSynchronize', begin: 22_000, end: 503_000, event: E2, seq: 1 });
  const t = importCapture(w.bytes());
  const [sync] = callsNamed(t, 'cudaEventSynchronize');
  // Behind the record of E2: "short" (ended at 100 us) by stream order, and "long" (500 us) through
  // the wait and the record of E it bound to.
  assert.equal(released(t, sync), 'long');
  assert.equal(t.calls.unblockNs[sync], 503_000 - 500_000);
  assert.equal(t.calls.blockedNs[sync], 503_000 - 22_000);
});

test('lanes: host threads by first call, the legacy and per-thread default streams, created streams with flags and priority', () => {
  const w = new RawCaptureWriter();
  const worker = w.thread('worker', 5001);
  withStreams(w);
  const a = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 13_000, stream: S1 });
  w.kernel(a, 'a', 14_000, 50_000, 13);
  const b = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 15_000, end: 18_000, stream: S2 });
  w.kernel(b, 'b', 19_000, 60_000, 14);
  const c = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 20_000, end: 23_000, stream: LEGACY_STREAM });
  w.kernel(c, 'c', 50_500, 70_000, 7);
  const d = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel_ptsz',
    thread: worker,
    begin: 21_000,
    end: 24_000,
    stream: PER_THREAD_STREAM,
  });
  w.kernel(d, 'd', 70_500, 80_000, 20);
  const t = importCapture(w.bytes(), { name: 'prog' });

  assert.deepEqual(
    t.lanes.map((l) => [l.kind, l.name]),
    [
      ['thread', 'main'],
      ['thread', 'worker'],
      ['stream', 'stream 1'],
      ['stream', 'stream 2'],
      ['stream', 'legacy default'],
      ['stream', 'per-thread default (worker)'],
    ],
  );
  const [, , s1, s2, legacy, pt] = t.lanes;
  assert.equal(s1.nonBlocking, false);
  assert.deepEqual([s2.nonBlocking, s2.priority, s2.handle], [true, -2, 14]);
  assert.equal(legacy.legacyDefault, true);
  assert.deepEqual([pt.perThreadDefault, pt.thread], [true, 1]);
  // S3: the legacy kernel waits for the blocking stream's kernel, not the non-blocking one's; the
  // per-thread default stream (S4) is ordered after legacy work.
  const op = (n: string) => opNamed(t, n)[0];
  assert.deepEqual(edges(t, 'legacy'), [
    [op('a'), op('c')],
    [op('c'), op('d')],
  ]);
  assert.equal(t.meta.source, 'capture');
  assert.equal(t.meta.scenario?.name, 'prog');
});

test('stream and device synchronize are released by the awaited op that ended last; a wait that found nothing pending names none', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  const a = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 13_000, stream: S1 });
  w.kernel(a, 'long', 14_000, 500_000, 13);
  const b = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 15_000, end: 18_000, stream: S2 });
  w.kernel(b, 'short', 19_000, 100_000, 14);
  w.call({ api: 'streamSync', name: 'cudaStreamSynchronize', begin: 20_000, end: 104_000, stream: S2 });
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin: 105_000, end: 503_500 });
  w.call({ api: 'streamSync', name: 'cudaStreamSynchronize', begin: 600_000, end: 601_000, stream: S2 });
  const t = importCapture(w.bytes());
  const [first, again] = callsNamed(t, 'cudaStreamSynchronize');
  const [device] = callsNamed(t, 'cudaDeviceSynchronize');
  assert.equal(released(t, first), 'short');
  assert.equal(t.calls.unblockNs[first], 4_000);
  assert.equal(released(t, device), 'long');
  assert.equal(t.calls.unblockNs[device], 3_500);
  assert.equal(t.calls.releasedBy[again], RELEASED_NONE);
  assert.equal(t.calls.blockedNs[again], 0);
  const release = edges(t, 'release');
  assert.deepEqual(release, [
    [opNamed(t, 'short')[0], first],
    [opNamed(t, 'long')[0], device],
  ]);
});

test('S9 and handle reuse: a wait on an event not recorded since its creation binds to nothing, even when the handle was recorded before', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  const a = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 13_000, stream: S1 });
  w.kernel(a, 'a', 14_000, 80_000, 13);
  w.call({ api: 'record', name: 'cudaEventRecord', begin: 14_000, end: 15_000, stream: S1, event: E, seq: 1 });
  w.call({ api: 'eventDestroy', name: 'cudaEventDestroy', begin: 16_000, end: 17_000, event: E });
  // The driver hands out the same handle again; the library notes it had 1 record by then.
  w.call({ api: 'eventCreate', name: 'cudaEventCreate', begin: 18_000, end: 19_000, event: E, seq: 1 });
  w.call({ api: 'streamWait', name: 'cudaStreamWaitEvent', begin: 20_000, end: 21_000, stream: S2, event: E, seq: 1 });
  w.call({ api: 'eventSync', name: 'cudaEventSynchronize', begin: 22_000, end: 23_000, event: E, seq: 1 });
  w.call({ api: 'eventQuery', name: 'cudaEventQuery', begin: 24_000, end: 24_500, event: E, seq: 1 });
  const t = importCapture(w.bytes());
  assert.deepEqual(edges(t, 'event'), []);
  const [sync] = callsNamed(t, 'cudaEventSynchronize');
  assert.equal(t.calls.releasedBy[sync], RELEASED_NONE);
  assert.equal(str(t, t.calls.event[sync]), 'event 2', 'the recreated handle is a new event');
  assert.deepEqual(opNamed(t, 'wait event 2').length, 1);
});

test('queries carry their answer; elapsed its value or its error; a binding the library lost is unknown, never guessed', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  w.call({ api: 'record', name: 'cudaEventRecord', begin: 10_000, end: 11_000, stream: S1, event: E, seq: 1 });
  w.call({ api: 'eventQuery', name: 'cudaEventQuery', begin: 12_000, end: 12_300, event: E, seq: 1, result: 600 });
  w.call({ api: 'eventQuery', name: 'cudaEventQuery', begin: 13_000, end: 13_300, event: E, seq: 1 });
  w.call({
    api: 'elapsed',
    name: 'cudaEventElapsedTime',
    begin: 14_000,
    end: 14_100,
    event: E,
    event2: E,
    seq: 1,
    seq2: 1,
    value: 0.25,
  });
  w.call({
    api: 'elapsed',
    name: 'cudaEventElapsedTime',
    begin: 15_000,
    end: 15_100,
    event: E,
    event2: E,
    seq: 1,
    seq2: 1,
    result: 400,
  });
  w.call({ api: 'eventSync', name: 'cudaEventSynchronize', begin: 16_000, end: 30_000, event: E, seq: SEQ_UNKNOWN });
  const t = importCapture(w.bytes());
  const [notReady, ready] = callsNamed(t, 'cudaEventQuery');
  assert.deepEqual([t.calls.answer[notReady], str(t, t.calls.status[notReady])], [2, 'cudaErrorNotReady']);
  assert.deepEqual([t.calls.answer[ready], t.calls.status[ready]], [1, 0]);
  const [ok, bad] = callsNamed(t, 'cudaEventElapsedTime');
  assert.equal(t.calls.value[ok], 0.25);
  assert.equal(str(t, t.calls.status[bad]), 'cudaErrorInvalidResourceHandle');
  const [sync] = callsNamed(t, 'cudaEventSynchronize');
  assert.equal(t.calls.releasedBy[sync], RELEASED_UNKNOWN);
  assert.match(t.meta.notes?.join('\n') ?? '', /1 event waits whose record was not captured/);
});

test('copies: pageable async copies and synchronous copies block and are released by the copy; pinned async copies do not block', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  const k = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 13_000, stream: S1 });
  w.kernel(k, 'k', 14_000, 200_000, 13);
  const pageable = w.call({
    api: 'memcpy',
    name: 'cudaMemcpyAsync',
    begin: 20_000,
    end: 260_000,
    stream: S1,
    bytes: 1 << 20,
    copyDir: 2,
    hostMemory: 2,
  });
  w.memcpy(pageable, 2, DEVICE, PAGEABLE, 1 << 20, 200_500, 258_000, 13);
  const pinned = w.call({
    api: 'memcpy',
    name: 'cudaMemcpyAsync',
    begin: 261_000,
    end: 265_000,
    stream: S1,
    bytes: 4096,
    copyDir: 1,
    hostMemory: 1,
  });
  w.memcpy(pinned, 1, PINNED, DEVICE, 4096, 266_000, 268_000, 13);
  const sync = w.call({
    api: 'memcpy',
    name: 'cudaMemcpy',
    begin: 270_000,
    end: 290_000,
    stream: LEGACY_STREAM,
    bytes: 4096,
    copyDir: 1,
    hostMemory: 2,
  });
  w.memcpy(sync, 1, PAGEABLE, DEVICE, 4096, 280_000, 289_000, 7);
  const t = importCapture(w.bytes());
  const [c1, c2] = callsNamed(t, 'cudaMemcpyAsync');
  const [c3] = callsNamed(t, 'cudaMemcpy');
  assert.equal(released(t, c1), 'DtoH 1048576 B (pageable)');
  assert.equal(t.calls.blockedNs[c1], 240_000);
  assert.equal(t.calls.releasedBy[c2], RELEASED_NONE);
  assert.equal(t.calls.blockedNs[c2], 0);
  assert.equal(released(t, c3), 'HtoD 4096 B (pageable)');
  const op = opNamed(t, 'HtoD 4096 B (pinned)')[0];
  assert.deepEqual([t.ops.copy[op], t.ops.hostMemory[op]], [1, 1]);
  // S3: the legacy stream's synchronous copy is ordered after the blocking stream's work.
  assert.ok(edges(t, 'legacy').some(([from, to]) => from === op && to === opNamed(t, 'HtoD 4096 B (pageable)')[0]));
});

/**
 * 600 launches on `stream` (CUPTI stream `streamId`) from 100 µs, 100 ns apart: a long kernel from 160
 * µs to 1 ms, then 599 queued behind it, 5 ns each, from 1 ms on.
 */
function queueBehindLongKernel(w: RawCaptureWriter, stream: number, streamId: number): void {
  for (let i = 0; i < 600; i++) {
    const begin = 100_000 + i * 100;
    const k = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin, end: begin + 50, stream });
    if (i === 0) w.kernel(k, 'long', 160_000, 1_000_000, streamId);
    else w.kernel(k, 'queued', 1_000_000 + i * 10, 1_000_000 + i * 10 + 5, streamId);
  }
}

test('S19: a launch that blocked behind a full queue is released by the first op to complete during it; a slow first launch is not a wait', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  const slow = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 2_000, end: 90_000, stream: S1 });
  w.kernel(slow, 'first', 91_000, 92_000, 13);
  // 600 launches queue behind a long kernel; the next launch waits for the first of them to finish.
  queueBehindLongKernel(w, S1, 13);
  const b = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 170_000, end: 1_003_000, stream: S1 });
  w.kernel(b, 'blocked', 1_010_000, 1_020_000, 13);
  const t = importCapture(w.bytes());
  const launches = callsNamed(t, 'cudaLaunchKernel');
  const first = launches[0];
  const blocked = launches[launches.length - 1];
  assert.deepEqual([t.calls.blockedNs[first], t.calls.releasedBy[first]], [0, RELEASED_NONE]);
  assert.equal(released(t, blocked), 'long');
  assert.equal(t.calls.blockedNs[blocked], 833_000);
  assert.equal(t.calls.unblockNs[blocked], 3_000);
});

test("S19: a slow launch is a wait for room only with its own stream's queue full, not another stream's", () => {
  // 600 launches queue on S2 behind a long kernel; then a launch on each stream takes 830 µs, the
  // one on S1 with nothing queued on its own stream (a module load, say).
  const run = (stream: number) => {
    const w = new RawCaptureWriter();
    withStreams(w);
    queueBehindLongKernel(w, S2, 14);
    const slow = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 170_000, end: 1_003_000, stream });
    w.kernel(slow, 'slow', 1_010_000, 1_020_000, stream === S1 ? 13 : 14);
    const t = importCapture(w.bytes());
    const c = callsNamed(t, 'cudaLaunchKernel').at(-1)!;
    return [t.calls.blockedNs[c], t.calls.releasedBy[c] === RELEASED_NONE ? 'none' : released(t, c)];
  };
  assert.deepEqual(run(S1), [0, 'none']);
  assert.deepEqual(run(S2), [833_000, 'long']);
});

test('S19: a slow graph launch with its stream queued is not read as a wait for room, as a kernel launch is', () => {
  // 600 launches queue on S1 behind a long kernel; then a launch takes 833 µs: a kernel launch's is a
  // wait, a graph launch's of 200 nodes its own time (about 2 µs a node under the capture).
  const run = (api: 'launch' | 'graphLaunch') => {
    const w = new RawCaptureWriter();
    withStreams(w);
    queueBehindLongKernel(w, S1, 13);
    const name = api === 'launch' ? 'cudaLaunchKernel' : 'cudaGraphLaunch';
    const slow = w.call({ api, name, begin: 170_000, end: 1_003_000, stream: S1 });
    for (let k = 0; k < (api === 'launch' ? 1 : 200); k++)
      w.kernel(slow, 'slow', 1_010_000 + k * 10, 1_010_005 + k * 10, 13);
    const t = importCapture(w.bytes());
    const c = callsNamed(t, name).at(-1)!;
    return [t.calls.blockedNs[c], t.calls.releasedBy[c] === RELEASED_NONE ? 'none' : released(t, c)];
  };
  assert.deepEqual(run('launch'), [833_000, 'long']);
  assert.deepEqual(run('graphLaunch'), [0, 'none']);
});

test('host functions end where the next op on their stream starts (S20); memsets of device memory do not block', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  const a = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 13_000, stream: S1 });
  w.kernel(a, 'before', 14_000, 50_000, 13);
  w.call({ api: 'hostFunc', name: 'cudaLaunchHostFunc', begin: 14_000, end: 16_000, stream: S1 });
  const m = w.call({
    api: 'memset',
    name: 'cudaMemsetAsync',
    begin: 17_000,
    end: 18_000,
    stream: S1,
    bytes: 256,
    hostMemory: 3,
  });
  w.memset(m, DEVICE, 256, 210_000, 211_000, 13);
  const t = importCapture(w.bytes());
  const [fn] = opNamed(t, 'host function');
  assert.deepEqual([t.ops.start[fn], t.ops.end[fn]], [50_000, 210_000]);
  const [set] = callsNamed(t, 'cudaMemsetAsync');
  assert.equal(t.calls.blockedNs[set], 0);
  assert.equal(t.calls.kind[set], CALL_KINDS.indexOf('memset'));
});

test("GPU ops whose call was not captured stay on their stream; CUPTI's own sync ids are checked against the binding", () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  const a = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 13_000, stream: S1 });
  w.kernel(a, 'seen', 14_000, 20_000, 13);
  w.kernel(999, 'graph_node', 21_000, 30_000, 13);
  const r = w.call({
    api: 'record',
    name: 'cudaEventRecord',
    begin: 31_000,
    end: 32_000,
    stream: S1,
    event: E,
    seq: 1,
  });
  w.cudaEvent(r, 77, 13);
  const s = w.call({ api: 'eventSync', name: 'cudaEventSynchronize', begin: 33_000, end: 34_000, event: E, seq: 1 });
  w.sync(s, 1, 77, 33_000, 34_000);
  const t = importCapture(w.bytes());
  const [graph] = opNamed(t, 'graph_node');
  assert.equal(t.ops.call[graph], -1);
  assert.equal(t.lanes[t.ops.lane[graph]].name, 'stream 1');
  assert.deepEqual(
    edges(t, 'stream').map(([f, to]) => [str(t, t.ops.name[f]), str(t, t.ops.name[to])]),
    [
      ['seen', 'graph_node'],
      ['graph_node', 'record event 1'],
    ],
  );
  const notes = t.meta.notes?.join('\n') ?? '';
  assert.match(notes, /1 GPU ops whose issuing call was not captured/);
  assert.match(notes, /sync ids agree with the recorded binding for 1 of 1 event waits/);
});

test('a record whose device timestamp lands after a synchronize or query saw it complete is moved back to that return', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  // An idle stream: the record passes the GPU at once, and CUPTI's timestamp says 265 ns after the
  // synchronize that waited for it returned.
  const r1 = w.call({
    api: 'record',
    name: 'cudaEventRecord',
    begin: 10_000,
    end: 11_000,
    stream: S1,
    event: E,
    seq: 1,
  });
  w.cudaEvent(r1, 0, 13, 12_865);
  w.call({ api: 'eventSync', name: 'cudaEventSynchronize', begin: 11_100, end: 12_600, event: E, seq: 1 });
  const r2 = w.call({
    api: 'record',
    name: 'cudaEventRecord',
    begin: 20_000,
    end: 21_000,
    stream: S1,
    event: E,
    seq: 2,
  });
  w.cudaEvent(r2, 0, 13, 22_400);
  w.call({ api: 'eventQuery', name: 'cudaEventQuery', begin: 22_000, end: 22_300, event: E, seq: 2 });
  // A timestamp before the return stays where CUPTI put it.
  const r3 = w.call({
    api: 'record',
    name: 'cudaEventRecord',
    begin: 30_000,
    end: 31_000,
    stream: S1,
    event: E,
    seq: 3,
  });
  w.cudaEvent(r3, 0, 13, 31_500);
  w.call({ api: 'eventSync', name: 'cudaEventSynchronize', begin: 31_100, end: 32_000, event: E, seq: 3 });
  // Never before the work it captured, whose end CUPTI put after the return as well.
  const k = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 33_000, end: 36_000, stream: S1 });
  w.kernel(k, 'late', 37_000, 41_000, 13);
  const r4 = w.call({
    api: 'record',
    name: 'cudaEventRecord',
    begin: 36_100,
    end: 36_500,
    stream: S1,
    event: E,
    seq: 4,
  });
  w.cudaEvent(r4, 0, 13, 41_200);
  w.call({ api: 'eventSync', name: 'cudaEventSynchronize', begin: 36_600, end: 40_900, event: E, seq: 4 });
  const t = importCapture(w.bytes());
  const records = opNamed(t, 'record event 1');
  assert.deepEqual(
    records.map((o) => [t.ops.start[o], t.ops.end[o]]),
    [
      [12_600, 12_600],
      [22_300, 22_300],
      [31_500, 31_500],
      [41_000, 41_000],
    ],
  );
  const [s1, s2] = callsNamed(t, 'cudaEventSynchronize');
  assert.equal(t.calls.unblockNs[s1], 0);
  assert.equal(t.calls.unblockNs[s2], 500);
  assert.match(
    t.meta.notes?.join('\n') ?? '',
    /moved back to the return of a synchronize or query that saw them complete .*: 3/,
  );
});

test('a record whose device timestamp lands after work that waited for it started is moved back to that start', () => {
  // As an H200 capture of a PyTorch script had it: a spin kernel on S1 ends at 8_202_387; CUPTI puts
  // the record behind it at 8_203_507; S2 waits for that record, and S2's next kernel starts at
  // 8_203_284, 223 ns before the record's timestamp. The record completed by then.
  const w = new RawCaptureWriter();
  withStreams(w);
  const k1 = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 3_100_000, end: 3_104_000, stream: S1 });
  w.kernel(k1, 'spin', 3_151_129, 8_202_387, 13);
  const r = w.call({
    api: 'record',
    name: 'cudaEventRecord',
    begin: 3_105_000,
    end: 3_106_000,
    stream: S1,
    event: E,
    seq: 1,
  });
  w.cudaEvent(r, 0, 13, 8_203_507);
  w.call({
    api: 'streamWait',
    name: 'cudaStreamWaitEvent',
    begin: 3_107_000,
    end: 3_108_000,
    stream: S2,
    event: E,
    seq: 1,
  });
  const k2 = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 3_109_000, end: 3_113_000, stream: S2 });
  w.kernel(k2, 'after', 8_203_284, 8_708_851, 14);
  const t = importCapture(w.bytes());
  const [record] = opNamed(t, 'record event 1');
  const [wait] = opNamed(t, 'wait event 1');
  const [after] = opNamed(t, 'after');
  assert.deepEqual([t.ops.start[record], t.ops.end[record]], [8_203_284, 8_203_284]);
  assert.deepEqual([t.ops.start[wait], t.ops.end[wait]], [8_203_284, 8_203_284]);
  assert.equal(t.ops.start[after], 8_203_284);
  assert.match(t.meta.notes?.join('\n') ?? '', /moved back to the start of work that waited for them .*: 1/);
});

test('corrupt or truncated raw streams fail with what and where', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  const k = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 13_000, stream: S1 });
  w.kernel(k, 'k', 14_000, 20_000, 13);
  const good = w.bytes();
  const fails = (bytes: Uint8Array, message: RegExp) =>
    assert.throws(
      () => importCapture(bytes),
      (e: Error) => {
        assert.ok(e instanceof ImportError, e.name);
        assert.match(e.message, message);
        return true;
      },
    );
  fails(
    new TextEncoder().encode('{"traceEvents": []}'),
    /^not a Syncscope raw capture: it does not start with "SYNCCAP1" at byte 0$/,
  );
  fails(good.slice(0, 30), /^raw capture truncated in its header: 30 of 40 bytes at byte 30$/);
  fails(
    w.bytes({ version: 7 }),
    /^raw capture version 7 is not supported \(this Syncscope reads version 1\) at byte 8$/,
  );
  fails(
    w.bytes({ end: false }),
    new RegExp(
      `^raw capture truncated: it ends at byte ${w.bytes({ end: false }).length}, after \\d+ records, without its end record`,
    ),
  );
  // Cut inside the kernel record, which sits before the end record.
  const cut = good.slice(0, good.length - 40 - 20);
  fails(cut, /^raw capture truncated: the kernel record at byte \d+ needs 56 bytes, 36 remain at byte \d+$/);
  // A call record that claims the wrong size.
  const bad = good.slice();
  const firstCall = 40 + 8 + 8 + 'python3'.length;
  new DataView(bad.buffer).setUint32(firstCall + 4, 100, true);
  fails(bad, new RegExp(`^raw capture corrupt: the call record at byte ${firstCall} has 100 bytes, 104 expected`));
  // An end record that counts more calls than there are.
  const short = good.slice();
  new DataView(short.buffer).setUint32(short.length - 32, 9, true);
  fails(short, /^raw capture corrupt: its end record counts 9 calls, the stream holds 4/);
});

test('a capture of 200k launches converts, with the one launch that waited for room in the queue (S19) released by the op that made room', () => {
  const w = new RawCaptureWriter();
  withStreams(w);
  const N = 200_000;
  // A 20 ms kernel first; 1100 launches queue behind it, the 1001st blocks until it ends.
  const long = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 14_000, stream: S1 });
  w.kernel(long, 'long', 15_000, 20_015_000, 13);
  let t0 = 14_000;
  let gpu = 20_015_000;
  for (let i = 0; i < N; i++) {
    const blocks = i === 1000;
    const end = blocks ? 20_020_000 : t0 + 2_000;
    const k = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: t0, end, stream: S1 });
    w.kernel(k, 'small', gpu + 500, gpu + 1_500, 13);
    gpu += 1_500;
    t0 = end + 100;
  }
  const t = importCapture(w.bytes());
  assert.equal(opNamed(t, 'small').length, N);
  const blocked = [...Array(t.calls.count).keys()].filter((c) => t.calls.blockedNs[c] > 0);
  assert.equal(blocked.length, 1);
  assert.equal(released(t, blocked[0]), 'long');
});

test("two GPUs (S21): each call on its context's device, a legacy stream per device, cudaDeviceSynchronize waits for its device only", () => {
  const w = new RawCaptureWriter();
  w.device('NVIDIA H200', 132, 0);
  w.device('NVIDIA H200', 132, 1);
  w.call({
    api: 'streamCreate',
    name: 'cudaStreamCreateWithFlags',
    begin: 0,
    end: 900,
    stream: S1,
    flags: 1,
    streamId: 13,
    device: 0,
  });
  w.call({
    api: 'streamCreate',
    name: 'cudaStreamCreateWithFlags',
    begin: 1000,
    end: 1900,
    stream: S2,
    flags: 1,
    streamId: 13,
    device: 1,
  });
  w.call({ api: 'eventCreate', name: 'cudaEventCreate', begin: 2000, end: 2100, event: E, seq: 0, device: 0 });
  // GPU 0: a short kernel, its record, then a long kernel; GPU 1's stream waits for the record, and
  // GPU 1 also runs work on its legacy stream.
  const first = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 12_000, stream: S1, device: 0 });
  w.kernel(first, 'short0', 13_000, 50_000, 13, 132, 256, 0);
  w.call({
    api: 'record',
    name: 'cudaEventRecord',
    begin: 12_500,
    end: 13_000,
    stream: S1,
    event: E,
    seq: 1,
    device: 0,
  });
  const long = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 13_500, end: 14_500, stream: S1, device: 0 });
  w.kernel(long, 'long0', 50_500, 2_000_000, 13, 132, 256, 0);
  const short = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 15_000, end: 18_000, stream: S2, device: 1 });
  w.kernel(short, 'short1', 19_000, 100_000, 13, 132, 256, 1);
  const leg = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    begin: 19_000,
    end: 22_000,
    stream: LEGACY_STREAM,
    device: 1,
  });
  w.kernel(leg, 'legacy1', 100_500, 150_000, 7, 132, 256, 1);
  w.call({
    api: 'streamWait',
    name: 'cudaStreamWaitEvent',
    begin: 23_000,
    end: 23_500,
    stream: S2,
    event: E,
    seq: 1,
    device: 1,
  });
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin: 30_000, end: 153_000, device: 1 });
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin: 160_000, end: 2_003_000, device: 0 });
  // Work whose call was not captured, on CUPTI stream id 13 of each device: two streams, not one.
  w.kernel(9990, 'orphan0', 2_100_000, 2_200_000, 99, 132, 256, 0);
  w.kernel(9991, 'orphan1', 2_100_000, 2_200_000, 99, 132, 256, 1);
  const t = importCapture(w.bytes());

  const streams = t.lanes.filter((l) => l.kind === 'stream').map((l) => [l.name, l.device]);
  assert.deepEqual(streams, [
    ['stream 1', 0],
    ['stream 2', 1],
    ['legacy default (GPU 1)', 1],
    ['stream 99 (CUPTI id)', 0],
    ['stream 99 (CUPTI id, GPU 1)', 1],
  ]);
  assert.deepEqual(
    t.meta.devices?.map((d) => d.device),
    [0, 1],
  );
  const [sync1, sync0] = callsNamed(t, 'cudaDeviceSynchronize');
  assert.equal(released(t, sync1), 'legacy1', "GPU 1's synchronize does not wait for GPU 0's long kernel");
  assert.deepEqual([t.calls.device[sync1], t.calls.device[sync0]], [1, 0]);
  assert.equal(released(t, sync0), 'long0');
  // The wait on GPU 1 is bound to GPU 0's record.
  assert.deepEqual(edges(t, 'event'), [[opNamed(t, 'record event 1')[0], opNamed(t, 'wait event 1')[0]]]);
});

test("a capture from a library that wrote no devices: every call takes its ops' device, or its thread's last", () => {
  const w = new RawCaptureWriter();
  const a = w.call({ api: 'launch', name: 'cudaLaunchKernel', begin: 10_000, end: 13_000, stream: LEGACY_STREAM });
  w.kernel(a, 'on1', 14_000, 50_000, 7, 132, 256, 1);
  w.call({ api: 'deviceSync', name: 'cudaDeviceSynchronize', begin: 14_000, end: 53_000 });
  const t = importCapture(w.bytes());
  assert.deepEqual(
    t.lanes.filter((l) => l.kind === 'stream').map((l) => [l.name, l.device]),
    [['legacy default', 1]],
  );
  assert.equal(released(t, callsNamed(t, 'cudaDeviceSynchronize')[0]), 'on1');
});

test("an uncaptured graph launch's nodes (one correlation id) go on their stream together, when the first started: the node that ended last releases a sync that began between them", () => {
  // The same two GEMMs as below, but the capture did not follow the launch: only their activity
  // records, both with the launch's correlation id, 999. The synchronize began after the first
  // started and before the second did.
  const w = new RawCaptureWriter();
  const gemm = 'sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8';
  const k = w.call({
    api: 'launch',
    name: 'cudaLaunchKernel',
    begin: 156_000_000,
    end: 156_005_000,
    stream: LEGACY_STREAM,
  });
  w.kernel(k, 'before', 156_010_000, 156_020_000, 7);
  w.kernel(999, gemm, 159_585_575, 162_260_761, 7);
  w.kernel(999, gemm, 156_900_629, 159_585_287, 7);
  w.call({
    api: 'streamSync',
    name: 'cudaStreamSynchronize_v3020',
    begin: 156_959_487,
    end: 162_279_911,
    stream: LEGACY_STREAM,
  });
  const t = importCapture(w.bytes());
  const [first, second] = opNamed(t, gemm).sort((a, b) => t.ops.start[a] - t.ops.start[b]);
  assert.deepEqual([t.ops.call[first], t.ops.call[second]], [-1, -1]);
  const [before] = opNamed(t, 'before');
  assert.deepEqual(edges(t, 'stream'), [
    [before, first],
    [first, second],
  ]);
  const [sync] = callsNamed(t, 'cudaStreamSynchronize');
  assert.equal(t.calls.releasedBy[sync], second, 'the second GEMM, issued with the first, ends last');
  assert.equal(t.calls.unblockNs[sync], 162_279_911 - 162_260_761);
  assert.match(t.meta.notes?.join('\n') ?? '', /2 GPU ops whose issuing call was not captured/);
});

test('a graph launch issues its graph kernels on its stream, and the node that ended last releases the sync', () => {
  // Times of the first replay in a capture of test/gpu/torch/programs/graph_replay.py on an H200
  // (ns from the capture's start): two GEMMs of one graph, then current_stream().synchronize().
  const w = new RawCaptureWriter();
  const gemm =
    'sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas';
  const g = w.call({
    api: 'graphLaunch',
    name: 'cudaGraphLaunch_v10000',
    begin: 156_870_000,
    end: 156_900_000,
    stream: LEGACY_STREAM,
  });
  // CUPTI delivers a graph's kernel records in no promised order: the second is written first here.
  w.kernel(g, gemm, 159_585_575, 162_260_761, 7);
  w.kernel(g, gemm, 156_900_629, 159_585_287, 7);
  w.call({
    api: 'streamSync',
    name: 'cudaStreamSynchronize_v3020',
    begin: 156_959_487,
    end: 162_279_911,
    stream: LEGACY_STREAM,
  });
  const t = importCapture(w.bytes());

  const [launch] = callsNamed(t, 'cudaGraphLaunch');
  assert.equal(t.calls.kind[launch], CALL_KINDS.indexOf('launch'));
  const [first, second] = opNamed(t, gemm);
  // Times count from the earliest call, the launch.
  assert.deepEqual([t.ops.start[first], t.ops.start[second]], [156_900_629 - 156_870_000, 159_585_575 - 156_870_000]);
  assert.deepEqual([t.ops.call[first], t.ops.call[second]], [launch, launch]);
  assert.deepEqual(edges(t, 'launch'), [
    [launch, first],
    [launch, second],
  ]);
  assert.equal(t.lanes[t.ops.lane[first]].name, 'legacy default');
  assert.equal(t.ops.lane[second], t.ops.lane[first]);
  const [sync] = callsNamed(t, 'cudaStreamSynchronize');
  assert.equal(t.calls.releasedBy[sync], second, 'the second GEMM ends last');
  assert.equal(t.calls.unblockNs[sync], 162_279_911 - 162_260_761);
  assert.doesNotMatch(t.meta.notes?.join('\n') ?? '', /issuing call was not captured/);
});
