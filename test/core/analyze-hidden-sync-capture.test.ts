// `.item()` in a CUPTI capture (core/analyze/host-syncs.ts): a capture names no framework op, but
// the Python line of each call; one line that made a device-to-host copy and the stream synchronize
// after it asked for a value. item_every_step (test/fixtures/whatif-programs, H100) adds loss.item()
// to a running sum at line 53, every step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

test('item_every_step capture: .item() at one line, copy then synchronize, is a hidden sync', async () => {
  const t = await loadTraceFile(repoPath('test/fixtures/whatif-programs/item_every_step.capture.syncscope.json.gz'));
  const found = analyze(t).findings.filter((f) => f.kind === 'hidden-sync');
  // The warm-up's 20 steps and the timed loop's 60 reach line 53 from two lines of _harness.py.
  assert.deepEqual(
    found.map((f) => f.message.match(/\((\d+) times\)$/)?.[1]),
    ['20', '60'],
  );
  const timed = found[1];
  // Read by hand: the first timed step's loss is copied by call 2592 (4 B to pinned memory, op 2467),
  // and call 2593 synchronizes the stream until 11 µs after the copy ended: 1.36 ms blocked.
  assert.deepEqual(timed.calls.slice(0, 2), [2592, 2593]);
  assert.match(timed.message, /^the line \S+item_every_step\.py:53 in step\(\)/);
  assert.match(timed.message, /blocked it for 1\.36 ms/);
});
