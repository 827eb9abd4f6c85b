// Hidden synchronizes (core/analyze/host-syncs.ts). A capture names no framework op, but the Python
// line of each call: one line that made a device-to-host copy and the stream synchronize after it
// asked for a value. A profile names the op, under the profiler step it ran in. item_every_step
// (H100) adds loss.item() to a running sum at line 53, every step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { findingCalls } from '../../core/analyze/collect';
import { callSite } from '../../core/trace/model';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

test('item_every_step capture: .item() at one line, copy then synchronize, is one hidden sync, and no loop-sync', async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-programs/item_every_step.capture.syncscope.json.gz'));
  const findings = analyze(t).findings;
  const found = findings.filter((f) => f.kind === 'hidden-sync');
  // The warm-up's 20 steps and the timed loop's 60 reach line 53 from two lines of _harness.py: one
  // line of the user's, one finding.
  assert.deepEqual(
    found.map((f) => f.message.match(/\((\d+) times\)$/)?.[1]),
    ['80'],
  );
  const [line53] = found;
  // Read by hand: the first warm-up step's loss is copied by call 271 and call 272 synchronizes;
  // the first timed step's by calls 2592 (4 B to pinned memory, op 2467) and 2593, 1.36 ms blocked.
  assert.deepEqual(line53.calls.slice(0, 2), [271, 272]);
  const members = findingCalls(line53);
  assert.equal(members.length, 160);
  assert.ok(members.includes(2592) && members.includes(2593));
  assert.match(line53.message, /^the line \S+item_every_step\.py:53 in step\(\), a read of one value/);
  assert.match(line53.message, /\(deduced from the copy's 4 B\)/);
  // The host needed the value it copied: the same synchronizes are no loop-sync candidate.
  assert.deepEqual(
    findings.filter((f) => f.kind === 'loop-sync'),
    [],
  );
});

test("item_every_step profile: the .item() of every profiler step is one finding, whatever step's context it ran in", async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-truth/item_every_step.profile.json.gz'));
  const found = analyze(t).findings.filter((f) => f.kind === 'hidden-sync');
  // Read by hand: 10 aten::item ops, one in each of ProfilerStep#2 to #11, each from line 53.
  assert.equal(found.length, 1);
  assert.match(found[0].message, /\(10 times\)$/);
  assert.equal(findingCalls(found[0]).length, 20);
  assert.match(found[0].message, /^aten::item \(aten::item > aten::_local_scalar_dense\), \.item\(\), synchronizes/);
  assert.match(found[0].fix!, /^keep the value on the GPU/);
});

test("amp_scaler capture: GradScaler's read at scaler.step() is named with its fix; the user's own event synchronize stays a loop-sync", async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/python/amp_scaler.capture.syncscope.json.gz'));
  const findings = analyze(t).findings;
  const at = (kind: string, line: number) =>
    findings.filter((f) => f.kind === kind && callSite(t, f.calls[0])?.frame.line === line);
  // Read by hand: line 33 is scaler.step(opt), whose copy and synchronize the capture places in
  // GradScaler._maybe_opt_step; line 36 is end.synchronize(), the program's own, each of 12 steps.
  const [scaler] = at('hidden-sync', 33);
  assert.match(scaler.message, /GradScaler\.step's check of its found-inf flags/);
  assert.match(scaler.fix!, /fused=True/);
  assert.equal(at('loop-sync', 33).length, 0);
  assert.equal(at('loop-sync', 36).length, 1);
});
