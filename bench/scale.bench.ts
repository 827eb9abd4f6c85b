// The CLI end to end at scale: simulate, save, reload and report a scenario of 10^6 ops (or, with
// `--ops 10000000`, of 10^7, for a large host), each in its own child process, measuring wall time
// and peak resident memory with /usr/bin/time. The trace is saved and reloaded as the columnar
// `.syncscope` (Arrow) file: a 10^7-op JSON twin is larger than one string may be. Each child's
// heap is capped at 4 GB, so a step that needs more fails instead of passing on a large host.
// Writes bench/results/scale.md.
//   node out/bench/scale.bench.js [--ops 1000000|2000000|10000000] [--runs N] [--steps save,reload]
// Targets at 10^7 ops: each step <= 30 s and <= 4 GB.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { repoPath } from '../test/helpers/paths';

const SCENARIOS: Record<number, string> = {
  1_000_000: 'bench/scenarios/million-ops.scenario.json',
  2_000_000: 'bench/scenarios/two-million-ops.scenario.json',
  10_000_000: 'bench/scenarios/ten-million-ops.scenario.json',
};
const TARGET_S = 30;
const TARGET_MB = 4096;
/** The heap each step may use: over it, the step fails (V8's heap limit), so a miss shows as a failure. */
const HEAP_MB = 4096;

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

interface Step {
  name: string;
  what: string;
  argv: (scenario: string, saved: string) => string[];
}

/** Each step reads what the one before wrote; `simulate` alone writes nothing. */
const STEPS: Step[] = [
  { name: 'simulate', what: 'compile and simulate, print the summary', argv: (s) => ['simulate', s] },
  { name: 'save', what: 'simulate, then write the .syncscope', argv: (s, out) => ['simulate', s, '-o', out] },
  {
    name: 'reload',
    what: 'load the .syncscope, analyse it, print the findings',
    argv: (_, saved) => ['check', saved],
  },
  { name: 'report', what: 'load it again and write report --json', argv: (_, saved) => ['report', saved, '--json'] },
];

interface Measured {
  wallS: number;
  rssMb: number;
  exit: number;
}

/** One CLI run under /usr/bin/time: its stdout goes to /dev/null (a 10^7-op report is gigabytes). */
function measure(argv: string[]): Measured {
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'TIME %e %M', process.execPath, `--max-old-space-size=${HEAP_MB}`, repoPath('dist/cli.js'), ...argv],
    {
      cwd: repoPath(),
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 64 << 20,
    },
  );
  const m = /TIME ([\d.]+) (\d+)\s*$/.exec(r.stderr.toString());
  if (!m) throw new Error(`no timing from ${argv.join(' ')}: ${r.stderr.toString().slice(-500)}`);
  return { wallS: Number(m[1]), rssMb: Number(m[2]) / 1024, exit: r.status ?? -1 };
}

const ops = option('ops', 1_000_000);
const runs = option('runs', 1);
const scenario = SCENARIOS[ops];
if (!scenario) throw new Error(`--ops takes ${Object.keys(SCENARIOS).join(' or ')}`);
if (!existsSync('/usr/bin/time')) throw new Error('needs /usr/bin/time (GNU time) to read peak memory');
const tmp = repoPath('bench/tmp');
mkdirSync(tmp, { recursive: true });
const saved = join(tmp, `scale-${ops}.syncscope`);
const only = process.argv.includes('--steps')
  ? process.argv[process.argv.indexOf('--steps') + 1].split(',')
  : undefined;
const loadBefore = loadavg();
// `--steps reload,report` reuses a trace saved by an earlier run (kept with --keep).
const rows = STEPS.filter((step) => !only || only.includes(step.name)).map((step) => {
  let best: Measured | undefined;
  for (let r = 0; r < runs; r++) {
    const m = measure(step.argv(scenario, saved));
    if (!best || m.wallS < best.wallS) best = { ...m, rssMb: Math.max(m.rssMb, best?.rssMb ?? 0) };
  }
  return { step, m: best! };
});
const bytes = existsSync(saved) ? statSync(saved).size : 0;
if (!process.argv.includes('--keep')) rmSync(saved, { force: true });

const git = (...args: string[]): string => {
  try {
    return execFileSync('git', args, { cwd: repoPath() }).toString().trim();
  } catch {
    return 'unknown';
  }
};
const ok = (m: Measured) => m.exit <= 1 && m.wallS <= TARGET_S && m.rssMb <= TARGET_MB;
const section = `## ${ops.toLocaleString('en-US')} ops, ${new Date().toISOString().slice(0, 10)}

- Machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node.js ${process.version}
- Load average (1/5/15 min) when the run began: ${loadBefore.map((x) => x.toFixed(1)).join(' / ')}; when it ended: ${loadavg()
  .map((x) => x.toFixed(1))
  .join(' / ')}
- Commit: ${git('rev-parse', '--short', 'HEAD')}; scenario: ${scenario}; best wall of ${runs} run(s), the largest peak RSS
- Command: \`node out/bench/scale.bench.js ${process.argv.slice(2).join(' ')}\`; heap capped at ${HEAP_MB} MB per step; saved trace: ${(bytes / 2 ** 20).toFixed(0)} MB

| step | what | wall s | peak RSS MB | exit | <= ${TARGET_S} s and <= ${TARGET_MB} MB |
| --- | --- | ---: | ---: | ---: | --- |
${rows.map(({ step, m }) => `| ${step.name} | ${step.what} | ${m.wallS.toFixed(1)} | ${m.rssMb.toFixed(0)} | ${m.exit} | ${ok(m) ? 'met' : 'missed'} |`).join('\n')}
`;
process.stdout.write(section);
// One section per size: a rerun replaces its own size's section and keeps the others.
const out = repoPath('bench/results/scale.md');
const HEAD = '# Scale benchmark: the CLI end to end at 10^6 and 10^7 ops\n';
const kept = existsSync(out)
  ? readFileSync(out, 'utf8')
      .split(/\n(?=## )/)
      .slice(1)
      .filter((s) => !s.startsWith(`## ${ops.toLocaleString('en-US')} ops`))
  : [];
writeFileSync(out, [HEAD, ...kept.map((s) => s.trimEnd() + '\n'), section].join('\n'));
