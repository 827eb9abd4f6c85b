// Fixes as edits: each edit read by hand on a small trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200 } from '../../core/simulate';
import { TraceBuilder } from '../../core/trace/model';
import { whatIf } from '../../core/whatif/fixes';

/** A 1 MiB pageable async copy that held the host 2 ms, then 1 ms of host work and a stream sync. */
function pageable() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0, nonBlocking: true, handle: 3 });
  const c = b.call({
    lane: host,
    kind: 'memcpy',
    begin: 0,
    end: 2_000_000,
    stream: s,
    name: 'cudaMemcpyAsync',
    blockedNs: 1_990_000,
    releasedBy: 0,
  });
  b.op({
    lane: s,
    kind: 'memcpy',
    start: 5000,
    end: 2_000_000,
    call: c,
    copy: 'HtoD',
    bytes: 1 << 20,
    hostMemory: 'pageable',
  });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 3_000_000,
    end: 3_010_000,
    stream: s,
    name: 'cudaStreamSynchronize',
  });
  return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
}

test('a pageable copy fix: the copy reads a pinned buffer, asynchronously, at the profile bandwidth; its wait shrinks', () => {
  const [r] = whatIf(pageable(), h200, 'all');
  assert.equal(r.finding.kind, 'pageable-async-copy');
  assert.equal(r.applied, true);
  assert.match(r.scenario!, /"h_pinned_1048576":\{"bytes":1048576,"host":"pinned"\}/);
  assert.match(
    r.scenario!,
    /\{"copy":"h_pinned_1048576","to":"d_1048576","bytes":1048576,"async":true,"stream":"s3"\}/,
  );
  // Before: the copy's 1.995 ms held the host; after: the host returns at once and the 1 ms of host
  // work covers the pinned copy (1 MiB at tens of GB/s: tens of us), so the host saves about 2 ms.
  assert.ok(r.before.hostNs - r.after!.hostNs > 1_900_000, `${r.before.hostNs} -> ${r.after!.hostNs}`);
  assert.equal(r.waits[0].call, 0);
  assert.ok(r.waits[0].afterNs! < 10_000);
});

test('a fix that cannot apply says why', () => {
  const [r] = whatIf(pageable(), h200, ['F1'], { from: 2_500_000 });
  assert.equal(r.applied, false);
  assert.match(r.edit, /^cannot apply: its copies are not in the scenario/);
});
