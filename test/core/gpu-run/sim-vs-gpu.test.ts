// The rule that judges the calibrated simulator against GPU runs (core/gpu-run/sim-vs-gpu.ts), checked
// with runs of known blocked time: the simulator's own run, with every call's blocked time scaled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileScenario } from '../../../core/scenario/parse';
import { simulate } from '../../../core/simulate';
import { h200 } from '../../../core/simulate/profile';
import type { Trace } from '../../../core/trace/model';
import { asRecorded } from '../../../core/gpu-run/recorded';
import { blockedNs, simVsGpu } from '../../../core/gpu-run/sim-vs-gpu';
import { repoPath } from '../../helpers/paths';

const program = compileScenario(
  readFileSync(repoPath('examples', 'pipeline-buggy.scenario.json'), 'utf8'),
  'pipeline-buggy.scenario.json',
);

/** A copy of `t` whose calls each blocked `factor` times as long. */
function scaled(t: Trace, factor: number): Trace {
  const blocked = Float64Array.from(t.calls.blockedNs, (b) => b * factor);
  return { ...t, calls: { ...t.calls, blockedNs: blocked } };
}

test('simVsGpu: the GPU side is the median of its runs, the simulator runs as the recorder ran', () => {
  const tail = { tailNs: 900, coldTailNs: 700 };
  const sim = simulate(program, asRecorded(h200, tail));
  const base = blockedNs(sim);
  assert.ok(base > 100_000, `pipeline-buggy blocks ${base} ns`);
  // Runs that blocked 0.5x, 1.25x and 3x as long: the median is 1.25x, so the simulator is 20% under.
  const r = simVsGpu(program, [scaled(sim, 0.5), scaled(sim, 3), scaled(sim, 1.25)], h200, tail);
  assert.equal(r.simNs, base);
  assert.equal(r.gpuNs, 1.25 * base);
  assert.ok(Math.abs(r.off - (1 / 1.25 - 1)) < 1e-12, `off ${r.off}`);
  // The recorder's tail is applied: 50 us of host time after each stream op leaves less to wait for,
  // and so does its cold start.
  assert.ok(simVsGpu(program, [sim], h200, { tailNs: 50_000, coldTailNs: 700 }).simNs < base);
  assert.ok(simVsGpu(program, [sim], h200, { tailNs: 900, coldTailNs: 50_000 }).simNs < base);
});
