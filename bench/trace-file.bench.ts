// The trace's own file forms at scale: a simulated trace of 10^6 ops (four streams, events, waits,
// periodic syncs) saved as `.syncscope` (Arrow IPC) and as `.syncscope.json`. Measures bytes per row,
// reload time against JSON.parse of the JSON twin, and `syncscope simulate --out x.syncscope`
// against the simulation alone, each in its own child process, rounds alternated. Writes
// bench/results/trace-file.md.
//
// Targets (issue #27): <= 25 bytes per row (calls + ops + edges); `.syncscope` reload <= 0.5x
// JSON.parse of its JSON twin; `simulate --out x.syncscope` <= 2.5x the simulation alone and
// <= 600 MB peak RSS. The `.syncscope.json` reload / JSON.parse ratio is reported (target <= 1.5x).
//
// Options: --ops=N (default 1e6; 10^7 wants a host with ~16 GB free), --rounds=N (default 3),
// --no-json (skip the JSON twin: above ~1.5 x 10^6 ops its text outgrows V8's largest string).
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../core/analyze';
import { compileScenario } from '../core/scenario/parse';
import { simulate } from '../core/simulate';
import { loadTraceFile, saveTraceFile } from '../node/trace-file';
import { repoPath } from '../test/helpers/paths';
import { benchScenario } from './scenario-gen';

interface Sample {
  ms: number;
  cpuMs: number;
  maxRssMB: number;
}

const rssMB = (): number => process.resourceUsage().maxRSS / 1024;

/** In a child: one measurement, printed as JSON. Times cover reading the file. */
async function child(mode: string, path: string): Promise<void> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let rows: number;
  if (mode === 'simulate') {
    const t = simulate(compileScenario(readFileSync(path, 'utf8'), path));
    rows = t.ops.count;
  } else if (mode === 'parse') {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { ops: unknown[] };
    rows = doc.ops.length;
  } else {
    const t = await loadTraceFile(path);
    rows = t.ops.count;
  }
  const c = process.cpuUsage(c0);
  const sample: Sample & { rows: number } = {
    ms: performance.now() - t0,
    cpuMs: (c.user + c.system) / 1000,
    maxRssMB: rssMB(),
    rows,
  };
  process.stdout.write(JSON.stringify(sample));
}

const NODE_FLAGS = ['--max-old-space-size=16384'];

function inChild(mode: string, path: string): Sample {
  const r = spawnSync(process.execPath, [...NODE_FLAGS, __filename, 'child', mode, path], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`${mode} ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

/**
 * A process timed as a user sees it: wall time from outside (Node's start and the loading of its
 * code included), CPU and peak RSS from the child's own process.resourceUsage() at exit. Its
 * standard output goes to a pipe that is thrown away.
 */
function fromOutside(preload: string, script: string, args: string[], cwd: string): Sample {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...NODE_FLAGS, '--require', preload, script, ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 24,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${script} ${args.join(' ')} failed: ${r.stderr}`);
  const usage = /syncscope-bench-usage (\{.*\})/.exec(r.stderr);
  if (!usage) throw new Error(`no resource usage from ${script} ${args.join(' ')}: ${r.stderr}`);
  const u = JSON.parse(usage[1]) as { cpuMs: number; maxRssMB: number };
  return { ms, cpuMs: u.cpuMs, maxRssMB: u.maxRssMB };
}

/** The CLI as a user runs it (dist/cli.js). */
const cliRun = (preload: string, args: string[], cwd: string): Sample =>
  fromOutside(preload, repoPath('dist', 'cli.js'), args, cwd);

/** The child's CPU time and peak RSS, printed to stderr as it exits. */
const PRELOAD = `process.on('exit', () => {
  const u = process.resourceUsage();
  require('fs').writeSync(2, 'syncscope-bench-usage ' + JSON.stringify({
    cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssMB: u.maxRSS / 1024 }) + '\\n');
});\n`;

/** Best (least) of each field on its own: other processes on a shared machine only ever add time. */
const best = (xs: Sample[]): Sample => ({
  ms: Math.min(...xs.map((x) => x.ms)),
  cpuMs: Math.min(...xs.map((x) => x.cpuMs)),
  maxRssMB: Math.max(...xs.map((x) => x.maxRssMB)),
});

const option = (name: string, dflt: number): number => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : dflt;
};

const git = (args: string): string => {
  try {
    return execSync(`git ${args}`, { cwd: repoPath() }).toString().trim();
  } catch {
    return '';
  }
};

async function main(): Promise<void> {
  const ops = option('ops', 1e6);
  const rounds = option('rounds', 3);
  const withJson = !process.argv.includes('--no-json');
  if (!existsSync(repoPath('dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run node scripts/build.mjs');
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-trace-file-'));
  const scenarioPath = join(dir, 'big.scenario.json');
  writeFileSync(scenarioPath, benchScenario(ops));
  const preload = join(dir, 'usage.cjs');
  writeFileSync(preload, PRELOAD);

  // The trace as `simulate --out` saves it: simulated, then analysed for its findings.
  const trace = simulate(compileScenario(readFileSync(scenarioPath, 'utf8'), scenarioPath));
  trace.findings = analyze(trace).findings;
  const rows = trace.calls.count + trace.ops.count + trace.edges.count;
  const arrowPath = join(dir, 'big.syncscope');
  const jsonPath = join(dir, 'big.syncscope.json');
  let t0 = performance.now();
  await saveTraceFile(trace, arrowPath);
  const arrowWriteMs = performance.now() - t0;
  let jsonWriteMs = NaN;
  if (withJson) {
    t0 = performance.now();
    await saveTraceFile(trace, jsonPath);
    jsonWriteMs = performance.now() - t0;
  }
  const counts = { calls: trace.calls.count, ops: trace.ops.count, edges: trace.edges.count };
  const arrowBytes = statSync(arrowPath).size;
  const jsonBytes = withJson ? statSync(jsonPath).size : NaN;

  const samples: Record<string, Sample[]> = {};
  const add = (key: string, s: Sample) => (samples[key] ??= []).push(s);
  const outArrow = join(dir, 'cli.syncscope');
  for (let r = 0; r < rounds; r++) {
    add('simulate', fromOutside(preload, __filename, ['child', 'simulate', scenarioPath], dir));
    add('cli', cliRun(preload, ['simulate', scenarioPath], dir));
    add('cli-out', cliRun(preload, ['simulate', scenarioPath, '--out', outArrow], dir));
    add('arrow', inChild('load', arrowPath));
    if (withJson) {
      add('parse', inChild('parse', jsonPath));
      add('json', inChild('load', jsonPath));
    }
    console.error(`round ${r + 1} of ${rounds} done`);
  }
  const b = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, best(v)]));
  rmSync(dir, { recursive: true, force: true });

  const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
  const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
  const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const MB = 2 ** 20;
  const line = (what: string, s: Sample | undefined) =>
    s ? `| ${what} | ${f0(s.ms)} | ${f0(s.cpuMs)} | ${f0(s.maxRssMB)} |` : `| ${what} | - | - | - |`;
  const arrowPerRow = arrowBytes / rows;
  const jsonPerRow = jsonBytes / rows;
  const reload = b.arrow.ms / b.parse?.ms;
  const reloadCpu = b.arrow.cpuMs / b.parse?.cpuMs;
  const jsonReload = b.json?.ms / b.parse?.ms;
  const jsonReloadCpu = b.json?.cpuMs / b.parse?.cpuMs;
  const outRatio = b['cli-out'].ms / b.simulate.ms;
  const outRatioCpu = b['cli-out'].cpuMs / b.simulate.cpuMs;
  const sizes = [
    '| form | bytes | bytes per row | write ms (in process) |',
    '| --- | ---: | ---: | ---: |',
    `| .syncscope | ${arrowBytes.toLocaleString('en-US')} (${f1(arrowBytes / MB)} MiB) | ${f1(arrowPerRow)} | ${f0(arrowWriteMs)} |`,
    `| .syncscope.json | ${withJson ? `${jsonBytes.toLocaleString('en-US')} (${f1(jsonBytes / MB)} MiB)` : '-'} | ${f1(jsonPerRow)} | ${f0(jsonWriteMs)} |`,
  ].join('\n');
  const times = [
    '| what (each its own process) | wall ms | CPU ms | peak RSS MB |',
    '| --- | ---: | ---: | ---: |',
    line('core simulation alone: read scenario, compile, simulate', b.simulate),
    line('`syncscope simulate big.scenario.json`', b.cli),
    line('`syncscope simulate big.scenario.json --out x.syncscope`', b['cli-out']),
    line('reload `.syncscope` (loadTraceFile)', b.arrow),
    line('readFileSync + JSON.parse of the `.syncscope.json` twin', b.parse),
    line('reload `.syncscope.json` (loadTraceFile)', b.json),
  ].join('\n');
  const verdict = [
    `- Size: ${f1(arrowPerRow)} bytes per row as .syncscope (target <= 25: ${met(arrowPerRow <= 25)}), ` +
      `${f1(jsonPerRow)} as .syncscope.json (${f1(jsonBytes / arrowBytes)}x larger).`,
    `- Reload .syncscope / JSON.parse of its twin: ${f2(reload)}x wall, ${f2(reloadCpu)}x CPU ` +
      `(target <= 0.5x: ${met(reload <= 0.5)} on wall, ${met(reloadCpu <= 0.5)} on CPU).`,
    `- Reload .syncscope.json / JSON.parse: ${f2(jsonReload)}x wall, ${f2(jsonReloadCpu)}x CPU (target <= 1.5x: ` +
      `${met(jsonReload <= 1.5)} on wall, ${met(jsonReloadCpu <= 1.5)} on CPU).`,
    `- \`simulate --out x.syncscope\` / simulation alone: ${f2(outRatio)}x wall, ${f2(outRatioCpu)}x CPU ` +
      `(target <= 2.5x: ${met(outRatio <= 2.5)} on wall, ${met(outRatioCpu <= 2.5)} on CPU); ` +
      `peak RSS ${f0(b['cli-out'].maxRssMB)} MB (target <= 600 MB: ${met(b['cli-out'].maxRssMB <= 600)}).`,
  ].join('\n');
  const commit =
    (git('rev-parse --short HEAD') || 'unknown') +
    (git('status --porcelain -- core node cli bench ":!bench/results"') ? ' (with uncommitted changes)' : '');
  const args = process.argv.slice(2).filter((a) => a.startsWith('--'));
  const report = `# Trace file benchmark, ${new Date().toISOString().slice(0, 10)}

- Machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, ${f0(totalmem() / 2 ** 30)} GiB; Node.js ${process.version}
- Load average (1/5/15 min) when the run began: ${loadBefore.map((x) => x.toFixed(1)).join(' / ')}; when it ended: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')}
- Commit: ${commit}
- Command: \`npm run bench:trace-file${args.length ? ' -- ' + args.join(' ') : ''}\`
- Trace: the scenario of bench/simulate.bench.ts at ${ops.toLocaleString('en-US')} ops, analysed (findings saved):
  ${Object.entries(counts)
    .map(([k, v]) => `${v.toLocaleString('en-US')} ${k}`)
    .join(', ')}; ${rows.toLocaleString('en-US')} rows (calls + ops + edges).
- Method: every timed row runs in its own process (\`node ${NODE_FLAGS.join(' ')}\`), ${rounds} rounds with the
  rows alternated; each figure is the best of its rounds (peak RSS the largest). Reload and parse times
  are timed inside their process and include reading the file. "Simulation alone" and the CLI rows are
  timed alike, as a user sees them: wall time from outside the process (Node's start and the loading of
  its code included), with standard output going to a pipe that is thrown away; CPU and peak RSS are the
  child's own process.resourceUsage() at exit.

${sizes}

${times}

${verdict}
`;
  console.log(`${sizes}\n\n${times}\n\n${verdict}`);
  const out = repoPath('bench', 'results', ops === 1e6 ? 'trace-file.md' : `trace-file-${ops.toExponential()}.md`);
  // Hand-written notes below this heading survive a rerun.
  const NOTES = '\n## Notes\n';
  const notes = existsSync(out) ? readFileSync(out, 'utf8').split(NOTES)[1] : undefined;
  mkdirSync(repoPath('bench', 'results'), { recursive: true });
  writeFileSync(out, report + (notes === undefined ? '' : NOTES + notes));
}

if (process.argv[2] === 'child')
  void child(process.argv[3], process.argv[4]).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
else
  void main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
