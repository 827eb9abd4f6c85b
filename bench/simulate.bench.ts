// Simulator throughput: scenarios of 10^4, 10^5 and 10^6 ops (four streams, events, waits and
// periodic syncs), compiled once and simulated in one process. Prints a table and writes it to
// bench/results/simulate.md. Targets: 10^6 ops in <= 2 s, and 10^5 -> 10^6 growing <= 15x.
import { execSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { compileScenario } from '../core/scenario/parse';
import { simulate } from '../core/simulate';
import { repoPath } from '../test/helpers/paths';
import { benchScenario } from './scenario-gen';

interface Row {
  ops: number;
  compileMs: number;
  simulateMs: number;
  cpuMs: number;
  opsPerSec: number;
  heapMb: number;
}

/**
 * Best of `runs`, wall and CPU each on its own: other processes on a shared machine only ever make
 * a run slower. CPU is process.cpuUsage, so it includes the garbage collector's helper threads.
 */
function measure(ops: number, runs: number): Row {
  const text = benchScenario(ops);
  let t0 = performance.now();
  const program = compileScenario(text, 'bench.scenario.json');
  const compileMs = performance.now() - t0;
  let best: Row | undefined;
  for (let r = 0; r < runs; r++) {
    t0 = performance.now();
    const c0 = process.cpuUsage();
    const trace = simulate(program);
    const cpu = process.cpuUsage(c0);
    const simulateMs = performance.now() - t0;
    if (trace.ops.count !== ops) throw new Error(`expected ${ops} ops, simulated ${trace.ops.count}`);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    best = best
      ? { ...best, simulateMs: Math.min(best.simulateMs, simulateMs), cpuMs: Math.min(best.cpuMs, cpuMs) }
      : { ops, compileMs, simulateMs, cpuMs, opsPerSec: 0, heapMb };
  }
  return { ...(best as Row), opsPerSec: ops / ((best as Row).simulateMs / 1000) };
}

/**
 * How fast this machine writes columns right now: a trace of 10^6 ops is mostly ~50 typed-array
 * writes per op, so on a loaded shared machine this number explains most of the result.
 */
function columnWritesMs(): number {
  const n = 1e6;
  const cols = Array.from({ length: 40 }, () => new Float64Array(n));
  const t0 = performance.now();
  for (let i = 0; i < n; i++) for (let c = 0; c < cols.length; c++) cols[c][i] = i;
  return performance.now() - t0;
}

const loadBefore = loadavg();
measure(1e4, 3); // warm-up: let the JIT compile the simulator before anything is timed
if (process.argv.includes('--million')) {
  // One figure for comparing builds run alternately, each in its own process: nothing is written.
  const r = measure(1e6, 3);
  console.log(`1e6 ops: ${r.cpuMs.toFixed(0)} ms CPU, ${r.simulateMs.toFixed(0)} ms wall`);
  process.exit(0);
}
const referenceMs = columnWritesMs();
const rows = [measure(1e4, 5), measure(1e5, 5), measure(1e6, 3)];
const ratio = rows[2].simulateMs / rows[1].simulateMs;
const git = (args: string): string => {
  try {
    return execSync(`git ${args}`, { cwd: repoPath() }).toString().trim();
  } catch {
    return '';
  }
};
const commit =
  (git('rev-parse --short HEAD') || 'unknown') +
  (git('status --porcelain -- core bench') ? ' (with uncommitted changes to core/ or bench/)' : '');
const date = new Date().toISOString().slice(0, 10);
const table = [
  '| ops | compile ms | simulate ms (wall) | simulate ms (CPU) | ops/s | heap MB after |',
  '| ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.ops.toLocaleString('en-US')} | ${r.compileMs.toFixed(0)} | ${r.simulateMs.toFixed(0)} | ${r.cpuMs.toFixed(0)} | ${Math.round(r.opsPerSec).toLocaleString('en-US')} | ${r.heapMb.toFixed(0)} |`,
  ),
].join('\n');
const cpuRatio = rows[2].cpuMs / rows[1].cpuMs;
const met = (ok: boolean) => (ok ? 'met' : 'missed');
const verdict =
  `10^6 ops: ${(rows[2].simulateMs / 1000).toFixed(2)} s wall, ${(rows[2].cpuMs / 1000).toFixed(2)} s CPU ` +
  `(target <= 2 s: ${met(rows[2].simulateMs <= 2000)} on wall, ${met(rows[2].cpuMs <= 2000)} on CPU); ` +
  `10^5 -> 10^6: ${ratio.toFixed(1)}x wall, ${cpuRatio.toFixed(1)}x CPU (target <= 15x: ${met(ratio <= 15)} on wall, ${met(cpuRatio <= 15)} on CPU)`;
const out = repoPath('bench', 'results', 'simulate.md');
// Hand-written notes below this heading survive a rerun.
const NOTES = '\n## Notes\n';
const notes = existsSync(out) ? readFileSync(out, 'utf8').split(NOTES)[1] : undefined;
const report = `# Simulator benchmark, ${date}

- Machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores; Node.js ${process.version}
- Load average (1/5/15 min) when the run began: ${loadBefore.map((x) => x.toFixed(1)).join(' / ')}; when it ended: ${loadavg()
  .map((x) => x.toFixed(1))
  .join(' / ')}
- Wall and CPU times are each the best of several runs (5, 5 and 3 for the three sizes)
- Machine speed reference: 4 x 10^7 writes to fresh Float64Arrays took ${referenceMs.toFixed(0)} ms
- Commit: ${commit}
- Command: \`npm run bench:simulate\`
- Scenario: four streams (two blocking, two non-blocking, one with priority -1), per 10 ops 4 kernels,
  3 event records, 2 stream waits and 1 pinned copy; a query and an event synchronize every 1,000 ops.
  "simulate" is \`simulate(program)\` alone (CPU includes the garbage collector's threads); "compile" is the
  scenario parser, repeat unrolling included.

${table}

${verdict}
${notes === undefined ? '' : NOTES + notes}`;
console.log(`${table}\n\n${verdict}\nreference: 4e7 column writes in ${referenceMs.toFixed(0)} ms`);
mkdirSync(repoPath('bench', 'results'), { recursive: true });
writeFileSync(out, report);
