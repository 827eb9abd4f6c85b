// PyTorch import edge cases, each on a small hand-made trace whose expected values were worked
// out by hand (ts and dur are microseconds; trace times are ns from the earliest event, at ts 0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importPytorch } from '../../core/import';
import { callKind, RELEASE_HOW, RELEASED_NONE, RELEASED_UNKNOWN, str, Trace } from '../../core/trace/model';

const api = (name: string, ts: number, dur: number, correlation: number, tid = 9) => ({
  ph: 'X',
  cat: 'cuda_runtime',
  name,
  pid: 1,
  tid,
  ts,
  dur,
  args: { correlation },
});
const kernel = (name: string, device: number, stream: number, ts: number, dur: number, correlation: number) => ({
  ph: 'X',
  cat: 'kernel',
  name,
  pid: device,
  tid: stream,
  ts,
  dur,
  args: { correlation, device, stream },
});
const sync = (kind: string, ts: number, dur: number, args: object) => ({
  ph: 'X',
  cat: 'cuda_sync',
  name: kind,
  pid: 1,
  tid: 9,
  ts,
  dur,
  args: { cuda_sync_kind: kind, ...args },
});
const load = (events: object[]) => importPytorch(JSON.stringify({ traceEvents: events }));
const callsOf = (t: Trace, kind: string) => [...Array(t.calls.count).keys()].filter((i) => callKind(t, i) === kind);
const opNamed = (t: Trace, name: string) => [...Array(t.ops.count).keys()].find((i) => str(t, t.ops.name[i]) === name);

test('a stream sync that cannot be tied to one stream is unknown, never exact', () => {
  // Two GPUs each have a stream 7. The first sync names stream 7 but no device; the second has no
  // cuda_sync event at all. Kernel k0 (GPU 0) runs 10..100 µs and k1 (GPU 1) 12..50 µs, so work was
  // pending at both calls and neither can say which op released it.
  const t = load([
    api('cudaLaunchKernel', 0, 5, 1),
    kernel('k0', 0, 7, 10, 90, 1),
    api('cudaLaunchKernel', 5, 1, 2),
    kernel('k1', 1, 7, 12, 38, 2),
    api('cudaStreamSynchronize', 6, 100, 3),
    sync('Stream Sync', 6, 100, { correlation: 3, stream: 7 }),
    api('cudaStreamSynchronize', 8, 50, 4, 10),
  ]);
  const [named, unnamed] = callsOf(t, 'streamSync');
  assert.equal(t.calls.releasedBy[named], RELEASED_UNKNOWN);
  assert.equal(t.calls.blockedNs[named], 100_000);
  assert.equal(t.calls.releasedBy[unnamed], RELEASED_UNKNOWN);
  assert.equal(t.calls.blockedNs[unnamed], 50_000);
  assert.ok(Number.isNaN(t.calls.unblockNs[named]) && Number.isNaN(t.calls.unblockNs[unnamed]));
  assert.ok(t.meta.notes?.includes('2 host waits: the data does not say which op released them (releasedBy unknown)'));
});

test("a device sync is released by its own GPU's work, not another GPU's", () => {
  // The sync waits on GPU 0 from 12 to 112 µs; GPU 0's kernel ends at 100 µs, GPU 1's at 500 µs.
  const t = load([
    api('cudaLaunchKernel', 0, 5, 1),
    kernel('gpu0', 0, 7, 10, 90, 1),
    api('cudaLaunchKernel', 6, 4, 2),
    kernel('gpu1', 1, 7, 20, 480, 2),
    api('cudaDeviceSynchronize', 12, 100, 3),
    sync('Device Synchronize', 12, 100, { correlation: 3, device: 0, stream: -1 }),
  ]);
  const [call] = callsOf(t, 'deviceSync');
  assert.equal(t.calls.releasedBy[call], opNamed(t, 'gpu0'));
  assert.equal(t.calls.blockedNs[call], 100_000 - 12_000);
  assert.equal(t.calls.unblockNs[call], 112_000 - 100_000);
});

test("S21 a GPU op's device is the one its args name, not its pid", () => {
  // The kernel event's pid (4242) is not its device: args.device says GPU 1. It ran from 10 to
  // 100 µs, and the device sync of GPU 1, from 20 to 120 µs, waited for it.
  const t = load([
    api('cudaLaunchKernel', 0, 5, 1),
    { ...kernel('k', 1, 7, 10, 90, 1), pid: 4242 },
    api('cudaDeviceSynchronize', 20, 100, 2),
    sync('Device Synchronize', 20, 100, { correlation: 2, device: 1, stream: -1 }),
  ]);
  assert.deepEqual(
    t.lanes.filter((l) => l.kind === 'stream').map((l) => [l.name, l.device]),
    [['stream 7', 1]],
  );
  const [call] = callsOf(t, 'deviceSync');
  assert.equal(t.calls.releasedBy[call], opNamed(t, 'k'));
  assert.equal(t.calls.blockedNs[call], 100_000 - 20_000);
  assert.equal(t.calls.unblockNs[call], 120_000 - 100_000);
});

test('S16 a kernel that ended exactly when the stream sync began was not pending: nothing released the wait', () => {
  // k ran on stream 7 from 10 to 100 µs; the synchronize of stream 7 ran from 100 to 102 µs.
  const t = load([
    api('cudaLaunchKernel', 0, 5, 1),
    kernel('k', 0, 7, 10, 90, 1),
    api('cudaStreamSynchronize', 100, 2, 2),
    sync('Stream Sync', 100, 2, { correlation: 2, device: 0, stream: 7 }),
  ]);
  const [call] = callsOf(t, 'streamSync');
  assert.equal(t.calls.releasedBy[call], RELEASED_NONE);
  assert.equal(t.calls.blockedNs[call], 0);
  assert.ok(Number.isNaN(t.calls.unblockNs[call]));
});

test('S13 S16 an unnamed stream sync: a stream whose last kernel ended exactly as it began offers nothing, so the other stream released it', () => {
  // k7 (stream 7) ran from 10 to 100 µs, k8 (stream 8) from 12 to 110 µs; a stream sync with no
  // cuda_sync event ran from 100 to 112 µs. Stream 7 had nothing pending, so the sync was either
  // of stream 7 (nothing) or of stream 8 (k8): k8 ended 2 µs before the host resumed, within the
  // default bound of 50 µs (the trace has no exact waits), and k7 was no candidate: k8, by timing.
  const t = load([
    api('cudaLaunchKernel', 0, 5, 1),
    kernel('k7', 0, 7, 10, 90, 1),
    api('cudaLaunchKernel', 5, 1, 2),
    kernel('k8', 0, 8, 12, 98, 2),
    api('cudaStreamSynchronize', 100, 12, 3),
  ]);
  const [call] = callsOf(t, 'streamSync');
  assert.equal(t.calls.releasedBy[call], opNamed(t, 'k8'));
  assert.equal(RELEASE_HOW[t.calls.how[call]], 'timing');
  assert.equal(t.calls.blockedNs[call], 110_000 - 100_000);
  assert.equal(t.calls.unblockNs[call], 112_000 - 110_000);
});

test('a call that starts with its enclosing op, at the same ts, keeps that context', () => {
  // aten::item and its copy both run 10..60 µs, the copy first in the file; a launch at 60 µs,
  // when aten::item ends, is outside it. A sync at 70 µs finds the copy done: nothing pending.
  const t = load([
    api('cudaMemcpyAsync', 10, 50, 1),
    { ph: 'X', cat: 'cpu_op', name: 'aten::item', pid: 1, tid: 9, ts: 10, dur: 50 },
    {
      ph: 'X',
      cat: 'kernel',
      name: 'Memcpy DtoH (Device -> Pageable)',
      pid: 0,
      tid: 7,
      ts: 20,
      dur: 30,
      args: { correlation: 1, device: 0, stream: 7 },
    },
    api('cudaLaunchKernel', 60, 2, 2),
    api('cudaStreamSynchronize', 70, 1, 3),
    sync('Stream Sync', 70, 1, { correlation: 3, device: 0, stream: 7 }),
  ]);
  const [copy] = callsOf(t, 'memcpy');
  const [launch] = callsOf(t, 'launch');
  const [streamSync] = callsOf(t, 'streamSync');
  assert.equal(str(t, t.calls.context[copy]), 'aten::item');
  assert.equal(t.calls.context[launch], 0);
  assert.equal(t.calls.releasedBy[streamSync], RELEASED_NONE);
});

test('an event whose name or category is an object with its own toString imports as text, never by calling it', () => {
  const hostile = { toString: 1, valueOf: 1 };
  const t = load([
    { ...api('cudaLaunchKernel', 0, 5, 1), name: hostile },
    kernel('k', 0, 7, 10, 20, 1),
    { ...api('cudaDeviceSynchronize', 6, 30, 2), cat: hostile },
  ]);
  const launch = [...Array(t.calls.count).keys()].find((i) => t.calls.begin[i] === 0);
  assert.ok(launch !== undefined);
  assert.equal(str(t, t.calls.name[launch]), '');
  assert.equal(t.ops.count, 1);
  assert.match(t.meta.notes?.join('\n') ?? '', /object/);
});

test('a trace nested deeper than the limit is refused at the bracket that passes it, before any recursive walk', () => {
  // Malformed as well, so that the importer looks for the first syntax error in it.
  const deep = '['.repeat(200_000) + ']'.repeat(199_999) + '}';
  const text = `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 1, "args": ${deep}}]}`;
  assert.throws(
    () => importPytorch(text),
    (e: Error) => {
      assert.match(e.message, /^1:\d+: .*nested deeper than 256 levels; expected at most 256/);
      // The event's own brace is level 1, so the args' 256th bracket is level 257 (columns count from 1).
      assert.equal(Number(/^1:(\d+):/.exec(e.message)?.[1]), text.indexOf('[', text.indexOf('"args"')) + 255 + 1);
      return true;
    },
  );
});
