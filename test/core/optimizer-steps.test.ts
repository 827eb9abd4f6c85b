// A loop that logs every N steps repeats its calls only every N steps (core/whatif/optimizer-steps.ts):
// where each repeat holds N steps of one line's optimizer, the recorded window is split into them,
// so that "per iteration" is per training step. Captures of test/gpu/python/programs (H200).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordedWindow } from '../../core/overview/window';
import { optimizerSites } from '../../core/whatif/optimizer-steps';
import { callSite, type Trace } from '../../core/trace/model';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const capture = (name: string) => loadTraceFile(repoPath(`test/fixtures/python/${name}.capture.syncscope.json.gz`));

/** Per span of the window: the lines of the runs of optimizer calls that begin in it. */
function runsPerSpan(t: Trace): string[][] {
  const rw = recordedWindow(t);
  const inStep = optimizerSites(t)!;
  return rw.spans.map((s) => {
    const lines: string[] = [];
    let inside = false;
    for (let i = 0; i < t.calls.count; i++) {
      if (t.calls.lane[i] !== rw.thread || t.calls.site[i] <= 0) continue;
      const now = inStep[t.calls.site[i] - 1];
      if (now && !inside && t.calls.begin[i] >= s.beginNs && t.calls.begin[i] < s.endNs)
        lines.push(String(callSite(t, i)!.frame.line));
      inside = now;
    }
    return lines;
  });
}

test('amp_scaler prints every 4 steps: its loop of 4 steps is split into steps, each with one scaler.step()', async () => {
  const t = await capture('amp_scaler');
  const rw = recordedWindow(t);
  // Read by hand: the calls repeat every 4 of the 12 steps, from step 1 (after the first print) to
  // step 8; split at each scaler.step() (line 33), the first part of the first repeat, which the
  // loop found from inside a step, is left out: 7 whole steps.
  assert.equal(
    rw.summary.text,
    '7 iterations, iteration 1 to iteration 7, from a run of calls that repeats every 4 optimizer steps, split at each step',
  );
  assert.deepEqual(runsPerSpan(t), [['33'], ['33'], ['33'], ['33'], ['33'], ['33'], ['33']]);
});

test('time_backward prints every 10 steps: 20 steps of the 30, each with one opt.step()', async () => {
  const t = await capture('time_backward');
  const runs = runsPerSpan(t);
  assert.equal(runs.length, 20);
  for (const r of runs) assert.deepEqual(r, ['24']);
});

test('a GAN steps two optimizers each iteration, from two lines: its loop is not split at them', async () => {
  const t = await capture('gan_step');
  const rw = recordedWindow(t);
  assert.equal(rw.summary.text, '3 iterations, iteration 1 to iteration 3, from a run of calls that repeats');
  // Each repeat holds 10 iterations of the program's (it prints every 10): opt_d at line 28 each
  // time, opt_g at line 33 where the discriminator's loss allowed it.
  for (const r of runsPerSpan(t)) assert.ok(r.includes('28') && r.includes('33'), r.join(','));
});
