// The calibrated simulator against GPU traces that bench/recorder-dump.bench.ts wrote, on any
// machine: `node out/bench/sim-vs-gpu.bench.js <dir> [profile]` (default $SYNCSCOPE_DUMP, else
// ./gpu-traces). The profile is the one `syncscope calibrate` makes from the dumped calibration
// runs, or the one named (a built-in such as h200, or a JSON file), and each example is judged as
// test/gpu/calibrated.test.ts judges it; then each run's pageable copy rates, which move from one
// runner process to the next. Writes Markdown to stdout, and to $SYNCSCOPE_BENCH_OUT when set.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileScenario } from '../core/scenario/parse';
import { median } from '../core/stats';
import { parseTrace } from '../core/trace/json';
import { COPY_KINDS, HOST_MEMORY, type Trace } from '../core/trace/model';
import { readProfile } from '../cli/input';
import { FIRST_CALL_RUNS, firstCallNs, profileFromRuns, profileFromTrace } from '../core/gpu-run/calibration';
import { SIM_TOLERANCE, simVsGpu } from '../core/gpu-run/sim-vs-gpu';
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

/** GB/s of each pageable copy of at least 1 MiB in a run, device to host: its op's span. */
const pageableDtoH = (t: Trace): number[] => {
  const o = t.ops;
  const rates: number[] = [];
  for (let i = 0; i < o.count; i++) {
    if (COPY_KINDS[o.copy[i]] === 'DtoH' && HOST_MEMORY[o.hostMemory[i]] === 'pageable' && o.bytes[i] >= 1 << 20)
      rates.push(o.bytes[i] / (o.end[i] - o.start[i]));
  }
  return rates;
};
const firstCallUs = (runs: Trace[]) => (median(runs.map(firstCallNs)) / 1000).toFixed(2);
const firstCalls = (runs: Trace[]) => `${firstCallUs(runs)} us (median of ${runs.length})`;
const rate = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(1));

async function main(): Promise<void> {
  const cal = runsOf('calibration');
  const blocking = runsOf('calibration-blocking');
  const first = runsOf('calibration-first');
  const firstTiny = runsOf('calibration-first-tiny');
  if (!cal.length)
    throw new Error(
      `no calibration.0.json in ${dir}: write the traces with node out/bench/recorder-dump.bench.js on a GPU machine`,
    );
  // Calibration run i made first-call runs i * FIRST_CALL_RUNS on of each size.
  const ofRun = (runs: Trace[], i: number) => runs.slice(i * FIRST_CALL_RUNS, (i + 1) * FIRST_CALL_RUNS);
  const calibrated = profileFromRuns(
    cal.map((trace, i) => ({ trace, blocking: blocking[i], first: ofRun(first, i), firstTiny: ofRun(firstTiny, i) })),
  );
  // The GPU runs were recorded, whatever the profile: the recorder's tail is the calibration's.
  const { recorder } = calibrated;
  const profile =
    (await readProfile(named, { stdout: console.log, stderr: console.error, cwd: process.cwd() })) ??
    calibrated.profile;
  const rows: string[] = [];
  let within = 0;
  const dumped = new Map<string, Trace[]>();
  for (const f of readdirSync(repoPath('examples'))
    .filter((x) => x.endsWith('.scenario.json'))
    .sort()) {
    const runs = runsOf(f.replace('.scenario.json', ''));
    if (!runs.length) continue;
    dumped.set(f.replace('.scenario.json', ''), runs);
    const r = simVsGpu(compileScenario(readFileSync(repoPath('examples', f), 'utf8'), f), runs, profile, recorder);
    const ok = Math.abs(r.off) <= SIM_TOLERANCE;
    if (ok) within++;
    rows.push(
      `| ${f} | ${runs.length} | ${(r.gpuNs / 1000).toFixed(1)} | ${(r.simNs / 1000).toFixed(1)} | ${ok ? '' : '**'}${(100 * r.off).toFixed(1)}%${ok ? '' : '**'} | ${firstCallUs(runs)} |`,
    );
  }
  // Where the calibration's pageable rate and the examples' differ, it is usually the process.
  const pageableRows = cal.map((t, r) => {
    const p = profileFromTrace(t);
    const examples = [...dumped]
      .map(([name, runs]) => [name, runs[r] ? pageableDtoH(runs[r]) : []] as const)
      .filter(([, x]) => x.length);
    return `| ${r} | ${rate(p.pageableDtoHGBps)} / ${rate(p.pageableHtoDGBps)} | ${examples.map(([n, x]) => `${n}: ${x.map(rate).join(' ')}`).join('; ')} |`;
  });
  const text = [
    `# ${named ? `The simulator with profile ${profile.name}` : 'Calibrated simulator'} against dumped GPU traces`,
    '',
    `- traces: ${dir} (${cal.length} calibration runs)`,
    `- recorder tail: ${recorder.tailNs} ns, ${recorder.coldTailNs} ns more after a run's first stream op`,
    '',
    '| example | GPU runs | GPU blocked, us (median) | simulator, us | simulator against GPU | first call, us (median) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Within ${100 * SIM_TOLERANCE}%: ${within} of ${rows.length}. The first-call calibration runs' first call (a cold copy): ${firstCalls(first)} at 64 B, ${firstCalls(firstTiny)} at 16 B; a run's first copy in a direction ${(profile.coldCopyNs / 1000).toFixed(2)} us more than later (coldCopyNs).`,
    '',
    "| run number (every run is its own process) | calibration: pageable DtoH / HtoD rate, GB/s | examples' pageable device-to-host copies of 1 MiB or more, GB/s |",
    '| --- | --- | --- |',
    ...pageableRows,
    '',
  ].join('\n');
  console.log(text);
  if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
