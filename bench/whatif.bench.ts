// Prediction accuracy: the saving `whatif` predicts on each plain capture against the saving measured
// on the fixed program's capture (plain host span - fixed host span), and the time a 10^5-op trace
// takes to convert and replay. Writes bench/results/whatif.md.
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { compileScenario } from '../core/scenario/parse';
import { h200 } from '../core/simulate/profile';
import { simulate } from '../core/simulate/simulate';
import { CK } from '../core/trace/kinds';
import type { Trace } from '../core/trace/model';
import { whatIf } from '../core/whatif/fixes';
import { replay } from '../core/whatif/replay';
import { loadTraceFile } from '../node/trace-file';
import { repoPath } from '../test/helpers/paths';

const PROGRAMS: [string, string][] = [
  ['sync_every_gemm', 'the synchronize after every GEMM removed'],
  ['pageable_copy', 'pinned host memory, asynchronous copies'],
  ['train_step', 'pinned copies, no per-step .item()'],
];
const BOUND = 0.25;
const ms = (ns: number) => `${(ns / 1e6).toFixed(1)} ms`;

/** The main host thread's span: its first call to its last, framework ranges left out. */
function hostSpan(t: Trace): number {
  let a = Infinity;
  let b = -Infinity;
  for (let i = 0; i < t.calls.count; i++) {
    if (t.calls.kind[i] === CK.context) continue;
    a = Math.min(a, t.calls.begin[i]);
    b = Math.max(b, t.calls.end[i]);
  }
  return b - a;
}

function scale(): string {
  // 25,000 iterations of four steps: a copy, a launch, a record and a wait, about 10^5 ops.
  const text = `{ "name": "scale", "streams": { "s": { "nonBlocking": true } }, "events": { "e": {} },
    "buffers": { "h": { "bytes": 4096, "host": "pinned" }, "d": { "bytes": 4096 } },
    "steps": [ { "repeat": 25000, "steps": [
      { "copy": "h", "to": "d", "async": true, "stream": "s" }, { "launch": "k", "stream": "s", "us": 5 },
      { "record": "e", "stream": "s" }, { "hostWork": { "us": 3 } }, { "eventSync": "e" } ] } ] }`;
  const t = simulate(compileScenario(text), h200);
  const start = performance.now();
  const r = replay(t, h200);
  const took = (performance.now() - start) / 1000;
  return `| ${t.ops.count} ops, ${t.calls.count} calls | ${took.toFixed(2)} s | ${r.waits.length} waits compared | ${took <= 3 ? 'within 3 s' : 'over 3 s'} |`;
}

void (async () => {
  const rows = [
    '| program | the fixed program | predicted saving (whatif --all) | measured saving (plain - fix host span) | error |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const [p, fix] of PROGRAMS) {
    const dir = 'test/fixtures/capture/programs';
    const plain = await loadTraceFile(repoPath(dir, `${p}.plain.syncscope.json.gz`));
    const fixed = await loadTraceFile(repoPath(dir, `${p}.fix.syncscope.json.gz`));
    const results = whatIf(plain, h200, 'all').filter((r) => r.applied && !r.isCost);
    const predicted = results.reduce((s, r) => s + (r.before.hostNs - r.after!.hostNs), 0);
    const measured = hostSpan(plain) - hostSpan(fixed);
    const err = (predicted - measured) / measured;
    const kinds = [...new Set(results.map((r) => r.finding.kind))].join(', ');
    rows.push(
      `| ${p} | ${fix} | ${ms(predicted)} (${results.length} fixes: ${kinds}) | ${ms(measured)} | ${(err * 100).toFixed(1)}%${Math.abs(err) <= BOUND ? '' : ', over 25%'} |`,
    );
  }
  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  const text = [
    '# What-if: predicted against measured savings',
    '',
    `${new Date().toISOString().slice(0, 10)}, ${hostname()}, commit ${commit}. \`node scripts/build.mjs --no-native --tests=bench/whatif && node out/bench/whatif.bench.js\`.`,
    'Predicted: the sum of the host time each fix saves when simulated alone on the plain capture',
    "(core/whatif/fixes.ts, h200 profile). Measured: the plain capture's host span less the fixed",
    "program's (both CUPTI captures on the H200, test/fixtures/capture/programs).",
    '',
    ...rows,
    '',
    '## Scale: a 10^5-op trace converted to a scenario and replayed',
    '',
    '| trace | convert + replay | | bound |',
    '| --- | --- | --- | --- |',
    scale(),
    '',
  ].join('\n');
  writeFileSync(repoPath('bench/results/whatif.md'), text);
  process.stdout.write(text);
})();
