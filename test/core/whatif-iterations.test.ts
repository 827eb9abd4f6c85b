// Replay per iteration (core/whatif/iterations.ts, core/whatif/replay.ts), and a copy whose staging
// the simulator holds the call for: values read by hand from small traces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200 } from '../../core/simulate';
import { TraceBuilder } from '../../core/trace/model';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { iterationsOf } from '../../core/whatif/iterations';
import { replay } from '../../core/whatif/replay';
import { CK } from '../../core/trace/kinds';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parseTrace } from '../../core/trace/json';
import { repoPath } from '../helpers/paths';

const loadTrace = (path: string) => parseTrace(gunzipSync(readFileSync(repoPath(path))).toString(), path);

const META = { source: 'capture', clock: 'test', alignmentErrorNs: 0 } as const;

/**
 * Two identical set-up launches 10 us apart, then a loop of three iterations that each launch a
 * 100 us kernel and synchronize its stream, starting at 1 ms, 1.3 ms and 1.62 ms; `steps` wraps
 * each iteration in a ProfilerStep range.
 */
function loop(steps = false, syncStream = true) {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'legacy', device: 0, legacyDefault: true });
  const launch = (at: number, name: string, ns: number) => {
    const c = b.call({ lane: host, kind: 'launch', begin: at, end: at + 5000, stream: s, name: 'cudaLaunchKernel' });
    b.op({ lane: s, kind: 'kernel', start: at + 6000, end: at + 6000 + ns, call: c, name });
  };
  launch(0, 'fill', 2000);
  launch(10_000, 'fill', 2000);
  [1_000_000, 1_300_000, 1_620_000].forEach((at, k) => {
    if (steps) b.call({ lane: host, kind: 'context', begin: at - 1000, end: at + 200_000, name: `ProfilerStep#${k}` });
    launch(at, 'gemm', 100_000);
    const on = syncStream ? { stream: s } : {};
    b.call({ lane: host, kind: 'streamSync', begin: at + 20_000, end: at + 106_000, ...on, blockedNs: 86_000 });
  });
  return b.finish(META);
}

const opsByCall = (t: ReturnType<typeof loop>) => {
  const m = new Map<number, number[]>();
  for (let j = 0; j < t.ops.count; j++) m.set(t.ops.call[j], [...(m.get(t.ops.call[j]) ?? []), j]);
  return m;
};

test('the loop is the repeating call sequence that lasts longest, not the two set-up launches', () => {
  const t = loop();
  const calls = [0, 1, 2, 3, 4, 5, 6, 7];
  assert.deepEqual(iterationsOf(t, calls, opsByCall(t)), {
    from: 'loop',
    list: [
      { label: 'iteration 1', first: 2, last: 3 },
      { label: 'iteration 2', first: 4, last: 5 },
      { label: 'iteration 3', first: 6, last: 7 },
    ],
  });
});

test('ProfilerStep ranges are the iterations when the trace has more than one', () => {
  const t = loop(true);
  // Calls 2, 5, 8 are the ranges; 0, 1 the set-up launches; then launch and sync in each range.
  const calls = [0, 1, 3, 4, 6, 7, 9, 10];
  assert.deepEqual(
    iterationsOf(t, calls, opsByCall(t))?.list.map((i) => [i.label, i.first, i.last]),
    [
      ['ProfilerStep#0', 2, 3],
      ['ProfilerStep#1', 4, 5],
      ['ProfilerStep#2', 6, 7],
    ],
  );
});

test("each iteration's measured span runs to the next one's first call; the last to its own last call's end", () => {
  const r = replay(loop(), h200);
  assert.equal(r.iterationsFrom, 'loop');
  assert.deepEqual(
    r.iterations.map((i) => [i.label, i.firstCall, i.lastCall, i.measuredNs]),
    [
      ['iteration 1', 2, 3, 300_000],
      ['iteration 2', 4, 5, 320_000],
      ['iteration 3', 6, 7, 106_000],
    ],
  );
  for (const i of r.iterations) assert.ok(Math.abs(i.error) < 0.05, `${i.label}: ${i.error}`);
});

test("a pageable copy's staging, which the simulator holds the call for, is not host work too", () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'legacy', device: 0, legacyDefault: true });
  // The capture counted none of the 1 ms call as blocked; its DMA ran from 0.1 ms to its end.
  const c = b.call({ lane: host, kind: 'memcpy', begin: 0, end: 1_000_000, stream: s, name: 'cudaMemcpyAsync' });
  b.op({
    lane: s,
    kind: 'memcpy',
    start: 100_000,
    end: 1_000_000,
    call: c,
    copy: 'HtoD',
    bytes: 1 << 20,
    hostMemory: 'pageable',
  });
  b.call({ lane: host, kind: 'deviceSync', begin: 1_050_000, end: 1_052_000 });
  const steps = scenarioFromTrace(b.finish(META), h200).threads.get('main')!;
  assert.deepEqual(
    steps.map((x) => x.step),
    [
      { copy: 'h_pageable_1048576', to: 'd_1048576', bytes: 1 << 20, async: true, ns: 900_000 },
      // the 50 us gap, and the 0.1 ms before the DMA started (the host staged the data) less the model's 2 us call
      { hostWork: { ns: 50_000 + 100_000 - 2000 } },
      { deviceSync: true },
    ],
  );
});

test("a pageable copy that waited for its stream: the wait and the copy are the simulator's, none of the call is host work", () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'legacy', device: 0, legacyDefault: true });
  const l = b.call({ lane: host, kind: 'launch', begin: 0, end: 5000, stream: s, name: 'cudaLaunchKernel' });
  b.op({ lane: s, kind: 'kernel', start: 6000, end: 400_000, call: l, name: 'gemm' });
  // The call began at 10 us, was blocked until the kernel ended at 0.4 ms, then staged and copied to 1 ms.
  const c = b.call({
    lane: host,
    kind: 'memcpy',
    begin: 10_000,
    end: 1_000_000,
    stream: s,
    name: 'cudaMemcpyAsync',
    blockedNs: 390_000,
  });
  b.op({
    lane: s,
    kind: 'memcpy',
    start: 400_000,
    end: 1_000_000,
    call: c,
    copy: 'HtoD',
    bytes: 1 << 20,
    hostMemory: 'pageable',
  });
  b.call({ lane: host, kind: 'deviceSync', begin: 1_050_000, end: 1_052_000 });
  const steps = scenarioFromTrace(b.finish(META), h200).threads.get('main')!;
  assert.deepEqual(
    steps.slice(2).map((x) => x.step),
    [
      { copy: 'h_pageable_1048576', to: 'd_1048576', bytes: 1 << 20, async: true, ns: 600_000 },
      { hostWork: { ns: 50_000 } },
      { deviceSync: true },
    ],
  );
});

test('an iteration whose wait the scenario left out says so', () => {
  const r = replay(loop(false, false), h200);
  // Without its 86 us wait each iteration replays shorter than the 300 and 320 us measured; the last
  // is its launch alone (its wait is no step), so it is not compared past it.
  assert.equal(r.iterations.length, 3);
  for (const i of r.iterations.slice(0, 2)) {
    assert.ok(i.error < -0.05, `${i.label}: ${i.error}`);
    assert.equal(
      i.why,
      `the scenario left out: cudaStreamSynchronize names no stream in the trace (call ${i.firstCall + 1}), so the replay does not block where the host waited for the GPU`,
    );
  }
});

test('a loop past a long set-up with no wide gap before it is found, from its first iteration', () => {
  // As a model's construction: 8 blocking 3 ms copies, then 300 set-up launches of all kinds 1 us
  // apart, then 30 steps (a launch and a 1 ms stream sync each) with no wider gap before them. The
  // copies repeat too, but the steps last longer.
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  let at = 0;
  const call = (kind: 'memcpy' | 'launch' | 'streamSync', name: string, ns: number) => {
    const c = b.call({ lane: host, kind, begin: at, end: at + ns, stream: s, name });
    at += ns + 1000;
    return c;
  };
  for (let k = 0; k < 8; k++) call('memcpy', 'cudaMemcpyAsync', 3_000_000);
  for (let k = 0; k < 300; k++)
    b.op({
      lane: s,
      kind: 'kernel',
      start: at,
      end: at + 10,
      call: call('launch', `init_${k}`, 5000),
      name: `init_${k}`,
    });
  for (let k = 0; k < 30; k++) {
    b.op({ lane: s, kind: 'kernel', start: at, end: at + 990_000, call: call('launch', 'step', 5000), name: 'step' });
    call('streamSync', 'cudaStreamSynchronize', 1_000_000);
  }
  const t = b.finish(META);
  const calls = [...Array(t.calls.count).keys()];
  const found = iterationsOf(t, calls, opsByCall(t));
  assert.equal(found?.list.length, 30);
  assert.deepEqual(found?.list[0], { label: 'iteration 1', first: 308, last: 309 });
  assert.deepEqual(found?.list[29], { label: 'iteration 30', first: 366, last: 367 });
});

test('a loop is found over all its repeats, to the last, whichever call a search met it at', () => {
  // dataloader_workers' capture, its main thread: 338 calls, a loop of 28 calls a step that repeats
  // 32 times to the last call; the search meets it mid-way.
  const t = loadTrace('test/fixtures/python/dataloader_workers.capture.syncscope.json.gz');
  const calls: number[] = [];
  for (let i = 0; i < t.calls.count; i++) if (t.calls.lane[i] === 1 && t.calls.kind[i] !== CK.context) calls.push(i);
  const found = iterationsOf(t, calls, opsByCall(t));
  assert.equal(calls.length, 338);
  assert.equal(found?.list.length, 32);
  assert.deepEqual(found?.list[0], { label: 'iteration 1', first: 0, last: 27 });
  assert.deepEqual(found?.list[31], { label: 'iteration 32', first: 328, last: 337 });
});

test("a loop whose copies' sizes follow the data is one loop: a capture names each copy by its size", () => {
  // Each iteration launches a kernel, then copies back what a boolean mask kept: 4 B of count, then
  // the kept values, whose size differs every iteration, as a capture names them.
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'legacy', device: 0, legacyDefault: true });
  [41_008, 40_152, 39_784, 40_960].forEach((kept, k) => {
    const at = 1_000_000 * (k + 1);
    const l = b.call({ lane: host, kind: 'launch', begin: at, end: at + 5000, stream: s, name: 'cudaLaunchKernel' });
    b.op({ lane: s, kind: 'kernel', start: at + 6000, end: at + 106_000, call: l, name: 'encoder' });
    [4, kept].forEach((bytes, n) => {
      const from = at + 200_000 + n * 100_000;
      const c = b.call({
        lane: host,
        kind: 'memcpy',
        begin: from,
        end: from + 50_000,
        stream: s,
        name: 'cudaMemcpyAsync',
      });
      b.op({
        lane: s,
        kind: 'memcpy',
        start: from + 10_000,
        end: from + 20_000,
        call: c,
        copy: 'DtoH',
        bytes,
        name: `DtoH ${bytes} B (pageable)`,
      });
    });
  });
  const t = b.finish(META);
  const found = iterationsOf(t, [...Array(t.calls.count).keys()], opsByCall(t));
  assert.equal(found?.list.length, 4);
  assert.deepEqual(found?.list[3], { label: 'iteration 4', first: 9, last: 11 });
});

test("eval_masked_preds' capture: the kept predictions' copies differ in size each step, and the loop is every step (H100)", () => {
  // Read by hand from the capture's main thread: each step copies back 4 B (nonzero's count) and the
  // kept predictions, 41008 B in one step and 40152 B in the next: each copy's size repeats only
  // every 8 steps, with the 8 batches.
  const t = loadTrace('test/fixtures/whatif-truth-fresh/eval_masked_preds.capture.syncscope.json.gz');
  const sizes = new Set<number>();
  for (let j = 0; j < t.ops.count; j++) if (t.ops.copy[j] !== 0) sizes.add(t.ops.bytes[j]);
  assert.ok(sizes.has(41_008) && sizes.has(40_152));
  const main = t.lanes.findIndex((l) => l?.name === 'main');
  const calls: number[] = [];
  for (let i = 0; i < t.calls.count; i++) if (t.calls.lane[i] === main && t.calls.kind[i] !== CK.context) calls.push(i);
  const found = iterationsOf(t, calls, opsByCall(t));
  // A step is 128 calls: the head's 576 B memset comes at calls 3092 and 3220 (by index in the trace).
  assert.ok(found && found.list.length >= 59, `${found?.list.length} iterations`);
  for (const it of found.list) assert.equal(it.last - it.first + 1, 128);
});
