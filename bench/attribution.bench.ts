// Attribution of host waits in PyTorch profiler traces recorded on an H200 (test/fixtures/torch/
// programs), checked against CUPTI captures of the same programs (test/fixtures/capture/programs).
// Prints, per trace, the waits longer than 50 µs, how their releasing op was found, and how many
// of the inferred answers agree with the capture. SYNCSCOPE_BENCH_OUT=<file> writes the table.
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { BOUND_FACTOR, DEFAULT_RELEASE_BOUND_NS, MIN_BOUND_NS } from '../core/trace/release-infer';
import {
  checkAttribution,
  importedTrace,
  PROGRAMS,
  SETTINGS,
  summarize,
  truthTrace,
  type AttributionSummary,
} from '../test/helpers/attribution-truth';

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(0)}%` : '—');
const commit = (() => {
  try {
    return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();

const rows: string[] = [];
const total: AttributionSummary = {
  long: 0,
  exact: 0,
  deduced: 0,
  timing: 0,
  none: 0,
  unknown: 0,
  ambiguous: 0,
  inferredCompared: 0,
  inferredAgree: 0,
  exactCompared: 0,
  exactAgree: 0,
};
const row = (name: string, s: AttributionSummary) =>
  `| ${name} | ${s.long} | ${s.exact} | ${s.deduced} | ${s.timing} | ${s.none} | ${s.unknown} | ${s.ambiguous} | ` +
  `${pct(s.exact + s.deduced + s.timing, s.long)} | ${s.inferredAgree}/${s.inferredCompared} | ${s.exactAgree}/${s.exactCompared} |`;
for (const program of PROGRAMS) {
  const truth = truthTrace(program);
  for (const setting of SETTINGS) {
    const s = summarize(checkAttribution(importedTrace(program, setting), truth));
    for (const k of Object.keys(total) as (keyof AttributionSummary)[]) total[k] += s[k];
    rows.push(row(`${program}.${setting}`, s));
  }
}
rows.push(row('**all**', total));

const text = [
  '# Attribution benchmark: which op released each host wait of a PyTorch trace',
  '',
  'What it measures: for the PyTorch profiler traces of six programs recorded on an H200 (torch',
  '2.11, CUDA 13: Kineto names no event record), how many host waits longer than 50 µs name their',
  'releasing op, and how found (exact: the data binds it; deduced: the rules leave one op;',
  'timing: the only candidate that ended within the bound before the host resumed, "likely"),',
  'and whether those answers agree with a CUPTI capture of the same program. Matching is by wait',
  'kind and order, and by op name, stream and rank on the stream (test/helpers/attribution-truth.ts).',
  "A capture answer that is itself suspect (unblock latency far above the capture's typical one:",
  'graph_replay, whose graph launch the capture does not record) is not used as truth.',
  '',
  `- date: ${new Date().toISOString().slice(0, 10)}`,
  `- machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  `- commit: ${commit}`,
  '- command: `node scripts/build.mjs --tests=bench/attribution && node out/bench/attribution.bench.js`',
  `- bound: ${BOUND_FACTOR} x the 90th percentile of the trace's exact synchronize latencies (at least ${MIN_BOUND_NS / 1000} µs), ${DEFAULT_RELEASE_BOUND_NS / 1000} µs without enough of them`,
  '',
  '| trace | waits > 50 µs | exact | deduced | timing | none pending | unknown | ambiguous | named | inferred agree | exact agree |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows,
  '',
].join('\n');
process.stdout.write(text);
if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
