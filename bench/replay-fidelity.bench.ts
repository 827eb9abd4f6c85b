// Replay fidelity on every real trace in the fixtures (docs/whatif.md): each torch.profiler trace of the
// recorded programs (default settings, with stacks, with cuda_sync events), each `syncscope profile`
// trace and each CUPTI capture is turned into a scenario, simulated with the h200 profile and compared
// with what it measured: iterations within 5%, waits over 50 µs within 15% with the same releasing op.
// Writes bench/results/replay-fidelity.md.
import { execSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { h200 } from '../core/simulate/profile';
import { LONG_WAIT_NS, replay, SPAN_TOLERANCE, WAIT_TOLERANCE, type Replay } from '../core/whatif/replay';
import { waitMatches } from '../core/whatif/replay-json';
import { loadTraceFile } from '../node/trace-file';
import { repoPath } from '../test/helpers/paths';

/** The fixture folders and which of their files are traces. */
const FOLDERS: [string, RegExp][] = [
  ['test/fixtures/torch/programs', /\.(default|stack|sync)\.json\.gz$/],
  ['test/fixtures/torch/profile', /\.profile\.json\.gz$/],
  ['test/fixtures/capture/programs', /\.syncscope\.json\.gz$/],
  ['test/fixtures/capture/recaptured', /\.syncscope\.json\.gz$/],
  // Recorded since, by programs written as users write theirs: the replay has not been fitted to them.
  ['test/fixtures/python', /\.(profile\.json|capture\.syncscope\.json)\.gz$/],
  ['test/fixtures/whatif-programs', /\.(profile\.json|capture\.syncscope\.json)\.gz$/],
  ['test/fixtures/whatif-truth', /\.(profile\.json|capture\.syncscope\.json)\.gz$/],
  ['test/fixtures/whatif-truth-unseen', /\.(profile\.json|capture\.syncscope\.json)\.gz$/],
  ['test/fixtures/whatif-truth-waits', /\.(profile\.json|capture\.syncscope\.json)\.gz$/],
  ['test/fixtures/whatif-truth-fresh', /\.(profile\.json|capture\.syncscope\.json)\.gz$/],
  ['test/fixtures/whatif-truth-device-wait', /\.(profile\.json|capture\.syncscope\.json)\.gz$/],
  ['test/fixtures/graph-queue', /\.capture\.syncscope\.json\.gz$/],
];

const pct = (e: number) => (Number.isFinite(e) ? `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%` : '—');
const ms = (ns: number) => `${(ns / 1e6).toFixed(1)} ms`;
const worstOf = <T extends { error: number }>(list: T[]): T | undefined =>
  list.length ? list.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a)) : undefined;

/** One table row per trace, and whether it passes: every iteration within 5%, every long wait matched. */
function row(file: string, r: Replay): { cells: string; passes: boolean } {
  const worstSpan = worstOf(r.spans)!;
  const its = r.iterations;
  const itsWithin = its.filter((i) => Math.abs(i.error) <= SPAN_TOLERANCE).length;
  const worstIt = worstOf(its);
  const long = r.waits.filter((w) => w.measuredNs > LONG_WAIT_NS);
  const matched = long.filter(waitMatches);
  const worstWait = worstOf(long);
  const sameOp = long.filter((w) => w.sameReleaser).length;
  // A miss's reason once, without the call and op numbers of its own trace.
  const reasons = [...long.filter((w) => w.why).map((w) => w.why!), ...its.filter((i) => i.why).map((i) => i.why!)];
  const why = [
    ...new Set(
      reasons.map((x) =>
        x
          .replace(/^call \d+ \S+: /, '')
          .replace(/ \(call \d+\)/, '')
          .replace(/op \d+/g, 'op N'),
      ),
    ),
  ];
  const passes =
    Math.abs(worstSpan.error) <= SPAN_TOLERANCE && itsWithin === its.length && matched.length === long.length;
  const cells = [
    file,
    `${ms(worstSpan.measuredNs)} -> ${ms(worstSpan.replayedNs)} (${pct(worstSpan.error)})`,
    worstIt ? `${itsWithin} of ${its.length} (${worstIt.label} ${pct(worstIt.error)})` : 'no loop found',
    `${matched.length} of ${long.length}`,
    worstWait ? `${pct(worstWait.error)} (call ${worstWait.call})` : '—',
    `${sameOp} of ${long.length}`,
    `${r.waits.length} / ${r.waits.filter((w) => w.leftOut).length} / ${r.waits.filter((w) => w.inferred).length}`,
    passes ? 'yes' : 'no',
    why.join('<br>') || '—',
  ];
  return { cells: `| ${cells.join(' | ')} |`, passes };
}

void (async () => {
  const rows = [
    '| trace | host span measured -> replayed (worst thread) | iterations within 5% (worst) | waits > 50 µs within 15%, same releaser | worst wait > 50 µs | same releaser | waits / left out / inferred | passes | why the others miss |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  let passing = 0;
  let total = 0;
  for (const [dir, pattern] of FOLDERS)
    for (const name of readdirSync(repoPath(dir))
      .filter((f) => pattern.test(f))
      .sort()) {
      const file = `${dir}/${name}`;
      const r = replay(await loadTraceFile(repoPath(file)), h200);
      const { cells, passes } = row(file.replace('test/fixtures/', ''), r);
      rows.push(cells);
      total++;
      if (passes) passing++;
    }
  const commit = execSync('git rev-parse --short HEAD', { cwd: repoPath('.') })
    .toString()
    .trim();
  const text = [
    '# Replay fidelity on the recorded traces',
    '',
    `${new Date().toISOString().slice(0, 10)}, commit ${commit}, ${cpus()[0]?.model ?? 'unknown CPU'} (replay needs no GPU; the traces were recorded on H200 and H100 GPUs, as each fixture folder says).`,
    '`npm run bench:replay` (bench/replay-fidelity.bench.ts): every trace of the recorded programs (test/gpu/torch/programs):',
    'torch.profiler with default settings, with stacks and with cuda_sync events (torch/programs/*.{default,stack,sync}),',
    '`syncscope profile` (torch/profile) and the CUPTI captures (capture/programs, `plain` and `fix` runs; capture/recaptured, the same for graph_replay with a capture library that records graph launches), and, recorded',
    'later and never fitted to, the captures and profiles of test/gpu/python/programs (python/) and of the buggy programs',
    'of bench/whatif-truth (whatif-programs/, a first recording, whatif-truth/, the current one, and whatif-truth-unseen/,',
    "whatif-truth-waits/, whatif-truth-fresh/ and whatif-truth-device-wait/, programs written after the replay was built), and graph-queue/, torch.compile's",
    'CUDA graphs with the host ahead of the GPU, each turned into',
    'a scenario (core/whatif/from-trace.ts), simulated with the h200 profile and compared (core/whatif/replay.ts).',
    `A trace passes when its host span and every iteration are within ${SPAN_TOLERANCE * 100}% and every wait over ${LONG_WAIT_NS / 1000} µs is within`,
    `${WAIT_TOLERANCE * 100}% with the same releasing op. Iterations are the loop's (core/whatif/iterations.ts); the first carries the`,
    "program's set-up. Waits left out of the scenario count as not replayed; inferred ones stand on a binding the import",
    'deduced or inferred from timing.',
    '',
    `${passing} of ${total} traces pass.`,
    '',
    ...rows,
    '',
  ].join('\n');
  writeFileSync(repoPath('bench/results/replay-fidelity.md'), text);
  process.stdout.write(text);
})();
