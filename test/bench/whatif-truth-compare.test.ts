import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  errorPercent,
  measuredSaving,
  pairedSavings,
  parseManifest,
  parseMeasured,
  predictionFor,
  type FixPrediction,
} from '../../bench/whatif-truth-compare';

// A recording as record.sh writes it, by hand: the medians are 3,050 (buggy) and 2,000 (fixed).
const MEASURED = JSON.stringify({
  recordedWith: '3.12.3 2.11.0 13.0 NVIDIA H100',
  programs: {
    loop_sync: { buggy: [3100, 2900, 3000, 5000, 3050], fixed: [2000, 1990, 2100, 2010, 1900], failedRuns: [] },
    race_prefetch: { buggy: [1000], fixed: [1500], failedRuns: ['fixed run 2: rc 124'] },
  },
});

test('measured.json: the saving is the median buggy iteration less the median fixed one', () => {
  const m = parseMeasured(MEASURED, 'measured.json');
  assert.deepEqual(measuredSaving(m.programs.loop_sync), { buggyNs: 3050, fixedNs: 2000, savingNs: 1050 });
  // A fix that costs time measures a negative saving.
  assert.equal(measuredSaving(m.programs.race_prefetch).savingNs, -500);
  assert.deepEqual(m.programs.race_prefetch.failedRuns, ['fixed run 2: rc 124']);
  // A recording names the arguments its plain runs were timed with (record.sh's TIME_ITERS may time
  // more steps than the traces); an older one says nothing.
  assert.equal(m.timedWith, undefined);
  const longer = parseMeasured(JSON.stringify({ ...JSON.parse(MEASURED), timedWith: ['--iters', '200'] }), 'm.json');
  assert.deepEqual(longer.timedWith, ['--iters', '200']);
});

test("each pair of runs' own saving, least and most: how far one pair strays from the medians' difference", () => {
  const m = parseMeasured(MEASURED, 'measured.json');
  // Pairs: 3100−2000, 2900−1990, 3000−2100, 5000−2010, 3050−1900.
  assert.deepEqual(pairedSavings(m.programs.loop_sync), { leastNs: 900, mostNs: 2990 });
  // One pair says nothing of the spread.
  assert.equal(pairedSavings(m.programs.race_prefetch), undefined);
});

test('measured.json that is not a recording: an error that names the file and what is expected', () => {
  assert.throws(() => parseMeasured('{', 'm.json'), /^InputError: m\.json: not JSON/);
  assert.throws(
    () => parseMeasured('{"programs": {"a": {"buggy": [1], "fixed": "x"}}}', 'm.json'),
    /m\.json: programs\.a needs "buggy" and "fixed"/,
  );
  assert.throws(() => parseManifest('{"programs": []}', 'manifest.json'), /manifest\.json: expected \{"recordArgs"/);
  // A program's step function for `syncscope profile --step-on`, where it has no optimizer step.
  const program = (stepOn: unknown, plainSteps: unknown = 20) =>
    JSON.stringify({
      recordArgs: ['--iters', '60'],
      profileSteps: 10,
      plainSteps,
      programs: [{ name: 'legacy_stream', kinds: ['legacy-serialization'], fix: 'non-blocking', stepOn }],
    });
  assert.equal(parseManifest(program('step'), 'manifest.json').programs[0].stepOn, 'step');
  assert.throws(() => parseManifest(program(3), 'manifest.json'), /optional "stepOn"/);
  // The plain steps the profile and the capture time first.
  assert.equal(parseManifest(program('step'), 'manifest.json').plainSteps, 20);
  assert.throws(() => parseManifest(program('step', '20'), 'manifest.json'), /"plainSteps": n/);
});

let fixes = 0;
const fix = (
  kind: string,
  perIterationNs: number | null,
  applies = true,
  edit?: string,
  lines: number[] = [],
): FixPrediction => ({
  id: `F${++fixes}`,
  kind,
  applies,
  edit:
    edit ?? (applies ? `remove synchronize step ${perIterationNs}` : 'cannot apply: its calls are outside the window'),
  perIterationNs,
  lines,
});

test("a program's fix kinds: the first kind the trace has is taken, its applied findings simulated together", () => {
  fixes = 0;
  const found = [
    fix('pageable-async-copy', 400),
    fix('loop-sync', 700),
    fix('hidden-sync', 900),
    fix('hidden-sync', 100, false),
  ];
  assert.deepEqual(predictionFor(found, ['hidden-sync', 'loop-sync']), {
    kind: 'hidden-sync',
    applied: 1,
    found: 2,
    ids: ['F3'],
    perIterationNs: 900,
  });
  // Two waits one change removes: their ids, for one simulation of both (a sum would miss that
  // each wait left alone holds the host in the other's place).
  assert.deepEqual(predictionFor([fix('loop-sync', 700), fix('loop-sync', 300)], ['hidden-sync', 'loop-sync']), {
    kind: 'loop-sync',
    applied: 2,
    found: 2,
    ids: ['F5', 'F6'],
  });
  // One stream made non-blocking, found at each of its waits: one fix, applied once.
  const stream = 'make stream "s13" non-blocking, so the legacy default stream no longer orders it';
  assert.deepEqual(
    predictionFor(
      [fix('legacy-serialization', 600, true, stream), fix('legacy-serialization', 600, true, stream)],
      ['legacy-serialization'],
    ),
    { kind: 'legacy-serialization', applied: 2, found: 2, ids: ['F7'], perIterationNs: 600 },
  );
  assert.deepEqual(predictionFor(found, ['race']), { applied: 0, found: 0, why: 'no race finding' });
  assert.deepEqual(predictionFor([fix('legacy-serialization', null, false)], ['legacy-serialization']), {
    kind: 'legacy-serialization',
    applied: 0,
    found: 1,
    why: 'cannot apply: its calls are outside the window',
  });
});

test("a program's lines: only the findings made at them count, where the fix leaves others of the kind", () => {
  // amp_masked_tokens: the fix removes the mask's reads (line 58) and its backward's (line 67, where
  // backward() is called); GradScaler.step's read (line 68) stays in both variants.
  fixes = 0;
  const found = [
    fix('hidden-sync', 400, true, 'move the mask read', [58]),
    fix('hidden-sync', 250, true, 'move the backward read', [67]),
    fix('hidden-sync', 700, true, "move GradScaler's read", [68]),
  ];
  assert.deepEqual(predictionFor(found, ['hidden-sync'], [58, 67]), {
    kind: 'hidden-sync',
    applied: 2,
    found: 2,
    ids: ['F1', 'F2'],
  });
  assert.deepEqual(predictionFor(found, ['hidden-sync']).ids, ['F1', 'F2', 'F3']);
  assert.deepEqual(predictionFor(found, ['hidden-sync'], [12]), {
    applied: 0,
    found: 0,
    why: 'no hidden-sync finding at line 12',
  });
  const manifest = (lines: unknown) =>
    JSON.stringify({
      recordArgs: [],
      profileSteps: 10,
      plainSteps: 20,
      programs: [{ name: 'amp', kinds: ['hidden-sync'], fix: 'weights', lines }],
    });
  assert.deepEqual(parseManifest(manifest([58, 67]), 'manifest.json').programs[0].lines, [58, 67]);
  assert.throws(() => parseManifest(manifest('58'), 'manifest.json'), /optional "lines": \[line numbers\]/);
});

test('error: predicted less measured over the measured saving, in percent', () => {
  assert.equal(errorPercent(1200, 1000), 20);
  assert.equal(errorPercent(800, 1000), -20);
  // A cost: predicted −600 against measured −500 is 20% more cost.
  assert.equal(errorPercent(-600, -500), -20);
  assert.ok(Number.isNaN(errorPercent(100, 0)));
});
