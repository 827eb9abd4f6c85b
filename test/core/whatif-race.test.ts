// The race fix of the what-if on race_prefetch (test/fixtures/whatif-programs, H100): a wait for the
// copy stream before each step's first read of the batch, whose measured cost is the fixed
// program's step less the buggy one's (timings.tsv: medians 4.026 ms and 2.808 ms).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeOrderedCalls } from '../../core/analyze/bindings';
import { h200 } from '../../core/simulate/profile';
import { savedPerIterationNs, whatIf } from '../../core/whatif/fixes';
import { recordedBeforeWaits } from '../../core/whatif/inferred';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const MEASURED_NS = 2_808_183 - 4_025_708;
const trace = (kind: string) => loadTraceFile(repoPath(`test/fixtures/whatif-programs/race_prefetch.${kind}`));

test('a stream wait whose record names no stream waits for the last op its thread issued before the record', async () => {
  const t = await trace('profile.json.gz');
  const waits = recordedBeforeWaits(t, [...timeOrderedCalls(t)]);
  // Read by hand: ProfilerStep#11's copy_stream.wait_stream(current_stream()) is record call 649 and
  // stream wait call 654 on stream 13; the thread's last op before it is op 35, the optimizer's last
  // kernel on stream 7 (call 566). The trace's first wait (call 77) has no op before it.
  assert.equal(waits.get(654), 35);
  assert.equal(waits.has(77), false);
});

for (const [kind, file, iterations] of [
  ['capture', 'capture.syncscope.json.gz', 60],
  ['profile', 'profile.json.gz', 10],
] as const)
  test(`race_prefetch ${kind}: the race fix waits in every step, and costs what the fixed program measured within 20%`, async () => {
    const t = await trace(file);
    const fixes = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'race' && r.applied);
    assert.equal(fixes.length, 1);
    const [r] = fixes;
    assert.equal(r.isCost, true);
    assert.equal(r.iterations, iterations);
    assert.match(r.edit, new RegExp(`\\(${iterations} times\\)$`));
    const perIteration = savedPerIterationNs(r)!;
    const error = Math.abs(perIteration - MEASURED_NS) / Math.abs(MEASURED_NS);
    assert.ok(error < 0.2, `predicted ${perIteration} ns per iteration, measured ${MEASURED_NS}`);
  });
