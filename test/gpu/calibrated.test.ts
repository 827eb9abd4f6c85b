// The simulator, calibrated on this GPU, against the GPU itself: host-blocked time per example.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { compileScenario } from '../../core/scenario/parse';
import type { Trace } from '../../core/trace/model';
import { calibrate } from '../../runner/calibrate';
import { runOnGpu } from '../../runner/gpu';
import { SIM_TOLERANCE, simVsGpu } from '../../runner/sim-vs-gpu';
import { repoPath } from '../helpers/paths';
import { cannotRun, noGpu } from './gpu';

/** GPU runs per example: the seed examples block for 3 to 25 us in all, so one run's jitter is a large share. */
const RUNS = 15;

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
    const runs: Trace[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await runOnGpu(program));
    const r = simVsGpu(program, runs, profile, recorderTailNs);
    t.diagnostic(`${f}: GPU ${r.gpuNs} ns blocked, simulator ${r.simNs} ns (${(100 * r.off).toFixed(1)}%)`);
    if (Math.abs(r.off) > SIM_TOLERANCE) off.push(`${f} ${(100 * r.off).toFixed(1)}%`);
  }
  assert.deepEqual(off, []);
});
