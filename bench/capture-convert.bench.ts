// Converting a raw capture into a trace, per launch: a program whose launches return at once, and
// one whose every launch waited for room in a full launch queue (S19), which asks the release rule
// for each launch. Runs anywhere (the raw streams are written here). Writes a Markdown table to
// stdout, and to $SYNCSCOPE_BENCH_OUT when set.
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { importCapture } from '../core/import/capture-convert';
import { LEGACY_STREAM } from '../core/import/capture-raw';
import { RawCaptureWriter } from '../test/helpers/raw-capture';

const LAUNCHES = 100_000;

/** `waitUs`: how long each launch call took; kernels of 100 us run back to back, 1000 launches behind. */
function capture(waitUs: number): Uint8Array {
  const w = new RawCaptureWriter();
  for (let i = 0; i < LAUNCHES; i++) {
    const begin = i * 100_000;
    const corr = w.call({
      api: 'launch',
      name: 'cudaLaunchKernel',
      begin,
      end: begin + waitUs * 1000,
      stream: LEGACY_STREAM,
    });
    w.kernel(corr, 'k', (i + 1000) * 100_000, (i + 1001) * 100_000 + 500, 7);
  }
  return w.bytes();
}

const rows: string[] = [];
for (const [label, waitUs] of [
  ['launches return at once (3 us)', 3],
  ['every launch waits for the queue (99 us)', 99],
] as const) {
  const bytes = capture(waitUs);
  const t0 = performance.now();
  const t = importCapture(bytes);
  const ms = performance.now() - t0;
  let released = 0;
  for (let c = 0; c < t.calls.count; c++) if (t.calls.releasedBy[c] >= 0) released++;
  rows.push(`| ${label} | ${LAUNCHES} | ${ms.toFixed(0)} | ${((ms * 1000) / LAUNCHES).toFixed(1)} | ${released} |`);
}
const text = [
  '# Capture conversion benchmark',
  '',
  `- date: ${new Date().toISOString()}`,
  `- machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  `- commit: ${process.env.SYNCSCOPE_COMMIT ?? 'unknown'}`,
  '- command: node out/bench/capture-convert.bench.js (built with node scripts/build.mjs --tests=bench/capture-convert)',
  '',
  '| program | launches | convert, ms | us per launch | launches released by an op (S19) |',
  '| --- | --- | --- | --- | --- |',
  ...rows,
  '',
].join('\n');
console.log(text);
if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
