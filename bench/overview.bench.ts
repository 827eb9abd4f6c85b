// The cost of the overview (core/overview/build.ts): on the largest recorded trace and on generated
// Kineto-like traces of growing size, the CPU time of the window, the iterations' time and lines,
// and the predictions (each finding's fix simulated once), with the simulated host calls that the
// prediction budget counts. Writes bench/results/overview.md.
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { analyze } from '../core/analyze';
import { createPytorchImporter } from '../core/import';
import { buildOverview } from '../core/overview/build';
import { PREDICTION_BUDGET_CALLS, predictSavings, simulationsFor } from '../core/overview/predict';
import { recordedWindow, scenarioWindowOf } from '../core/overview/window';
import { h200 } from '../core/simulate/profile';
import type { Trace } from '../core/trace/model';
import { hostCallsIn } from '../core/whatif/from-trace';
import { loadTraceFile } from '../node/trace-file';
import { repoPath } from '../test/helpers/paths';
import { generateKineto } from './import.generate';
import { timed } from './whatif-scale';

function generated(steps: number, streams = 1): Trace {
  const importer = createPytorchImporter();
  const encoder = new TextEncoder();
  for (const piece of generateKineto({ steps, streams, syncEvery: 10 })) importer.push(encoder.encode(piece));
  return importer.finish();
}

const s = (x: number) => `${x.toFixed(2)} s`;

/** CPU time per simulated host call, of the largest prediction run that was simulated. */
let perCall: { calls: number; cpuS: number; name: string } | undefined;

function row(name: string, t: Trace): string {
  const analysis = analyze(t);
  const w = timed(() => recordedWindow(t));
  const rw = w.value;
  const sims = simulationsFor(t, analysis);
  const p = timed(() => predictSavings(t, analysis, h200, rw));
  const calls = hostCallsIn(t, scenarioWindowOf(p.value.over)).count;
  const simulated = calls * sims;
  const rest = timed(() => buildOverview(t, analysis, h200, { window: rw, predictions: p.value }));
  const skipped = p.value.list.some((x) => x.noSaving?.startsWith('not simulated'));
  // The costliest per simulated call among runs of at least a tenth of the budget (small ones are mostly set-up).
  const costlier = !perCall || p.cpuS / simulated > perCall.cpuS / perCall.calls;
  if (!skipped && simulated >= PREDICTION_BUDGET_CALLS / 10 && costlier)
    perCall = { calls: simulated, cpuS: p.cpuS, name };
  return (
    `| ${name} | ${t.calls.count} calls, ${t.ops.count} ops | ${rw.summary.labels.length} (${rw.summary.detectedBy}) | ` +
    `${s(w.cpuS)} | ${s(rest.cpuS)} | ${calls} x ${sims} = ${simulated} | ` +
    `${skipped ? 'skipped (over the budget)' : `${s(p.cpuS)} (wall ${s(p.wallS)})`} |`
  );
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const f of [
    'test/fixtures/torch/programs/train_step.sync.json.gz',
    'test/fixtures/torch/profile/train_step.profile.json.gz',
    // A 60-step capture of a vision transformer: a real trace over the budget, with a plain-step calibration.
    'test/fixtures/whatif-truth-device-wait/ema_metrics_sync.capture.syncscope.json.gz',
  ])
    rows.push(row(f.split('/').pop()!, await loadTraceFile(repoPath(f))));
  for (const steps of [1000, 10_000, 30_000, 100_000]) rows.push(row(`generated, ${steps} steps`, generated(steps)));
  // The import benchmark's 100 MB trace: its steps go round four streams, so its loop is longer.
  rows.push(row('generated, 139000 steps on 4 streams', generated(139_000, 4)));
  const commit = execSync('git rev-parse --short HEAD', { cwd: repoPath('.') })
    .toString()
    .trim();
  const date = new Date().toISOString().slice(0, 10);
  const text = [
    '# The overview: what it costs',
    '',
    `${date}, ${hostname()}, commit ${commit}, load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores.`,
    '`node scripts/build.mjs --no-native --tests=bench/overview && node out/bench/overview.bench.js`.',
    'CPU time of this process. The window: recordedWindow. Iterations and lines: the rest of buildOverview',
    'with the predictions given. Predictions: every finding with a fix simulated once over the window',
    `(core/whatif/fixes.ts); where the window's host calls times the simulations exceed`,
    `PREDICTION_BUDGET_CALLS (${PREDICTION_BUDGET_CALLS}), over its first iterations that fit (the host calls`,
    "column counts those; the simulations count the calibration to a plain step's as CALIBRATION_SIMS), and",
    'skipped where two do not. Generated traces: bench/import.generate.ts, a',
    'launch per step and a pageable copy and a stream synchronize every 10 steps; on one stream, or round',
    "four (the import benchmark's 100 MB trace).",
    '',
    '| trace | size | iterations counted | window | iterations and lines | host calls x simulations | predictions |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    perCall
      ? `The costliest run of at least a tenth of the budget, ${perCall.name}, took ${((perCall.cpuS / perCall.calls) * 1e6).toFixed(1)} µs of CPU per simulated host call: ` +
        `at the budget, predictions take about ${s((perCall.cpuS / perCall.calls) * PREDICTION_BUDGET_CALLS)} of CPU.`
      : '',
    '',
  ].join('\n');
  writeFileSync(repoPath('bench/results/overview.md'), text);
  process.stdout.write(text);
}

void main();
