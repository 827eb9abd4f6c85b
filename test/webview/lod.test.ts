import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hitTest,
  indexTracks,
  lowerBoundStart,
  runningEnd,
  trackIndex,
  typicalItem,
  visitVisible,
} from '../../webview/lod';

/** n back-to-back items of `dur` ns with `gap` ns between them. */
function items(n: number, dur: number, gap: number) {
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    start[i] = i * (dur + gap);
    end[i] = start[i] + dur;
  }
  return {
    start,
    end,
    index: trackIndex(
      Int32Array.from({ length: n }, (_, i) => i),
      end,
    ),
  };
}

function visit(x: ReturnType<typeof items>, t0: number, nsPerPx: number, widthPx: number) {
  const single: number[] = [];
  const merged: { id: number; count: number; x0: number; x1: number }[] = [];
  visitVisible(
    x.index,
    x.start,
    x.end,
    { t0, nsPerPx, widthPx },
    (id) => single.push(id),
    (id, count, x0, x1) => merged.push({ id, count, x0, x1 }),
  );
  return { single, merged };
}

test('a frame over a million sub-pixel items draws at most one mark per pixel column', () => {
  const x = items(1_000_000, 10, 5); // 15 ms of 10 ns items
  const width = 1000;
  const { single, merged } = visit(x, 0, 15_000_000 / width, width);
  assert.equal(single.length, 0);
  assert.ok(merged.length <= width, `${merged.length} marks for ${width} columns`);
  assert.ok(merged.length >= width - 1, 'every column of a busy stream is marked');
  assert.equal(
    merged.reduce((s, m) => s + m.count, 0),
    1_000_000,
    'every item is in exactly one mark',
  );
});

test('items wider than a pixel are visited one by one, and only those in view', () => {
  const x = items(1000, 100, 100); // item i spans [200 i, 200 i + 100]
  const { single, merged } = visit(x, 10_000, 10, 100); // 10_000 .. 11_000 ns, 10 px per item
  assert.deepEqual(single, [50, 51, 52, 53, 54, 55]);
  assert.equal(merged.length, 0);
});

test('a long item that starts before the view is still drawn', () => {
  const start = Float64Array.from([0, 500, 600]);
  const end = Float64Array.from([10_000, 550, 650]);
  const index = trackIndex(Int32Array.from([0, 1, 2]), end);
  const seen: number[] = [];
  visitVisible(
    index,
    start,
    end,
    { t0: 5000, nsPerPx: 1, widthPx: 100 },
    (id) => seen.push(id),
    () => assert.fail('nothing is narrower than a pixel'),
  );
  assert.deepEqual(seen, [0]);
});

test('hit-testing prefers a nearby marker over the long item around it, else the item under the pointer', () => {
  const start = Float64Array.from([0, 1000, 5000]);
  const end = Float64Array.from([2000, 1000, 9000]);
  const index = trackIndex(Int32Array.from([0, 1, 2]), end);
  assert.equal(hitTest(index, start, end, 1020, 40), 1, 'the zero-length marker at 1000');
  assert.equal(hitTest(index, start, end, 1500, 40), 0);
  assert.equal(hitTest(index, start, end, 6000, 40), 2);
  assert.equal(hitTest(index, start, end, 3000, 40), -1, 'nothing within the slop');
});

test('of nested items under the pointer, the hit test picks the shortest: the call, not the framework op around it', () => {
  // A host lane: aten::item 0..10000 ns holds cudaMemcpyAsync 2000..5000, which holds
  // cudaStreamSynchronize 3000..4000.
  const start = Float64Array.from([0, 2000, 3000]);
  const end = Float64Array.from([10_000, 5000, 4000]);
  const index = trackIndex(Int32Array.from([0, 1, 2]), end);
  assert.equal(hitTest(index, start, end, 3500, 40), 2, 'inside all three');
  assert.equal(hitTest(index, start, end, 2500, 40), 1, 'inside the copy and aten::item');
  assert.equal(hitTest(index, start, end, 8000, 40), 0, 'inside aten::item only');
});

test('a wide item that starts in the same pixel column as a marker is not swallowed by it', () => {
  const start = Float64Array.from([1000, 1000]);
  const end = Float64Array.from([1000, 9000]);
  const index = trackIndex(Int32Array.from([0, 1]), end);
  const single: number[] = [];
  const merged: number[][] = [];
  visitVisible(
    index,
    start,
    end,
    { t0: 0, nsPerPx: 100, widthPx: 100 },
    (id) => single.push(id),
    (id, count) => merged.push([id, count]),
  );
  assert.deepEqual(merged, [[0, 1]]);
  assert.deepEqual(single, [1]);
});

test('the galloping search finds the same first start at or after t as a scan, from any start point', () => {
  const start = Float64Array.from({ length: 300 }, (_, i) => Math.floor(i / 3) * 10); // repeated starts
  const index = trackIndex(
    Int32Array.from({ length: 300 }, (_, i) => i),
    start,
  );
  for (const lo of [0, 1, 7, 150, 299, 300]) {
    for (const t of [-5, 0, 5, 10, 11, 500, 990, 995, 2000]) {
      let want = lo;
      while (want < 300 && start[want] < t) want++;
      assert.equal(lowerBoundStart(index, start, t, lo), want, `t=${t} from ${lo}`);
    }
  }
});

test('indexing every track in one pass matches sorting each track by start and scanning it', () => {
  // Four tracks: one in time order, one out of order with ties, one empty, one in order but overlapping.
  const n = 600;
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const track = Int32Array.from({ length: n }, () => (rand() < 0.4 ? 0 : rand() < 0.5 ? 1 : 3));
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  const kind = Uint8Array.from({ length: n }, () => Math.floor(rand() * 3));
  for (let i = 0; i < n; i++) {
    start[i] = track[i] === 1 ? Math.floor(rand() * 50) * 10 : i * 10;
    end[i] = start[i] + (track[i] === 0 ? 5 : Math.floor(rand() * 400));
  }
  const x = indexTracks({ lane: track, depth: null, base: Int32Array.from([0, 1, 2, 3]) }, n, 4, start, end, kind);
  for (let t = 0; t < 4; t++) {
    const ids = Int32Array.from(
      [...track.keys()].filter((i) => track[i] === t).sort((a, b) => start[a] - start[b] || a - b),
    );
    const got = x.ids.subarray(x.first[t], x.first[t + 1]);
    assert.deepEqual([...got], [...ids], `ids of track ${t}`);
    let m = -Infinity;
    const ends = [...ids].map((i) => (m = Math.max(m, end[i])));
    const index = { ids: got, maxEnd: x.maxEnd[t] };
    assert.deepEqual(
      [...got.keys()].map((k) => runningEnd(index, end, k)),
      ends,
      `running ends of track ${t}`,
    );
    assert.equal(x.typical[t], typicalItem(ids, kind), `typical item of track ${t}`);
  }
  assert.equal(x.typical[2], -1);
  // Running ends are kept only where items overlap.
  assert.equal(x.maxEnd[0], null);
  assert.ok(x.maxEnd[1] && x.maxEnd[3]);
});
