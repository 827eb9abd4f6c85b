// The simulator, calibrated on this GPU, against the GPU itself: host-blocked time per example.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { compileScenario } from '../../core/scenario/parse';
import type { Program } from '../../core/scenario/program';
import type { Trace } from '../../core/trace/model';
import { CALIBRATION_RUNS, profileFromRuns, type CalibrationRun } from '../../core/gpu-run/calibration';
import { runInRounds } from '../../runner/calibration-runs';
import { blockedNs, SIM_TOLERANCE, simVsGpu } from '../../core/gpu-run/sim-vs-gpu';
import { repoPath } from '../helpers/paths';
import { assertGpu, cannotRun, noGpu } from './gpu';

/**
 * GPU runs per example: the seed examples block for 3 to 25 us in all, so one run's jitter is a large
 * share, and so is the spread of a median over few runs.
 */
const RUNS = 21;

// The runs go in rounds, calibration runs among them (runInRounds): the host's drift lands on
// every example and on the calibration alike.
test("calibrated simulator: host-blocked time within 15% of the GPU's, per example", { skip: noGpu }, async (t) => {
  assertGpu();
  const programs: [string, Program][] = [];
  for (const f of readdirSync(repoPath('examples'))
    .filter((x) => x.endsWith('.scenario.json'))
    .sort()) {
    const program = compileScenario(readFileSync(repoPath('examples', f), 'utf8'), f);
    // A multi-GPU example (S21) needs its devices; on a smaller machine it says so and is left out.
    const missing = cannotRun(program);
    if (missing) t.diagnostic(`${f}: skipped, ${missing}`);
    else programs.push([f, program]);
  }
  const calibration: CalibrationRun[] = [];
  const runs = new Map<string, Trace[]>(programs.map(([f]) => [f, []]));
  // As many calibration runs as `syncscope calibrate` makes, spread over the rounds: the profile users get.
  await runInRounds(programs, RUNS, {
    calibration: (c) => calibration.push(c),
    run: (f, _, trace) => runs.get(f)!.push(trace),
  });
  assert.equal(calibration.length, CALIBRATION_RUNS);
  const { profile, recorder } = profileFromRuns(calibration);
  t.diagnostic(`profile: ${JSON.stringify(profile)}; recorder ${JSON.stringify(recorder)}`);
  assert.equal(profile.name, 'calibrated');
  assert.ok(profile.launchNs > 500 && profile.launchNs < 20_000, `launch ${profile.launchNs} ns`);
  const off: string[] = [];
  for (const [f, program] of programs) {
    const r = simVsGpu(program, runs.get(f)!, profile, recorder);
    // The runs' spread says how much of a miss one run's jitter could be.
    const each = runs.get(f)!.map(blockedNs);
    const spread = `GPU runs ${Math.min(...each)} to ${Math.max(...each)} ns`;
    t.diagnostic(`${f}: GPU ${r.gpuNs} ns blocked, simulator ${r.simNs} ns (${(100 * r.off).toFixed(1)}%); ${spread}`);
    if (Math.abs(r.off) > SIM_TOLERANCE) off.push(`${f} ${(100 * r.off).toFixed(1)}% (${spread})`);
  }
  assert.ok(programs.length >= 20, `${programs.length} examples ran`);
  assert.deepEqual(off, []);
});
