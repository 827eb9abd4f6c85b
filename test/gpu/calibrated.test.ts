// The simulator, calibrated on this GPU, against the GPU itself: host-blocked time per example.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import type { Trace } from '../../core/trace/model';
import { calibrate } from '../../runner/calibrate';
import { runOnGpu } from '../../runner/gpu';
import { asRecorded } from '../../runner/recorded';
import { repoPath } from '../helpers/paths';
import { cannotRun, median, noGpu } from './gpu';

/** GPU runs per example: the seed examples block for 3 to 25 us in all, so one run's jitter is a large share. */
const RUNS = 9;

const blocked = (t: Trace) => {
  let sum = 0;
  for (let i = 0; i < t.calls.count; i++) sum += t.calls.blockedNs[i];
  return sum;
};

test('calibrated simulator: host-blocked time within 15% of the GPU\'s, per example', { skip: noGpu }, async (t) => {
  const { profile, recorderTailNs } = await calibrate();
  t.diagnostic(`profile: ${JSON.stringify(profile)}; recorder tail ${recorderTailNs} ns`);
  assert.equal(profile.name, 'calibrated');
  assert.ok(profile.launchNs > 500 && profile.launchNs < 20_000, `launch ${profile.launchNs} ns`);
  const files = readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json')).sort();
  const off: string[] = [];
  for (const f of files) {
    const program = compileScenario(readFileSync(repoPath('examples', f), 'utf8'), f);
    // A multi-GPU example (S21) needs its devices; on a smaller machine it says so and is left out.
    const missing = cannotRun(program);
    if (missing) {
      t.diagnostic(`${f}: skipped, ${missing}`);
      continue;
    }
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(blocked(await runOnGpu(program)));
    const gpu = median(runs);
    // The GPU runs carry the recorder's events, so the simulator runs with them too.
    const sim = blocked(simulate(program, asRecorded(profile, recorderTailNs)));
    const ratio = gpu > 0 ? sim / gpu : sim === 0 ? 1 : Infinity;
    t.diagnostic(`${f}: GPU ${gpu} ns blocked, simulator ${sim} ns (${(100 * (ratio - 1)).toFixed(1)}%)`);
    if (Math.abs(ratio - 1) > 0.15) off.push(`${f} ${(100 * (ratio - 1)).toFixed(1)}%`);
  }
  assert.deepEqual(off, []);
});
