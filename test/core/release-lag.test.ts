// S16 on the GPU: a kernel's end there is its last instruction, and the host sees it complete only
// when its completion event lands; a wait that began in between still waited for the kernel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RELEASED_NONE, TraceBuilder } from '../../core/trace/model';
import { ReleaseRule } from '../../core/trace/release';

function syncAfterKernel(gapNs: number, lagNs: number): number {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  const launch = b.call({ lane: host, kind: 'launch', begin: 0, end: 10, stream: s });
  const k = b.op({ lane: s, kind: 'kernel', start: 20, end: 100, call: launch });
  b.edge('launch', launch, k);
  const rec = b.op({ lane: s, kind: 'eventRecord', start: 100 + gapNs + 500, end: 100 + gapNs + 500 });
  b.edge('launch', launch, rec);
  b.edge('stream', k, rec);
  const sync = b.call({ lane: host, kind: 'deviceSync', begin: 100 + gapNs, end: 110 + gapNs + 3000 });
  return new ReleaseRule(b, lagNs).releasingOp([k], b.calls.cols.begin[sync]);
}

test('S16 S12 a kernel whose completion the host could not yet see releases a wait that began after its last instruction', () => {
  assert.equal(syncAfterKernel(1000, 0), RELEASED_NONE, 'without the lag it had ended');
  assert.equal(syncAfterKernel(1000, 2500), 0, 'its completion landed 1.5 us into the wait');
  assert.equal(syncAfterKernel(3000, 2500), RELEASED_NONE, 'completed and visible before the wait');
});
