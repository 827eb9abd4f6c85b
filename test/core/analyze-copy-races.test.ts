// Races inferred where a trace declares no buffers (core/analyze/copy-races.ts), on the recorded
// what-if truth programs (test/fixtures/whatif-programs, H100): race_prefetch copies each batch on a
// copy stream and the default stream reads it with no wait; the others order what they copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { findingCalls } from '../../core/analyze/collect';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const races = async (file: string) => {
  const a = analyze(await loadTraceFile(repoPath(file)));
  return { findings: a.findings.filter((f) => f.kind === 'race'), hazards: a.hazards };
};

test('race_prefetch capture: the batch copied on the copy stream and read by the default stream, each step, is a candidate race', async () => {
  const { findings, hazards } = await races('test/fixtures/whatif-programs/race_prefetch.capture.syncscope.json.gz');
  // The warm-up's 20 steps and the timed loop's 60 call step() from two lines of _harness.py: two places.
  assert.equal(findings.length, 2);
  const timed = findings.find((f) => f.calls[0] === 889)!;
  assert.equal(timed.severity, 'warning');
  assert.match(timed.message, /^candidate race \(inferred/);
  assert.match(timed.message, /race_prefetch\.py:44/);
  assert.match(timed.message, /race_prefetch\.py:47/);
  assert.match(timed.message, /\(60 times\)$/);
  // Read by hand: the first timed step copies the batch (call 888, 64 MiB) and its labels (call 889,
  // 64 KiB) on stream 1, whose last copy the fix follows; call 890 launches the first GEMM on the
  // legacy default stream, which started while the batch was still being copied.
  const h = hazards.find((z) => z.fix.after === 889)!;
  assert.deepEqual(h.fix, { recordOn: 'stream 1', after: 889, waitIn: 'legacy default', before: 890 });
  assert.equal(h.occurrences!.length, 60);
  assert.deepEqual(h.occurrences![1], { after: 924, before: 925 });
  assert.equal(findingCalls(timed).length, 120);
});

test('race_prefetch profile: the same race, with records that name no stream', async () => {
  const { findings, hazards } = await races('test/fixtures/whatif-programs/race_prefetch.profile.json.gz');
  assert.equal(findings.length, 1);
  assert.match(findings[0].message, /\(10 times\)$/);
  // Read by hand: ProfilerStep#10's label copy is call 166 on stream 13, its first GEMM call 190 on stream 7.
  assert.deepEqual(hazards[0].fix, { recordOn: 'stream 13', after: 166, waitIn: 'stream 7', before: 190 });
});

test('copies that are ordered before their readers are no race', async () => {
  // sync_overlap: each copy on stream 25 is followed by a record (whose stream the profile does not
  // name, made right after the copy) that stream 7 waits for; event_sync and pageable_copy copy on
  // the stream that reads; legacy_stream copies device to host.
  for (const file of [
    'test/fixtures/torch/sync_overlap.json',
    'test/fixtures/whatif-programs/event_sync.capture.syncscope.json.gz',
    'test/fixtures/whatif-programs/pageable_copy.profile.json.gz',
    'test/fixtures/whatif-programs/legacy_stream.capture.syncscope.json.gz',
    'test/fixtures/python/ragged_batches.profile.json.gz',
  ])
    assert.deepEqual((await races(file)).findings, [], file);
});
