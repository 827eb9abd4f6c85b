import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WaitExplanation } from '../../core/analyze/types';
import { compareMarkdown, pairWaits } from '../../extension/logic/compare';

const wait = (over: Partial<WaitExplanation>): WaitExplanation => ({
  id: 0,
  kind: 'eventSync',
  thread: 'main',
  target: 'ready',
  beginNs: 0,
  endNs: 0,
  blockedNs: 0,
  releasedBy: [],
  unblockLatencyNs: null,
  pending: true,
  rules: [],
  ...over,
});

test('waits pair by scenario line, repeated lines by order, and the blocked-time difference is B - A', () => {
  const a = [
    wait({ source: { line: 9, column: 5 }, blockedNs: 200_000 }),
    wait({ source: { line: 9, column: 5 }, blockedNs: 10_000 }),
    wait({ kind: 'deviceSync', target: 'device', source: { line: 12, column: 5 }, blockedNs: 5_000 }),
  ];
  const b = [
    wait({ source: { line: 9, column: 5 }, blockedNs: 203_500 }),
    wait({ source: { line: 9, column: 5 }, blockedNs: 9_000 }),
  ];
  const pairs = pairWaits(a, b);
  assert.deepEqual(
    pairs.map((p) => [p.key, p.deltaNs]),
    [
      ['line 9 #1', 3_500],
      ['line 9 #2', -1_000],
      ['line 12 #1', undefined],
    ],
  );
  assert.equal(pairs[2].b, undefined);
});

test('without source lines, waits pair by thread, kind and target', () => {
  const a = [
    wait({ thread: 'main', kind: 'streamSync', target: 's1', blockedNs: 1000 }),
    wait({ thread: 'loader', kind: 'streamSync', target: 's1', blockedNs: 50 }),
  ];
  const b = [wait({ thread: 'loader', kind: 'streamSync', target: 's1', blockedNs: 70 })];
  const pairs = pairWaits(a, b);
  assert.deepEqual(
    pairs.map((p) => [p.key, p.deltaNs]),
    [
      ['main streamSync s1 #1', undefined],
      ['loader streamSync s1 #1', 20],
    ],
  );
});

test('the report has one row per wait, in microseconds, naming the releasing ops', () => {
  const a = [
    wait({
      source: { line: 9, column: 5 },
      blockedNs: 200_000,
      releasedBy: [{ op: 1, name: 'produce', stream: 'side', how: 'exact' }],
    }),
  ];
  const b = [wait({ source: { line: 9, column: 5 }, blockedNs: 203_500, releasedBy: null })];
  const md = compareMarkdown('GPU', 'simulator', pairWaits(a, b)).split('\n');
  assert.equal(md[0], '# Host waits: GPU vs simulator');
  const rows = md.filter((l) => l.startsWith('| line'));
  assert.deepEqual(rows, [
    '| line 9 #1 | eventSync ready | 200.0 | 203.5 | 3.5 | op 1 "produce" on side | unknown (the trace does not say) |',
  ]);
});
