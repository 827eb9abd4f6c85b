// The loop a what-if shares its saving over (the recorded window, core/overview/window.ts), found in a
// real capture (test/fixtures/whatif-programs, bench/whatif-truth/programs/event_sync.py): 20 warm-up
// and 60 timed steps, each ending in one `ema_done.synchronize()` at line 73.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordedWindow } from '../../core/overview/window';
import { CK } from '../../core/trace/kinds';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

test('each iteration of the loop is one step of the program: one Event.synchronize() each, not two', async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-programs/event_sync.capture.syncscope.json.gz'));
  const rw = recordedWindow(t);
  assert.equal(rw.summary.detectedBy, 'loop');
  // Two steps together weigh a little more than one (a slow step counts as the median one either
  // way); the loop is still one step long.
  assert.ok(rw.spans.length >= 58, `${rw.spans.length} iterations`);
  const syncs = [...Array(t.calls.count).keys()].filter((i) => t.calls.kind[i] === CK.eventSync);
  for (const s of rw.spans) {
    const inside = syncs.filter((i) => t.calls.begin[i] >= s.beginNs && t.calls.begin[i] < s.endNs);
    assert.equal(inside.length, 1, s.label);
  }
});
