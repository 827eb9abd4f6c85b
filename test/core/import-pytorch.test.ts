import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importPytorch, createPytorchImporter } from '../../core/import';
import {
  callKind,
  edgeKind,
  isWait,
  opKind,
  RELEASED_NONE,
  RELEASED_UNKNOWN,
  str,
  Trace,
} from '../../core/trace/model';
import { traceToJson } from '../../core/trace/json';
import { repoPath } from '../helpers/paths';

// Expected values below were read from the raw Kineto JSON with jq (ts and dur are microseconds).
const fixture = (name: string) => readFileSync(repoPath('test/fixtures/torch', name));
const load = (name: string) => importPytorch(fixture(name));

/** A raw Kineto timestamp (us) as trace time (ns from the earliest event, `first`). */
const ns = (ts: number, first: number) => Math.round(ts * 1000) - Math.round(first * 1000);

function opsPerStream(t: Trace, kind: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < t.ops.count; i++) {
    if (opKind(t, i) !== kind) continue;
    const lane = t.lanes[t.ops.lane[i]].name;
    out[lane] = (out[lane] ?? 0) + 1;
  }
  return out;
}

interface WaitRow {
  name: string;
  begin: number;
  releasedBy: string | number;
  blockedNs: number;
  unblockNs: number;
  context: string;
  stream?: string;
  event?: string;
}

/** Every host wait in time order, with the start time of its releasing op (raw us) or NONE/UNKNOWN. */
function waits(t: Trace): WaitRow[] {
  const rows: WaitRow[] = [];
  for (let i = 0; i < t.calls.count; i++) {
    if (callKind(t, i) === 'context' || !isWait(t, i)) continue;
    const r = t.calls.releasedBy[i];
    const row: WaitRow = {
      name: str(t, t.calls.name[i]),
      begin: t.calls.begin[i],
      releasedBy:
        r === RELEASED_NONE
          ? 'none'
          : r === RELEASED_UNKNOWN
            ? 'unknown'
            : `${str(t, t.ops.name[r]).slice(0, 32)} @${t.ops.start[r]}`,
      blockedNs: t.calls.blockedNs[i],
      unblockNs: t.calls.unblockNs[i],
      context: str(t, t.calls.context[i]),
    };
    if (t.calls.stream[i] >= 0) row.stream = t.lanes[t.calls.stream[i]].name;
    if (t.calls.event[i]) row.event = str(t, t.calls.event[i]);
    rows.push(row);
  }
  return rows;
}

test('sync_seeds: lanes, meta, and kernels and copies per stream', () => {
  const t = load('sync_seeds.json');
  assert.deepEqual(
    t.lanes.map((l) => [l.kind, l.name, l.device]),
    [
      ['thread', 'thread 414 (python3)', 0],
      ['stream', 'stream 7', 0],
      ['stream', 'stream 17', 0],
    ],
  );
  assert.deepEqual(opsPerStream(t, 'kernel'), { 'stream 7': 2, 'stream 17': 2 });
  assert.deepEqual(opsPerStream(t, 'memcpy'), { 'stream 7': 5 });
  assert.equal(t.meta.source, 'pytorch');
  assert.equal(t.meta.clock, 'kineto');
  assert.equal(t.meta.alignmentErrorNs, 0);
  assert.deepEqual(t.meta.device, {
    name: 'NVIDIA H200',
    index: 0,
    sms: 132,
    computeCapability: '9.0',
    driver: '13.0',
  });
  // 32 runtime calls and 42 cpu_op events; every op launched by exactly one call.
  assert.equal(t.calls.count, 74);
  assert.equal([...t.calls.kind].filter((_, i) => callKind(t, i) === 'context').length, 42);
  const edges = (k: string) => [...t.edges.kind].filter((_, i) => edgeKind(t, i) === k).length;
  assert.deepEqual([edges('launch'), edges('stream'), edges('release')], [9, 6 + 1, 5]);
  for (let i = 0; i < t.ops.count; i++) assert.ok(t.ops.call[i] >= 0, `op ${i} has its launching call`);
});

test('S12 S13 S14 S17 sync_seeds: every host wait and the op that released it', () => {
  const t = load('sync_seeds.json');
  const first = 5347724402146.655; // aten::randn, the earliest event
  const at = (ts: number) => ns(ts, first);
  const copy = 'aten::to > aten::_to_copy > aten::copy_';
  const htod = (ts: number) => `Memcpy HtoD (Pageable -> Device) @${at(ts)}`;
  assert.deepEqual(waits(t), [
    // Pageable copy: the host returned 0.853 us after the copy ended (S17).
    {
      name: 'cudaMemcpyAsync',
      begin: at(5347724405005.517),
      releasedBy: htod(5347724405042.104),
      blockedNs: 37355,
      unblockNs: 853,
      context: copy,
      stream: 'stream 7',
    },
    // The copy had ended 2.2 us before this sync began: nothing was pending.
    {
      name: 'cudaStreamSynchronize',
      begin: at(5347724405045.033),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: copy,
      stream: 'stream 7',
    },
    {
      name: 'cudaDeviceSynchronize',
      begin: at(5347724405336.747),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
    },
    {
      name: 'cudaStreamSynchronize',
      begin: at(5347724405594.862),
      releasedBy: htod(5347724405594.71),
      blockedNs: 584,
      unblockNs: 4922,
      context: copy,
      stream: 'stream 7',
    },
    {
      name: 'cudaStreamSynchronize',
      begin: at(5347724405634.017),
      releasedBy: htod(5347724405635.925),
      blockedNs: 2645,
      unblockNs: 3380,
      context: copy,
      stream: 'stream 7',
    },
    // Event waits: the record is not in the data (CUDA 13), but every op issued before had ended.
    {
      name: 'cudaEventSynchronize',
      begin: at(5347724405897.236),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
      event: 'event 3',
    },
    {
      name: 'cudaStreamSynchronize',
      begin: at(5347724405944.284),
      releasedBy: htod(5347724405945.429),
      blockedNs: 1880,
      unblockNs: 3500,
      context: copy,
      stream: 'stream 7',
    },
    {
      name: 'cudaEventSynchronize',
      begin: at(5347724406023.684),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
      event: 'event 4',
    },
    {
      name: 'cudaMemcpyAsync',
      begin: at(5347724406040.304),
      releasedBy: `Memcpy DtoH (Device -> Pageable) @${at(5347724406051.028)}`,
      blockedNs: 12420,
      unblockNs: 4447,
      context: copy,
      stream: 'stream 7',
    },
    {
      name: 'cudaStreamSynchronize',
      begin: at(5347724406057.449),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: copy,
      stream: 'stream 7',
    },
    {
      name: 'cudaDeviceSynchronize',
      begin: at(5347724406085.856),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
    },
    {
      name: 'cudaDeviceSynchronize',
      begin: at(5347724406123.304),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
    },
  ]);
  // Host-to-device pageable copies that returned before their copy ended (staged) are not waits.
  const staged = [...Array(t.calls.count).keys()].filter((i) => callKind(t, i) === 'memcpy' && !isWait(t, i));
  assert.deepEqual(
    staged.map((i) => t.calls.begin[i]),
    [5347724405580.359, 5347724405629.961, 5347724405937.878].map(at),
  );
  // Release edges run from the releasing op to the wait.
  for (let e = 0; e < t.edges.count; e++) {
    if (edgeKind(t, e) === 'release') assert.equal(t.calls.releasedBy[t.edges.to[e]], t.edges.from[e]);
  }
  // Queries are not waits, and keep the event they asked about.
  const queries = [...Array(t.calls.count).keys()].filter((i) => callKind(t, i) === 'query');
  assert.deepEqual(
    queries.map((i) => [str(t, t.calls.event[i]), isWait(t, i)]),
    [
      ['event 4', false],
      ['event 4', false],
    ],
  );
});

test('S8 sync_overlap: the 8 Stream Wait Event waits and the stream each one binds', () => {
  const t = load('sync_overlap.json');
  assert.deepEqual(opsPerStream(t, 'kernel'), { 'stream 7': 26, 'stream 18': 8 });
  assert.deepEqual(opsPerStream(t, 'memcpy'), { 'stream 7': 1, 'stream 25': 4 });
  assert.deepEqual(opsPerStream(t, 'memset'), { 'stream 7': 12 });
  const first = 5347725180037.115; // aten::randn, the earliest event
  const waitsOnStreams = [...Array(t.calls.count).keys()].filter((i) => callKind(t, i) === 'streamWait');
  assert.deepEqual(
    waitsOnStreams.map((i) => [
      t.calls.begin[i],
      t.lanes[t.calls.stream[i]].name,
      str(t, t.calls.event[i]),
      isWait(t, i),
    ]),
    [
      [5347725578702.565, 'stream 7', 'event 38', false],
      [5347725578728.068, 'stream 7', 'event 39', false],
      [5347725579488.773, 'stream 7', 'event 40', false],
      [5347725579505.578, 'stream 7', 'event 41', false],
      [5347725580011.882, 'stream 7', 'event 42', false],
      [5347725580025.34, 'stream 7', 'event 43', false],
      [5347725580626.83, 'stream 7', 'event 44', false],
      [5347725580640.688, 'stream 7', 'event 45', false],
    ].map(([ts, ...rest]) => [ns(ts as number, first), ...rest]),
  );
  // CUDA 13 leaves the record unnamed, so no event edge is invented.
  assert.equal([...t.edges.kind].filter((_, i) => edgeKind(t, i) === 'event').length, 0);
  assert.ok(
    t.meta.notes?.some((n) => n.startsWith('9 event waits without their record')),
    String(t.meta.notes),
  );
});

test('S12 S13 S14 sync_overlap: host waits, the blocking event wait left unknown', () => {
  const t = load('sync_overlap.json');
  const first = 5347725180037.115;
  const at = (ts: number) => ns(ts, first);
  assert.deepEqual(waits(t), [
    // Event 46's record stream is not in the data and kernels were still running: unknown.
    {
      name: 'cudaEventSynchronize',
      begin: at(5347725580823.891),
      releasedBy: 'unknown',
      blockedNs: 17091416,
      unblockNs: NaN,
      context: '',
      event: 'event 46',
    },
    {
      name: 'cudaStreamSynchronize',
      begin: at(5347725597999.073),
      releasedBy: `Memcpy DtoH (Device -> Pinned) @${at(5347725597998.542)}`,
      blockedNs: 1582,
      unblockNs: 5535,
      context: 'aten::item > aten::_local_scalar_dense',
      stream: 'stream 7',
    },
    {
      name: 'cudaDeviceSynchronize',
      begin: at(5347725598079.44),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
    },
    {
      name: 'cudaDeviceSynchronize',
      begin: at(5347725598134.32),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
    },
  ]);
  // Pinned asynchronous copies never block the host.
  const copies = [...Array(t.calls.count).keys()].filter((i) => callKind(t, i) === 'memcpy');
  assert.deepEqual(
    copies.map((i) => t.calls.blockedNs[i]),
    [0, 0, 0, 0, 0],
  );
});

test('S14 S17 seed_synchronize (no cuda_sync events): the waits the PyTorch code caused, with context', () => {
  const t = load('seed_synchronize.json');
  const first = 5347552839072.055; // aten::randn
  const at = (ts: number) => ns(ts, first);
  const copy = 'aten::to > aten::_to_copy > aten::copy_';
  assert.deepEqual(waits(t), [
    // x.to('cuda') from pageable memory: the copy (ends 841502.733) released the host at 841503.069.
    {
      name: 'cudaMemcpyAsync',
      begin: at(5347552841472.514),
      releasedBy: `Memcpy HtoD (Pageable -> Device) @${at(5347552841501.869)}`,
      blockedNs: 30219,
      unblockNs: 336,
      context: copy,
      stream: 'stream 7',
    },
    // Without cuda_sync the synced stream is unknown, but nothing issued before was still running.
    {
      name: 'cudaStreamSynchronize',
      begin: at(5347552841504.04),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: copy,
    },
    // Three torch.cuda.synchronize() calls: no aten op encloses them.
    {
      name: 'cudaDeviceSynchronize',
      begin: at(5347552841715.539),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
    },
    {
      name: 'cudaDeviceSynchronize',
      begin: at(5347552841791.611),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
    },
    {
      name: 'cudaDeviceSynchronize',
      begin: at(5347552841823.311),
      releasedBy: 'none',
      blockedNs: 0,
      unblockNs: NaN,
      context: '',
    },
  ]);
  assert.deepEqual(t.meta.notes, [
    '4 synchronize calls without cuda_sync events: stream or event not recorded, resolved by issue order',
  ]);
  // Context calls keep their nesting depth.
  const depth = (name: string) =>
    [...Array(t.calls.count).keys()].filter((i) => str(t, t.calls.name[i]) === name).map((i) => t.calls.depth[i]);
  assert.deepEqual([depth('aten::to'), depth('aten::_to_copy'), depth('aten::copy_')], [[0], [1], [2]]);
});

test('chunking does not change the result: byte chunks of 1 to 97 bytes, and progress counts every byte', () => {
  for (const name of ['sync_seeds.json', 'seed_synchronize.json']) {
    const bytes = fixture(name);
    const whole = traceToJson(load(name));
    let progress = 0;
    const imp = createPytorchImporter({ onProgress: (b) => (progress = b) });
    for (let at = 0, k = 0; at < bytes.length; k++) {
      const size = 1 + ((k * 37) % 97);
      imp.push(bytes.subarray(at, at + size));
      at += size;
    }
    assert.equal(traceToJson(imp.finish()), whole, name);
    assert.equal(progress, bytes.length);
  }
});

test('unknown categories are counted in the notes and do not stop the import', () => {
  const text = JSON.stringify({
    traceEvents: [
      {
        ph: 'X',
        cat: 'cuda_runtime',
        name: 'cudaLaunchKernel',
        pid: 1,
        tid: 2,
        ts: 10,
        dur: 2,
        args: { correlation: 5 },
      },
      { ph: 'X', cat: 'mystery', name: 'x', pid: 1, tid: 2, ts: 11, dur: 1 },
      { ph: 'X', cat: 'mystery', name: 'y', pid: 1, tid: 2, ts: 12, dur: 1 },
      {
        ph: 'X',
        cat: 'kernel',
        name: 'k',
        pid: 0,
        tid: 7,
        ts: 13,
        dur: 4,
        args: { correlation: 5, device: 0, stream: 7, grid: [2, 3, 1], block: [128, 1, 1] },
      },
    ],
  });
  const t = importPytorch(text);
  assert.deepEqual(t.meta.notes, ['ignored 2 events of unknown category "mystery"']);
  assert.equal(t.ops.count, 1);
  assert.deepEqual(
    [t.ops.grid[0], t.ops.block[0], t.ops.start[0], t.ops.end[0], t.ops.call[0]],
    [6, 128, 3000, 7000, 0],
  );
});

test('S12 a CUDA 12 trace that names the record: the event wait is released by the last op on the recorded stream', () => {
  const X = (cat: string, name: string, ts: number, dur: number, args: object, tid = 9) => ({
    ph: 'X',
    cat,
    name,
    pid: 1,
    tid,
    ts,
    dur,
    args,
  });
  const gpu = (name: string, stream: number, ts: number, dur: number, correlation: number) => ({
    ph: 'X',
    cat: 'kernel',
    name,
    pid: 0,
    tid: stream,
    ts,
    dur,
    args: { correlation, device: 0, stream },
  });
  const t = importPytorch(
    JSON.stringify({
      traceEvents: [
        X('cuda_runtime', 'cudaLaunchKernel', 0, 5, { correlation: 1 }),
        gpu('producer', 13, 6, 100, 1),
        X('cuda_runtime', 'cudaLaunchKernel', 6, 5, { correlation: 2 }),
        gpu('other', 14, 12, 300, 2),
        X('cuda_runtime', 'cudaEventRecord', 12, 1, { correlation: 3 }),
        X('cuda_runtime', 'cudaLaunchKernel', 14, 5, { correlation: 4 }),
        gpu('after-record', 13, 106, 50, 4),
        X('cuda_runtime', 'cudaStreamWaitEvent', 20, 1, { correlation: 5 }),
        X('cuda_runtime', 'cudaLaunchKernel', 22, 5, { correlation: 6 }),
        gpu('consumer', 14, 312, 10, 6),
        X('cuda_runtime', 'cudaEventSynchronize', 30, 80, { correlation: 7 }),
        X(
          'cuda_sync',
          'Stream Wait Event',
          20,
          1,
          {
            correlation: 5,
            cuda_sync_kind: 'Stream Wait Event',
            wait_on_stream: 13,
            wait_on_cuda_event_record_corr_id: 3,
            wait_on_cuda_event_id: 2,
            stream: 14,
            device: 0,
          },
          14,
        ),
        X(
          'cuda_sync',
          'Event Sync',
          30,
          79,
          {
            correlation: 7,
            cuda_sync_kind: 'Event Sync',
            wait_on_stream: 13,
            wait_on_cuda_event_record_corr_id: 3,
            wait_on_cuda_event_id: 2,
            stream: -1,
            device: 0,
          },
          1,
        ),
      ],
    }),
  );
  const sync = [...Array(t.calls.count).keys()].find((i) => callKind(t, i) === 'eventSync')!;
  const producer = [...Array(t.ops.count).keys()].find((i) => str(t, t.ops.name[i]) === 'producer')!;
  // 'after-record' ends later on the same stream but was issued after the record (S6).
  assert.equal(t.calls.releasedBy[sync], producer);
  assert.deepEqual([t.calls.blockedNs[sync], t.calls.unblockNs[sync]], [76000, 4000]);
  const ev = [...Array(t.edges.count).keys()].filter((e) => edgeKind(t, e) === 'event');
  assert.deepEqual(
    ev.map((e) => [str(t, t.ops.name[t.edges.from[e]]), str(t, t.ops.name[t.edges.to[e]])]),
    [['producer', 'consumer']],
  );
  assert.equal(t.meta.notes?.length, 0);
});
