// S3 read from overlap (core/trace/stream-flags.ts): a stream whose work ran at the same time as the
// legacy default stream's was created non-blocking. Overlap within OVERLAP_NS (1 µs) is clock
// rounding, not evidence; an op wholly inside another is evidence however short it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TraceBuilder } from '../../core/trace/model';
import { gpuWorkByLane, nonBlockingByOverlap } from '../../core/trace/stream-flags';

function trace(lanes: [number, number][][]) {
  const b = new TraceBuilder();
  b.lane({ kind: 'stream', name: 'stream 7', device: 0, legacyDefault: true });
  for (let l = 1; l < lanes.length; l++) b.lane({ kind: 'stream', name: `stream ${l + 10}`, device: 0 });
  lanes.forEach((ops, lane) => ops.forEach(([start, end]) => b.op({ lane, kind: 'kernel', start, end })));
  return b.finish({ source: 'pytorch', clock: 'cupti', alignmentErrorNs: 0 });
}

const legacy: [number, number][] = [
  [0, 10_000],
  [20_000, 30_000],
];

test('S3: only work that overlapped the legacy stream by more than 1 µs shows a non-blocking stream', () => {
  const t = trace([
    legacy,
    [[10_500, 19_000]], // 1: between the legacy ops, touching neither
    [[9_500, 12_000]], // 2: 500 ns of overlap, within clock rounding
    [[5_000, 5_010]], // 3: a 10 ns kernel 5 µs inside a legacy kernel
    [[28_000, 40_000]], // 4: 2 µs of overlap with the second legacy kernel
    [
      [31_000, 32_000],
      [32_500, 60_000],
    ], // 5: after the legacy work
  ]);
  assert.deepEqual([...nonBlockingByOverlap(t)].sort(), [3, 4]);
});

test("each lane's GPU work comes in order of start, whatever order the trace holds it in", () => {
  const t = trace([
    [
      [20_000, 30_000],
      [0, 10_000],
    ],
    [[11_000, 12_000]],
  ]);
  assert.deepEqual([...gpuWorkByLane(t).get(0)!], [1, 0]);
  assert.deepEqual([...gpuWorkByLane(t).get(1)!], [2]);
});

test("an op on a lane the trace does not list is that lane's work", () => {
  const b = new TraceBuilder();
  b.lane({ kind: 'stream', name: 'stream 7', device: 0, legacyDefault: true });
  b.op({ lane: 0, kind: 'kernel', start: 0, end: 10_000 });
  b.op({ lane: 3, kind: 'kernel', start: 2_000, end: 3_000 });
  const t = b.finish({ source: 'pytorch', clock: 'cupti', alignmentErrorNs: 0 });
  assert.deepEqual([...gpuWorkByLane(t).get(3)!], [1]);
});
