// The capture library's writer on a long program's log, without CUDA (native/capture/check/
// write_raw_check.cc): how long writing the raw stream takes and the process's peak resident
// memory, against what the log itself holds (the call chunks and the activity records). Writes
// a Markdown table to stdout, and to $SYNCSCOPE_BENCH_OUT when set.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRawCheck, writeRawCheckSkip } from '../test/helpers/capture-check';

function main(): void {
  const skip = writeRawCheckSkip();
  if (skip) {
    console.log(`skipped: ${skip}`);
    return;
  }
  const program = writeRawCheck();
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-writer-bench-'));
  const rows: string[] = [];
  try {
    for (const launches of [200_000, 2_000_000]) {
      const out = join(dir, 'c.raw');
      const r = spawnSync(program, [out, String(launches), String(launches)], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`write_raw_check ${launches}: ${r.stderr}`);
      const { writeMs, peakRssKiB, logKiB } = JSON.parse(r.stdout) as {
        writeMs: number;
        peakRssKiB: number;
        logKiB: number;
      };
      const file = statSync(out).size / 2 ** 20;
      const [peak, log] = [peakRssKiB / 1024, logKiB / 1024];
      rows.push(
        `| ${launches} | ${file.toFixed(0)} | ${log.toFixed(0)} | ${peak.toFixed(0)} | ${(peak - log).toFixed(0)} | ${writeMs.toFixed(0)} |`,
      );
      rmSync(out);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const text = [
    '# Capture writer benchmark',
    '',
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
    `- commit: ${process.env.SYNCSCOPE_COMMIT ?? 'unknown'}`,
    '- command: node out/bench/capture-writer.bench.js (built with node scripts/build.mjs --tests=bench/capture-writer)',
    "- each launch: one call on the program's second thread and one kernel activity record",
    '',
    '| launches | raw file, MiB | the log (call chunks, activity records), MiB | peak resident, MiB | peak beyond the log, MiB | write, ms |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
  console.log(text);
  if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
}

main();
