// Replay accuracy on the recorded H200 programs: host span within 5% (whole and per iteration), waits
// over 50 us within 15% with the same releasing op, on the CUPTI captures and the PyTorch profiler
// traces of the same programs. Writes bench/results/replay.md.
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { h200 } from '../core/simulate/profile';
import { LONG_WAIT_NS, replay, SPAN_TOLERANCE, WAIT_TOLERANCE } from '../core/whatif/replay';
import { loadTraceFile } from '../node/trace-file';
import { repoPath } from '../test/helpers/paths';

const PROGRAMS = ['sync_every_gemm', 'pageable_copy', 'train_step', 'side_stream_sync', 'streams_sync', 'graph_replay'];
/** Each program's traces: our capture, and torch.profiler's without and with cuda_sync events, and `syncscope profile`'s. */
const TRACES: [string, (p: string) => string][] = [
  ['capture', (p) => `test/fixtures/capture/programs/${p}.plain.syncscope.json.gz`],
  ['torch default', (p) => `test/fixtures/torch/programs/${p}.default.json.gz`],
  ['torch sync', (p) => `test/fixtures/torch/programs/${p}.sync.json.gz`],
  ['profile', (p) => `test/fixtures/torch/profile/${p}.profile.json.gz`],
];
const pct = (e: number) => `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%`;
const ms = (ns: number) => `${(ns / 1e6).toFixed(1)} ms`;

void (async () => {
  const rows = [
    '| program | trace | host span measured -> replayed (worst thread) | iterations within 5% (worst) | waits > 50 µs within 15%, same releaser | why the others miss |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const p of PROGRAMS)
    for (const [kind, path] of TRACES) {
      const r = replay(await loadTraceFile(repoPath(path(p))), h200);
      const worst = r.spans.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a));
      const long = r.waits.filter((w) => w.measuredNs > LONG_WAIT_NS);
      const ok = long.filter((w) => Math.abs(w.error) <= WAIT_TOLERANCE && w.sameReleaser);
      const its = r.iterations;
      const within = its.filter((i) => Math.abs(i.error) <= SPAN_TOLERANCE).length;
      const worstIt = its.length ? its.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a)) : undefined;
      const itCell = worstIt
        ? `${within} of ${its.length}${r.iterationsFrom === 'ProfilerStep' ? ' (ProfilerStep)' : ''} (${worstIt.label} ${pct(worstIt.error)})`
        : 'no loop found';
      // A miss's reason once, with the call numbers of its own trace left out.
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
      const span = `${ms(worst.measuredNs)} -> ${ms(worst.replayedNs)} (${pct(worst.error)}${Math.abs(worst.error) <= SPAN_TOLERANCE ? '' : ', over 5%'})`;
      rows.push(
        `| ${p} | ${kind} | ${span} | ${itCell} | ${ok.length} of ${long.length} | ${why.join('<br>') || '—'} |`,
      );
    }
  const commit = execSync('git rev-parse --short HEAD', { cwd: repoPath('.') })
    .toString()
    .trim();
  const text = [
    '# Replay accuracy on the H200 programs',
    '',
    `${new Date().toISOString().slice(0, 10)}, commit ${commit}, on the development machine (replay needs no GPU; the traces were recorded on an H200).`,
    '`node scripts/build.mjs --no-native --tests=bench/replay && node out/bench/replay.bench.js`: each program',
    '(test/gpu/torch/programs) as captured (test/fixtures/capture/programs/*.plain), as traced by torch.profiler',
    'without and with cuda_sync events (test/fixtures/torch/programs/*.{default,sync}) and by `syncscope profile`',
    '(test/fixtures/torch/profile), turned into a scenario (core/whatif/from-trace.ts), simulated with the h200',
    `profile and compared (core/whatif/replay.ts). Bounds: span ${(SPAN_TOLERANCE * 100).toFixed(0)}%, waits ${(WAIT_TOLERANCE * 100).toFixed(0)}%.`,
    "Iterations are the loop's (core/whatif/iterations.ts): ProfilerStep ranges where a trace has more than one,",
    'else the run of a repeating call sequence that lasts longest; each runs from its first call to the next',
    "one's first call, the last to its last call's end. The first iteration carries the program's set-up.",
    '',
    ...rows,
    '',
    'Read in the data: the iteration misses of streams_sync (its second GEMM on s2 started only when the GEMM on',
    's1 was nearly done: SM contention), of the torch default traces (their cudaStreamSynchronize names no stream,',
    "so the wait is left out), and graph_replay's capture (recorded before the capture followed graph launches: no",
    'cudaGraphLaunch call; the import names the node that started before the wait, while the last node released it).',
    "Also read in the data: pageable_copy's torch traces (the copy's op ends 12 µs after its call returns, so the",
    'trace names the GEMM the copy was ordered after and counts the call blocked until that GEMM ended, 4.75 of',
    "12.7 ms in the first iteration), and side_stream_sync's torch sync and profile traces (their event records",
    'have no op, so the scenario marks the records and the event synchronizes do not wait).',
    '',
  ].join('\n');
  writeFileSync(repoPath('bench/results/replay.md'), text);
  process.stdout.write(text);
})();
