// Replay accuracy on the capture fixtures: host span within 5%, waits over 50 us within 15% with the
// same releasing op. Writes bench/results/replay.md.
import { writeFileSync } from 'node:fs';
import { h200 } from '../core/simulate/profile';
import { LONG_WAIT_NS, replay, SPAN_TOLERANCE, WAIT_TOLERANCE } from '../core/whatif/replay';
import { loadTraceFile } from '../node/trace-file';
import { repoPath } from '../test/helpers/paths';

const PROGRAMS = ['sync_every_gemm', 'pageable_copy', 'train_step', 'side_stream_sync', 'streams_sync', 'graph_replay'];
const pct = (e: number) => `${(e * 100).toFixed(1)}%`;

void (async () => {
  const rows = [
    '| program | host span measured -> replayed (worst thread) | waits > 50 µs | within 15%, same releaser | why the others miss |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const p of PROGRAMS) {
    const t = await loadTraceFile(repoPath('test/fixtures/capture/programs', `${p}.plain.syncscope.json.gz`));
    const r = replay(t, h200);
    const worst = r.spans.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a));
    const long = r.waits.filter((w) => w.measuredNs > LONG_WAIT_NS);
    const ok = long.filter((w) => Math.abs(w.error) <= WAIT_TOLERANCE && w.sameReleaser);
    const why = [...new Set(long.filter((w) => w.why).map((w) => w.why!))].join('<br>');
    const span = `${(worst.measuredNs / 1e6).toFixed(1)} ms -> ${(worst.replayedNs / 1e6).toFixed(1)} ms (${pct(worst.error)}${Math.abs(worst.error) <= SPAN_TOLERANCE ? '' : ', over 5%'})`;
    rows.push(`| ${p} | ${span} | ${long.length} | ${ok.length} | ${why || '—'} |`);
  }
  const text = [
    '# Replay accuracy on the H200 captures',
    '',
    '`node scripts/build.mjs --no-native --tests=bench/replay && node out/bench/replay.bench.js`: each',
    'test/fixtures/capture/programs/*.plain capture turned into a scenario (core/whatif/from-trace.ts),',
    `simulated with the h200 profile and compared (core/whatif/replay.ts). Bounds: span ${pct(SPAN_TOLERANCE)}, waits ${pct(WAIT_TOLERANCE)}.`,
    'The span is over the whole capture (every iteration), not per iteration.',
    '',
    ...rows,
    '',
  ].join('\n');
  writeFileSync(repoPath('bench/results/replay.md'), text);
  process.stdout.write(text);
})();
