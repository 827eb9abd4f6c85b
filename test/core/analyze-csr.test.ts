import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupByKey, IntList } from '../../core/analyze/csr';
import { sortRuns } from '../../core/analyze/merge-runs';
import { busyTimes } from '../../core/analyze/metrics';
import { TraceBuilder } from '../../core/trace/model';

test('groupByKey groups items by key in item order and leaves out keys outside the buckets', () => {
  const keys = Int32Array.of(2, 0, 2, -1, 1, 0, 3);
  const { start, ids } = groupByKey(keys, keys.length, 3);
  assert.deepEqual([...start], [0, 2, 3, 5]);
  assert.deepEqual([...ids], [1, 5, 4, 0, 2]);
  // Values stand in for the item indexes; n limits the items read.
  const values = Int32Array.of(10, 11, 12, 13, 14, 15, 16);
  const first5 = groupByKey(keys, 5, 3, values);
  assert.deepEqual([...first5.start], [0, 1, 2, 4]);
  assert.deepEqual([...first5.ids], [11, 14, 10, 12]);
});

test('an IntList keeps every pushed value through its growth', () => {
  const list = new IntList(2);
  for (let i = 0; i < 9; i++) list.push(i * 3 - 4);
  assert.equal(list.length, 9);
  assert.deepEqual([...list.view()], [-4, -1, 2, 5, 8, 11, 14, 17, 20]);
});

test('sortRuns sorts runs that are sorted, unsorted or empty, in odd and even numbers', () => {
  // Runs: [1 4 9] [] [0 5] [7 3 8] (out of order) [2]
  const values = Float64Array.of(1, 4, 9, 0, 5, 7, 3, 8, 2);
  const sorted = sortRuns(values, [0, 3, 3, 5, 8, 9], new Float64Array(9));
  assert.deepEqual([...sorted], [0, 1, 2, 3, 4, 5, 7, 8, 9]);
  const one = Float64Array.of(3, 1, 2);
  assert.deepEqual([...sortRuns(one, [0, 3], new Float64Array(3))], [1, 2, 3]);
  assert.deepEqual([...sortRuns(new Float64Array(0), [0, 0], new Float64Array(0))], []);
});

test("busy times are every busy op's start and end, sorted, whatever the order of its lane's ops", () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s1 = b.lane({ kind: 'stream', name: 's1', device: 0, nonBlocking: true });
  const s2 = b.lane({ kind: 'stream', name: 's2', device: 0, nonBlocking: true });
  const call = b.call({ lane: host, kind: 'launch', begin: 0, end: 1, stream: s1 });
  // s1's ops listed out of time order (an imported trace), s2 interleaved, a marker and an empty kernel left out.
  b.op({ lane: s1, kind: 'kernel', name: 'a', start: 50, end: 60, call });
  b.op({ lane: s2, kind: 'memcpy', name: 'b', start: 5, end: 55, call });
  b.op({ lane: s1, kind: 'kernel', name: 'c', start: 10, end: 20, call });
  b.op({ lane: s1, kind: 'eventRecord', name: 'e', start: 20, end: 20, call });
  b.op({ lane: s2, kind: 'kernel', name: 'd', start: 70, end: 90, call });
  b.op({ lane: s1, kind: 'kernel', name: 'z', start: 95, end: 95, call });
  const busy = busyTimes(b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 }));
  assert.deepEqual([...busy.starts], [5, 10, 50, 70]);
  assert.deepEqual([...busy.ends], [20, 55, 60, 90]);
  assert.deepEqual([...busy.perLane], [0, 20, 70]);
});
