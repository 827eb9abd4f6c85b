// The calibrated simulator against GPU traces that bench/recorder-dump.bench.ts wrote, on any
// machine: `node out/bench/sim-vs-gpu.bench.js <dir> [profile]` (default $SYNCSCOPE_DUMP, else
// ./gpu-traces). The profile is the one `syncscope calibrate` makes from the dumped calibration
// runs, or the one named (a built-in such as h200, or a JSON file), and each example is judged as
// test/gpu/calibrated.test.ts judges it. Writes a Markdown table to stdout,
// and to $SYNCSCOPE_BENCH_OUT when set.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileScenario } from '../core/scenario/parse';
import { parseTrace } from '../core/trace/json';
import type { Trace } from '../core/trace/model';
import { readProfile } from '../cli/input';
import { profileFromRuns } from '../runner/calibrate';
import { SIM_TOLERANCE, simVsGpu } from '../runner/sim-vs-gpu';
import { repoPath } from '../test/helpers/paths';

const dir = process.argv[2] ?? process.env.SYNCSCOPE_DUMP ?? 'gpu-traces';
const named = process.argv[3];
const load = (f: string): Trace => parseTrace(readFileSync(join(dir, f), 'utf8'));

/** `name.0.json`, `name.1.json`, ... for as long as they exist. */
function runsOf(name: string): Trace[] {
  const out: Trace[] = [];
  for (let r = 0; existsSync(join(dir, `${name}.${r}.json`)); r++) out.push(load(`${name}.${r}.json`));
  return out;
}

async function main(): Promise<void> {
  const cal = runsOf('calibration');
  const blocking = runsOf('calibration-blocking');
  if (!cal.length) throw new Error(`no calibration.0.json in ${dir}: write the traces with node out/bench/recorder-dump.bench.js on a GPU machine`);
  const calibrated = profileFromRuns(cal.map((trace, i) => ({ trace, blocking: blocking[i] })));
  // The GPU runs were recorded, whatever the profile: the recorder's tail is the calibration's.
  const { recorderTailNs } = calibrated;
  const profile = (await readProfile(named, { stdout: console.log, stderr: console.error, cwd: process.cwd() })) ?? calibrated.profile;
  const rows: string[] = [];
  let within = 0;
  for (const f of readdirSync(repoPath('examples')).filter((x) => x.endsWith('.scenario.json')).sort()) {
    const runs = runsOf(f.replace('.scenario.json', ''));
    if (!runs.length) continue;
    const r = simVsGpu(compileScenario(readFileSync(repoPath('examples', f), 'utf8'), f), runs, profile, recorderTailNs);
    const ok = Math.abs(r.off) <= SIM_TOLERANCE;
    if (ok) within++;
    rows.push(`| ${f} | ${runs.length} | ${(r.gpuNs / 1000).toFixed(1)} | ${(r.simNs / 1000).toFixed(1)} | ${ok ? '' : '**'}${(100 * r.off).toFixed(1)}%${ok ? '' : '**'} |`);
  }
  const text = [
    `# ${named ? `The simulator with profile ${profile.name}` : 'Calibrated simulator'} against dumped GPU traces`, '',
    `- traces: ${dir} (${cal.length} calibration runs)`, `- recorder tail: ${recorderTailNs} ns`, '',
    '| example | GPU runs | GPU blocked, us (median) | simulator, us | simulator against GPU |', '| --- | --- | --- | --- | --- |', ...rows, '',
    `Within ${100 * SIM_TOLERANCE}%: ${within} of ${rows.length}.`, '',
  ].join('\n');
  console.log(text);
  if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
