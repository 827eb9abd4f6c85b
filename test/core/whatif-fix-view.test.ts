// What the editor shows of a simulated fix: which findings offer it, the titles, the scenario's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { h200 } from '../../core/simulate';
import { str, TraceBuilder, type Finding, type Trace } from '../../core/trace/model';
import { formatNs } from '../../core/units';
import { beforeAndAfter, doneAt } from '../../core/whatif/before-after';
import {
  FIX_EDIT_KINDS,
  fixId,
  fixTitle,
  rankedFixItems,
  scenarioFileName,
  sharedRange,
  simulatesFix,
} from '../../core/whatif/fix-view';
import { EDITS, rankedBySaving, savedNs, whatIf } from '../../core/whatif/fixes';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const capture = async (name: string) => {
  const t = await loadTraceFile(repoPath('test/fixtures/capture/programs', `${name}.syncscope.json.gz`));
  // As the editor's worker does: the findings shown are those of the analysis now.
  t.findings = analyze(t).findings;
  return t;
};

test('sync_every_gemm: its loop-sync finding offers the fix, as F1, the id whatif gives it', async () => {
  const t = await capture('sync_every_gemm.plain');
  const k = t.findings.findIndex((f) => f.kind === 'loop-sync');
  assert.equal(k, 0);
  assert.equal(fixId(k), 'F1');
  assert.ok(simulatesFix(t.findings[k]));
  // The 40 cudaDeviceSynchronize calls of the loop (report: "recurs 40 times in a loop"); the first
  // iteration is warm-up (43.4x the median one), so the recorded window holds 39 of them.
  assert.equal(t.findings[k].calls.length, 40);
  const [r] = whatIf(t, h200, [fixId(k)]);
  assert.equal(r.finding.rule, t.findings[k].rule);
  assert.deepEqual(r.finding.calls, t.findings[k].calls);
  assert.equal(r.edit, 'remove 39 synchronize steps');
});

test('a finding offers "Simulate this fix" exactly when fixes.ts has an edit for its kind', async () => {
  for (const name of ['sync_every_gemm.plain', 'pageable_copy.plain', 'side_stream_sync.plain', 'graph_replay.plain']) {
    const t = await capture(name);
    const ids = t.findings.map((_f, k) => fixId(k));
    for (const r of whatIf(t, h200, ids)) {
      const noEdit = / finding has no edit the simulator can run$/.test(r.edit);
      assert.equal(simulatesFix(r.finding), !noEdit, `${name} ${r.id} ${r.finding.kind}: ${r.edit}`);
    }
  }
  const finding = (kind: string): Finding => ({ rule: 'S1', kind, severity: 'info', message: '', calls: [], ops: [] });
  // Every kind fixes.ts has an edit for, read from its table, and no other.
  assert.deepEqual([...FIX_EDIT_KINDS].sort(), Object.keys(EDITS).sort());
  for (const kind of Object.keys(EDITS)) assert.ok(simulatesFix(finding(kind)), kind);
  assert.ok(!simulatesFix(finding('legacy-default-stream')));
});

test('the after title gives the host span before and after and the saving; a race fix or a slower host gives the cost', () => {
  const fix = { id: 'F2', kind: 'loop-sync', isCost: false, beforeDoneNs: 110_600_000, afterDoneNs: 105_600_000 };
  assert.equal(fixTitle(fix), 'What if F2 loop-sync: done 111 ms -> 106 ms (saves 5 ms)');
  const race = { id: 'F1', kind: 'race', isCost: true, beforeDoneNs: 2_000_000, afterDoneNs: 2_150_000 };
  assert.equal(fixTitle(race), 'What if F1 race: done 2 ms -> 2.15 ms (costs 150 µs)');
  // A race fix that happens to cost nothing still says it is a cost.
  assert.equal(fixTitle({ ...race, afterDoneNs: 2_000_000 }), 'What if F1 race: done 2 ms -> 2 ms (costs 0 ns)');
  const slower = { ...fix, afterDoneNs: 110_650_000 };
  assert.equal(fixTitle(slower), 'What if F2 loop-sync: done 111 ms -> 111 ms (costs 50 µs)');
});

test('"Simulate a Fix..." lists the fixes largest predicted saving first, each saying what it saves or why not', async () => {
  const t = await capture('train_step.plain');
  const savings = rankedBySaving(whatIf(t, h200, 'all')).map((r) => ({
    index: Number(r.id.slice(1)) - 1,
    savedNs: savedNs(r),
    isCost: r.isCost,
  }));
  const items = rankedFixItems(t.findings, savings);
  // `syncscope whatif` ranks this capture's fixes F6, F7, F1, F2, F3, F4, F5 (test/cli/replay-whatif-json.test.ts):
  // F1 to F5's set-up copies lie outside the recorded window.
  assert.deepEqual(
    items.map((i) => i.label.split(' ')[0]),
    ['F6', 'F7', 'F1', 'F2', 'F3', 'F4', 'F5'],
  );
  assert.match(items[0].label, /^F6 pageable-async-copy$/);
  assert.match(items[0].description, /^saves \d/);
  assert.equal(items[0].detail, t.findings[5].message);
  const f = (kind: string): Finding => ({ rule: 'S1', kind, severity: 'info', message: kind, calls: [], ops: [] });
  const made = rankedFixItems(
    [f('loop-sync'), f('race'), f('hidden-sync'), f('legacy-default-stream'), f('stale-wait')],
    [
      { index: 1, savedNs: -150_000, isCost: true },
      { index: 2, isCost: false },
    ],
  );
  assert.deepEqual(
    made.map((i) => [i.label, i.description]),
    [
      ['F2 race', 'costs 150 µs'],
      ['F3 hidden-sync', 'cannot apply'],
      ['F1 loop-sync', 'not simulated'],
      ['F5 stale-wait', 'not simulated'],
    ],
  );
});

test("the scenario is named after the trace's file, with the fix's id when it is the fixed one", () => {
  assert.equal(scenarioFileName('sync_every_gemm.plain.syncscope.json.gz'), 'sync_every_gemm.plain.scenario.json');
  assert.equal(scenarioFileName('run.syncscope.json', 'F2'), 'run.F2.scenario.json');
  assert.equal(scenarioFileName('step.pt.trace.json'), 'step.scenario.json');
  assert.equal(scenarioFileName('trace.json.gz'), 'trace.scenario.json');
  assert.equal(scenarioFileName('.json'), 'trace.scenario.json');
});

test('before and after share the range that holds both', () => {
  const one = (begin: number, end: number, opEnd: number) => {
    const b = new TraceBuilder();
    const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
    const s = b.lane({ kind: 'stream', name: 's', device: 0 });
    const c = b.call({ lane: host, kind: 'launch', begin, end, stream: s, name: 'cudaLaunchKernel' });
    b.op({ lane: s, kind: 'kernel', start: end, end: opEnd, call: c, name: 'k' });
    return b.finish({ source: 'simulator', clock: 'test', alignmentErrorNs: 0 });
  };
  assert.deepEqual(sharedRange(one(100, 200, 5000), one(50, 150, 3000)), [50, 5000]);
});

test('before and after in one timeline: lanes beside their twins, each half whole, the saved time marked', async () => {
  // Over the whole trace ({}), so that the timeline holds every iteration the capture has.
  const t = await capture('sync_every_gemm.plain');
  const [r] = whatIf(t, h200, ['F1'], {});
  const { before, after } = r.simulated!;
  const both = beforeAndAfter(before, after, 'F1');
  assert.deepEqual(
    both.lanes.map((l) => l.name),
    ['saved by F1', 'before · main', 'after · main', 'before · legacy default', 'after · legacy default'],
  );
  assert.equal(both.calls.count, before.calls.count + after.calls.count + 1);
  assert.equal(both.ops.count, before.ops.count + after.ops.count);
  assert.equal(both.edges.count, before.edges.count + after.edges.count);
  // The mark runs from where the fixed run is done (host and GPU) to where the replayed one was: the saving.
  const mark = both.calls.count - 1;
  assert.equal(both.lanes[both.calls.lane[mark]].name, 'saved by F1');
  assert.equal(both.calls.begin[mark], doneAt(after));
  assert.equal(both.calls.end[mark], doneAt(before));
  assert.equal(both.calls.end[mark] - both.calls.begin[mark], r.before.doneNs - r.after!.doneNs);
  assert.equal(str(both, both.calls.name[mark]), `saves ${formatNs(r.before.doneNs - r.after!.doneNs)}`);
  // Every reference stays in its half: a wait's releasing op, a launch's op, an op's call.
  const half = (lane: number) => both.lanes[lane].name.split(' ')[0];
  for (let i = 0; i < both.calls.count; i++) {
    const op = both.calls.releasedBy[i];
    if (op >= 0) assert.equal(half(both.ops.lane[op]), half(both.calls.lane[i]));
  }
  for (let j = 0; j < both.ops.count; j++) {
    const c = both.ops.call[j];
    if (c >= 0) assert.equal(half(both.calls.lane[c]), half(both.ops.lane[j]));
  }
  // Each half's own waits: the capture's 40 synchronizes of over 1 ms (one per GEMM of the loop)
  // before; after, only the synchronize after the loop waits that long, for the GEMMs it queued.
  const waits = (h: string) =>
    [...Array(both.calls.count).keys()].filter((i) => half(both.calls.lane[i]) === h && both.calls.blockedNs[i] > 1e6);
  assert.equal(waits('before').length, 40);
  assert.equal(waits('after').length, 1);
});

test('a copy the fix pins is not named as the pageable copy of the trace; the ops it leaves keep their names', async () => {
  const t = await capture('pageable_copy.plain');
  const [r] = whatIf(t, h200, ['F1'], {});
  assert.equal(r.finding.kind, 'pageable-async-copy');
  const names = (s: Trace) => [...Array(s.ops.count).keys()].map((j) => str(s, s.ops.name[j]));
  // The capture names its four uploads "HtoD 67108864 B (pageable)"; the fix makes them pinned.
  assert.equal(names(r.simulated!.before).filter((n) => n === 'HtoD 67108864 B (pageable)').length, 4);
  assert.equal(names(r.simulated!.after).filter((n) => n === 'HtoD 67108864 B (pageable)').length, 0);
  assert.equal(names(r.simulated!.after).filter((n) => n.startsWith('sm80_xmma_gemm')).length, 8);
});
