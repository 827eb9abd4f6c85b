// loop-sync: a synchronize that recurs in a loop and that the host follows with its next launch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { busyIntervals, idleGapAt, loopSyncs as findLoopSyncs } from '../../core/analyze/loop-syncs';
import { busyTimes } from '../../core/analyze/metrics';
import { happensBefore } from '../../core/analyze/hb';
import { FINDING_KINDS } from '../../core/trace/kinds';
import { TraceBuilder, type Trace } from '../../core/trace/model';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const capture = (name: string) =>
  loadTraceFile(repoPath('test/fixtures/capture/programs', `${name}.syncscope.json.gz`));
const loopSyncs = (t: Trace) => analyze(t).findings.filter((f) => f.kind === 'loop-sync');

/** `n` passes of: launch a 100 us kernel, synchronize, then `after` (a launch or a blocking copy back). */
function loop(n: number, after: 'launch' | 'copy'): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'default', device: 0, legacyDefault: true });
  let now = 0;
  for (let k = 0; k < n; k++) {
    const l = b.call({ lane: host, kind: 'launch', begin: now, end: now + 5_000, stream: s, name: 'cudaLaunchKernel' });
    const op = b.op({ lane: s, kind: 'kernel', start: now + 10_000, end: now + 110_000, call: l, name: 'gemm' });
    b.call({
      lane: host,
      kind: 'deviceSync',
      begin: now + 6_000,
      end: now + 115_000,
      blockedNs: 109_000,
      releasedBy: op,
    });
    if (after === 'copy') {
      const c = b.call({
        lane: host,
        kind: 'memcpy',
        begin: now + 116_000,
        end: now + 130_000,
        stream: s,
        name: 'cudaMemcpy',
        blockedNs: 1_000,
      });
      b.op({ lane: s, kind: 'memcpy', start: now + 120_000, end: now + 125_000, call: c, copy: 'DtoH' });
    }
    now += 200_000;
  }
  return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
}

test('loop-sync is one of the finding kinds', () => assert.ok(FINDING_KINDS.includes('loop-sync')));

test('a device synchronize after each kernel of a loop, followed by the next launch: one finding, its idle gaps summed', () => {
  const [f, ...more] = loopSyncs(loop(4, 'launch'));
  assert.equal(more.length, 0);
  assert.equal(f.rule, 'S14');
  assert.deepEqual(f.calls, [1, 3, 5, 7]);
  // Passes 1 to 3 are followed by a launch: the GPU is idle from 110 us to 210 us of the next pass.
  assert.equal(f.savedNs, 3 * 100_000);
  assert.match(f.message, /^candidate: .* recurs 4 times .*; 3 times the host launched again/);
});

/**
 * `n` passes of: launch a 100 us kernel, then synchronize after it ended (the host slower than the
 * GPU), then the next launch; on the script's thread, or on a loader thread beside a script thread
 * whose own calls span the run.
 */
function unblockedLoop(n: number, plainSyncNs?: number, onLoader = false): Trace {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const host = onLoader ? b.lane({ kind: 'thread', name: 'loader', device: 0 }) : main;
  const s = b.lane({ kind: 'stream', name: 'default', device: 0, legacyDefault: true });
  if (onLoader)
    for (const at of [-10_000, n * 300_000])
      b.call({ lane: main, kind: 'api', begin: at, end: at + 1000, name: 'cudaGetDevice' });
  for (let k = 0, now = 0; k < n; k++, now += 300_000) {
    const l = b.call({ lane: host, kind: 'launch', begin: now, end: now + 5_000, stream: s, name: 'cudaLaunchKernel' });
    b.op({ lane: s, kind: 'kernel', start: now + 10_000, end: now + 110_000, call: l, name: 'gemm' });
    b.call({ lane: host, kind: 'deviceSync', begin: now + 250_000, end: now + 252_000, blockedNs: 0 });
  }
  const plainStep = plainSyncNs === undefined ? {} : { plainStep: { ns: 250_000, steps: 20, syncNs: plainSyncNs } };
  return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0, ...plainStep });
}

test('S14: passes that found the GPU done count only where the plain steps timed waits the recorder hid', () => {
  // Unblocked, with no word from the plain steps: nothing shows that a pass drained the GPU.
  assert.deepEqual(loopSyncs(unblockedLoop(5)), []);
  assert.deepEqual(loopSyncs(unblockedLoop(5, 0)), []);
  // The plain steps waited 120 us a step in synchronizing calls: the recorder's slower host hid it.
  const [f, ...more] = loopSyncs(unblockedLoop(5, 120_000));
  assert.equal(more.length, 0);
  assert.deepEqual(f.calls, [1, 3, 5, 7, 9]);
  // The clock times the script's thread alone: a loader thread's passes that did not block are no evidence.
  assert.deepEqual(loopSyncs(unblockedLoop(5, 120_000, true)), []);
  // The last pass is followed by no launch. The idle gaps of passes that did not block are the
  // recorder's (the GPU was done before the synchronize was called): none is counted as saved.
  assert.equal(f.savedNs, 0);
  assert.match(
    f.message,
    /recurs 5 times .*; 4 times the host launched again without another wait: 4 found the GPU done only in this recording/,
  );
  assert.match(f.message, /waited 120 µs a step in synchronizing calls \(the plain steps' sync clock; inferred\)/);
});

test('near misses: two passes are no loop; a result read back (a blocking copy) before the next launch is a use', () => {
  assert.deepEqual(loopSyncs(loop(3, 'launch')), []);
  assert.deepEqual(loopSyncs(loop(6, 'copy')), []);
});

test('a synchronize after the thread copied to pinned memory without blocking reads that copy: its fix moves the read', () => {
  // Each pass: a 100 us kernel, its result copied to pinned memory with cudaMemcpyAsync (the call
  // returns at once), a device synchronize until the copy is done, then the next launch.
  const passes = (copyBack: boolean) => {
    const b = new TraceBuilder();
    const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
    const s = b.lane({ kind: 'stream', name: 's', device: 0, nonBlocking: true });
    for (let k = 0, now = 0; k < 5; k++, now += 200_000) {
      const l = b.call({
        lane: host,
        kind: 'launch',
        begin: now,
        end: now + 5_000,
        stream: s,
        name: 'cudaLaunchKernel',
      });
      b.op({ lane: s, kind: 'kernel', start: now + 10_000, end: now + 110_000, call: l, name: 'gemm' });
      if (copyBack) {
        const c = b.call({
          lane: host,
          kind: 'memcpy',
          begin: now + 6_000,
          end: now + 9_000,
          stream: s,
          name: 'cudaMemcpyAsync',
        });
        b.op({
          lane: s,
          kind: 'memcpy',
          start: now + 110_000,
          end: now + 112_000,
          call: c,
          copy: 'DtoH',
          hostMemory: 'pinned',
        });
      }
      b.call({ lane: host, kind: 'deviceSync', begin: now + 10_000, end: now + 115_000, blockedNs: 105_000 });
    }
    return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
  };
  const [read] = loopSyncs(passes(true));
  assert.match(
    read.message,
    /recurs 5 times .*; before it, the thread copied to pinned host memory without blocking: the host reads that copy after it \(deduced/,
  );
  assert.match(read.fix!, /^keep the values on the GPU and read them after the loop/);
  // The same loop without the copy back: nothing says the host reads anything.
  const [plain] = loopSyncs(passes(false));
  assert.doesNotMatch(plain.message, /copied/);
  assert.match(plain.fix!, /^remove the synchronize/);
});

test('idle gap around a time: 0 while busy or after the last work', () => {
  const busy = { start: Float64Array.of(0, 100), end: Float64Array.of(50, 150) };
  assert.equal(idleGapAt(busy, 60), 50);
  assert.equal(idleGapAt(busy, 40), 0);
  assert.equal(idleGapAt(busy, 160), 0);
});

/** Kernels as [lane, start, end] on streams s1 (0) and s2 (1) of device 0 and one stream (2) of device 1, and a marker. */
function kernels(work: [number, number, number][]): Trace {
  const b = new TraceBuilder();
  const lanes = [
    b.lane({ kind: 'stream', name: 's1', device: 0 }),
    b.lane({ kind: 'stream', name: 's2', device: 0 }),
    b.lane({ kind: 'stream', name: 'other', device: 1 }),
  ];
  for (const [lane, start, end] of work) b.op({ lane: lanes[lane], kind: 'kernel', start, end, call: -1 });
  b.op({ lane: lanes[1], kind: 'eventRecord', start: 22, end: 28, call: -1 }); // a marker is not work
  return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
}

test('busy intervals: the union of the work on the device, touching and empty intervals joined', () => {
  const work: [number, number, number][] = [
    [0, 30, 40],
    [1, 0, 10],
    [0, 10, 20], // touches [0, 10]
    [1, 20, 20], // empty, touches [10, 20]
    [1, 25, 25], // empty, alone
    [0, 35, 60], // inside and past [30, 40]
    [2, 20, 30], // another device
  ];
  assert.deepEqual(busyIntervals(kernels(work), 0), {
    start: Float64Array.of(0, 25, 30),
    end: Float64Array.of(20, 25, 60),
  });
  // An end before its start (a broken import) keeps the ops-in-start-order rule.
  const broken = kernels([...work, [1, 50, 45], [1, 70, 65]]);
  assert.deepEqual(busyIntervals(broken, 0), {
    start: Float64Array.of(0, 25, 30, 70),
    end: Float64Array.of(20, 25, 60, 65),
  });
});

test('sync_every_gemm capture: 40 synchronizes after the GEMMs, 39 followed by the next GEMM; the fixed run has none', async () => {
  const [f, ...more] = loopSyncs(await capture('sync_every_gemm.plain'));
  assert.equal(more.length, 0);
  assert.equal(f.kind, 'loop-sync');
  assert.equal(f.calls.length, 40);
  assert.equal(f.calls[0], 24); // the first cudaDeviceSynchronize inside the loop (call 2 is the one before it)
  assert.match(f.message, /cudaDeviceSynchronize .* recurs 40 times in a loop \(after xmma_gemm f32 nn\);/);
  // The first gap, read by hand: GEMM op 2 ends at 126752535 ns, GEMM op 3 starts at 127508883 ns.
  const t = await capture('sync_every_gemm.plain');
  assert.equal(t.ops.start[3] - t.ops.end[2], 756_348);
  assert.ok(f.savedNs! > 39 * 150_000 && f.savedNs! < 39 * 800_000, `${f.savedNs}`);
  assert.deepEqual(loopSyncs(await capture('sync_every_gemm.fix')), []);
});

test('the busy times the metrics gathered give the same loop-syncs as gathering them again', async () => {
  const t = await capture('sync_every_gemm.plain');
  const b = happensBefore(t).graph.bindings;
  const found = findLoopSyncs(t, b);
  assert.ok(found.length > 0 && found[0].savedNs! > 0);
  assert.deepEqual(findLoopSyncs(t, b, busyTimes(t)), found);
});

test('S14: every pass of a loop-sync line is its member, those that found the GPU done too (loop_sync profile, H100)', async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-programs/loop_sync.profile.json.gz'));
  const [f] = loopSyncs(t);
  // Read by hand: the ten cudaDeviceSynchronize calls of loop_sync.py:60 in ProfilerStep#10 to #19.
  // The first took 18 µs and blocked 0: it follows work of the step before the trace, done by then.
  // The other nine blocked 36 to 196 µs each, on the step's last multi_tensor_apply kernel (the
  // second: its kernel, correlation 8893, ends at 5689390130503.4 µs; the sync, 8899, began at
  // 130467.1, 36.4 µs before). An eleventh, after the window, shows the loop going on.
  assert.deepEqual(f.calls, [65, 1597, 3129, 4661, 6193, 7725, 9257, 10789, 12321, 13853]);
  assert.match(f.message, /loop_sync\.py:60 in step\(\) recurs 10 times in a loop/);
  // Evidence of a drained GPU comes from the passes that blocked and were followed by a launch alone.
  assert.match(f.message, /; 9 times the host launched again without another wait/);
});

test('S14: a compiled step timed with a host clock, profiled with stacks: the recorder hid every wait the plain steps had (compiled_step_timer, H100)', async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-truth-fresh/compiled_step_timer.profile.json.gz'));
  // Read by hand: the report lists 11 cudaDeviceSynchronize calls on the script's thread, each
  // blocked 0 ns: under the profiler a step took about 20 ms, the GPU's work in it 4.8 ms. The
  // first ten are compiled_step_timer.py:70, the eleventh the harness's after the loop. The plain
  // steps' sync clock (meta.plainStep.syncNs) timed 2000049 ns a step in synchronizing calls.
  assert.equal(t.meta.plainStep?.syncNs, 2000049);
  const [f, ...more] = loopSyncs(t);
  assert.equal(more.length, 0);
  assert.deepEqual(f.calls, [109, 5261, 10413, 15565, 20717, 25869, 31021, 36173, 41325, 46477]);
  assert.match(f.message, /compiled_step_timer\.py:70 in step\(\) recurs 10 times in a loop/);
  assert.match(
    f.message,
    /; 9 times the host launched again without another wait: 9 found the GPU done only in this recording/,
  );
  assert.match(f.message, /the script's thread waited 2 ms a step/);
  assert.match(f.fix ?? '', /record CUDA events around the work instead/);
});

test("a synchronize that times the GPU's work with the host's clock: its fix says to time it with CUDA events", async () => {
  // time_backward.py (H200 capture) calls torch.cuda.synchronize() at line 22, before reading
  // time.perf_counter(), each of its 30 steps: the trace cannot see the read, so the fix names both.
  const t = await loadTraceFile(repoPath('test/fixtures/python/time_backward.capture.syncscope.json.gz'));
  const [f] = loopSyncs(t);
  assert.match(f.message, /cudaDeviceSynchronize on device at \S+time_backward\.py:22 in <module> recurs 30 times/);
  assert.match(f.fix!, /record CUDA events around the work instead and read their elapsed time after the loop$/);
});
