// S17: PyTorch's copy of pageable memory without non_blocking=True (core/analyze/host-syncs.ts). The
// copy is synchronous for the host, and the same aten:: op then synchronizes the stream: pinning
// alone keeps that synchronize, so the fix pins and passes non_blocking=True, and the what-if drops
// both. train_step.py (H200 profile) copies its batch with `batch.to("cuda", non_blocking=False)`
// at line 20, each step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { findingCalls } from '../../core/analyze/collect';
import { h200 } from '../../core/simulate';
import { CK } from '../../core/trace/kinds';
import type { Trace } from '../../core/trace/model';
import { whatIf } from '../../core/whatif/fixes';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const PROFILE = 'test/fixtures/torch/profile/train_step.profile.json.gz';

test('S17 a blocking copy of pageable memory lists the synchronize its op made, and its fix says non_blocking=True', async () => {
  const t = await loadTraceFile(repoPath(PROFILE));
  const a = analyze(t);
  const copies = a.findings.filter((f) => f.kind === 'pageable-async-copy');
  const batch = copies.find((f) => findingCalls(f).includes(2917))!;
  // Read by hand: call 2917 copies the first batch of the window (HtoD, pageable, op 38); call 2918,
  // in the same ProfilerStep#0 > aten::to > aten::_to_copy > aten::copy_, synchronizes stream 7 and
  // waits 15.5 µs for it. So does each of the 9 steps of the window after it.
  assert.deepEqual(batch.calls.slice(0, 4), [2917, 2918, 3309, 3310]);
  assert.equal(findingCalls(batch).length, 18);
  assert.match(
    batch.message,
    /; then cudaStreamSynchronize waited for it, made by the same op \(a blocking copy\) \(9 times\)$/,
  );
  assert.match(batch.fix!, /non_blocking=True/);
  // The synchronizes are the copy's: no loop-sync calls them needless.
  assert.ok(!a.findings.some((f) => f.kind === 'loop-sync' && findingCalls(f).includes(2918)));
  // model.cuda()'s copies at line 12 block too (`.cuda()` has no non_blocking); their finding says so.
  const model = copies.find((f) => findingCalls(f).includes(1775))!;
  assert.match(model.message, /a blocking copy/);
});

test('S17 the fix of a blocking copy pins it and drops its synchronize', async () => {
  const t = await loadTraceFile(repoPath(PROFILE));
  const a = analyze(t);
  const k = a.findings.findIndex((f) => f.kind === 'pageable-async-copy' && findingCalls(f).includes(2917));
  const [fix] = whatIf(t, h200, [`F${k + 1}`], undefined, a);
  // The window is iterations 2 to 10: their 9 copies and the 9 synchronizes after them.
  assert.equal(
    fix.edit,
    'copy from pinned host memory, asynchronously, in 9 copies, and remove the 9 synchronize steps after them',
  );
  const syncs = (sim: Trace) => [...sim.calls.kind].filter((k) => k === CK.streamSync).length;
  assert.equal(syncs(fix.simulated!.before) - syncs(fix.simulated!.after), 9);
});
