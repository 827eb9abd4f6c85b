// Every example on the GPU: S16 causality over 20 runs each, and the same releasing ops as the
// simulator where the wait was clearly pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { h200 } from '../../core/simulate/profile';
import { isWait } from '../../core/trace/model';
import { runOnGpu } from '../../runner/gpu';
import { asRecorded } from '../../core/gpu-run/recorded';
import { repoPath } from '../helpers/paths';
import { assertGpu, cannotRun, noGpu, releaser } from './gpu';

const RUNS = 20;
const all = readdirSync(repoPath('examples'))
  .filter((f) => f.endsWith('.scenario.json'))
  .sort()
  .map((f) => compileScenario(readFileSync(repoPath('examples', f), 'utf8'), f));
// Multi-GPU examples (S21) run only where the machine has their devices; elsewhere each says why.
const programs = all.filter((p) => !cannotRun(p));
const skipped = all.filter((p) => cannotRun(p)).map((p) => `${p.file}: skipped, ${cannotRun(p)}`);
const files = programs.map((p) => p.file);

test(
  `S16 causality: no host wait returns before the op that released it, over ${files.length} examples x ${RUNS} runs`,
  { skip: noGpu },
  async (t) => {
    assertGpu();
    assert.ok(programs.length > 0, 'examples to run');
    let waits = 0;
    let negative = 0;
    let violations = 0;
    let worst = Infinity;
    for (const program of programs) {
      for (let run = 0; run < RUNS; run++) {
        const trace = await runOnGpu(program);
        const c = trace.calls;
        for (let i = 0; i < c.count; i++) {
          if (!isWait(trace, i) || c.releasedBy[i] < 0) continue;
          waits++;
          worst = Math.min(worst, c.unblockNs[i]);
          if (c.unblockNs[i] < 0) negative++;
          // A return earlier than the clock alignment's stated bound is a recorder bug.
          if (c.unblockNs[i] < -trace.meta.alignmentErrorNs) violations++;
        }
      }
    }
    for (const s of skipped) t.diagnostic(s);
    t.diagnostic(
      `${waits} released waits, ${negative} with a negative latency inside the alignment bound, smallest ${worst} ns`,
    );
    assert.ok(waits >= programs.length * RUNS, `${waits} waits`);
    assert.equal(violations, 0);
  },
);

test(
  'every example releases its pending host waits by the same op on the GPU as in the simulator (with the recorder modelled)',
  { skip: noGpu },
  async (t) => {
    assertGpu();
    assert.ok(programs.length > 0, 'examples to run');
    const mismatches: string[] = [];
    let compared = 0;
    for (const program of programs) {
      const gpu = await runOnGpu(program);
      // The recorder's end events take launch-queue entries on the GPU: S19 fills after 510
      // recorded launches, not 1021, and the simulator is told so.
      const sim = simulate(program, asRecorded(h200));
      const simWaits = [...Array(sim.calls.count).keys()].filter(
        (i) => isWait(sim, i) && sim.calls.blockedNs[i] > 20_000,
      );
      for (const i of simWaits) {
        const j = [...Array(gpu.calls.count).keys()].find(
          (k) => gpu.calls.step[k] === sim.calls.step[i] && gpu.calls.lane[k] === sim.calls.lane[i],
        );
        assert.ok(j !== undefined, `${program.file}: wait at step ${sim.calls.step[i]} missing on the GPU`);
        compared++;
        if (releaser(gpu, j) !== releaser(sim, i)) {
          mismatches.push(
            `${program.file}:${sim.calls.line[i]}: GPU "${releaser(gpu, j)}" (blocked ${gpu.calls.blockedNs[j]} ns), simulator "${releaser(sim, i)}"`,
          );
        }
      }
      t.diagnostic(`${program.file}: ${simWaits.length} pending waits compared`);
    }
    for (const s of skipped) t.diagnostic(s);
    assert.ok(compared > 0, 'pending waits compared');
    assert.deepEqual(mismatches, []);
  },
);
