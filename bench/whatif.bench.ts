// Prediction accuracy: the saving `whatif` predicts on each plain capture against the saving measured
// on the fixed program's capture, both over the loop's window (loopWindow), and the time a 10^5-op trace
// takes to convert and replay. Writes bench/results/whatif.md.
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { h200 } from '../core/simulate/profile';
import { CK } from '../core/trace/kinds';
import { isWait, str, traceExtent, type Trace } from '../core/trace/model';
import { whatIf } from '../core/whatif/fixes';
import { loadTraceFile } from '../node/trace-file';
import { repoPath } from '../test/helpers/paths';
import { scaleRows } from './whatif-scale';

const PROGRAMS: [string, string][] = [
  ['sync_every_gemm', 'the synchronize after every GEMM removed'],
  ['pageable_copy', 'pinned host memory, asynchronous copies'],
  ['train_step', 'pinned copies, no per-step .item()'],
];
const BOUND = 0.25;
const ms = (ns: number) => `${(ns / 1e6).toFixed(1)} ms`;

const GPU_WORK = new Set<number>([CK.launch, CK.memcpy, CK.memset]);

/** What a call issued, so that the same step of another iteration can be recognized: its kind, ops' names and sizes. */
function signature(t: Trace, call: number, opsOf: Map<number, number[]>): string {
  const ops = (opsOf.get(call) ?? []).map((j) => `${str(t, t.ops.name[j])}/${t.ops.bytes[j]}`);
  return `${t.calls.kind[call]}:${ops.join(',')}`;
}

/**
 * The loop's steady window, found the same way in the plain and the fixed capture. The loop begins
 * with the first call issuing GPU work after the capture's longest host gap between calls (where the
 * program made its data on the CPU or set up its libraries). Its first iteration carries one-time
 * set-up (cuBLAS handles, autograd's worker thread, first allocations) whose host time differs from
 * run to run by more than a fix saves, so the window starts at the second iteration: the next call
 * that issues the same work as the loop's first recurring call (`from`, where the simulation starts).
 * It is measured from the end of the GPU work issued before that call where that is later
 * (`gpuFrom`): a fixed loop that no longer waits issues its second iteration while the first still
 * runs, and a length measured from that call would hold the rest of the first iteration's work, which
 * the plain loop's window, opened on an idle GPU, does not. It ends at the end of the last wait;
 * start-up, pinned-memory allocation and what runs at exit fall outside it.
 */
export function loopWindow(t: Trace): { from: number; gpuFrom: number; to: number; first: number; last: number } {
  const calls: number[] = [];
  for (let i = 0; i < t.calls.count; i++) if (t.calls.kind[i] !== CK.context) calls.push(i);
  calls.sort((a, b) => t.calls.begin[a] - t.calls.begin[b] || a - b);
  const opsOf = new Map<number, number[]>();
  for (let j = 0; j < t.ops.count; j++)
    (opsOf.get(t.ops.call[j]) ?? opsOf.set(t.ops.call[j], []).get(t.ops.call[j])!).push(j);
  let gapAfter = 0;
  let widest = -1;
  for (let k = 1; k < calls.length; k++) {
    const gap = t.calls.begin[calls[k]] - t.calls.end[calls[k - 1]];
    if (gap > widest) [widest, gapAfter] = [gap, k];
  }
  const work = calls.slice(gapAfter).filter((i) => GPU_WORK.has(t.calls.kind[i]));
  const sigs = work.map((i) => signature(t, i, opsOf));
  let first = work[0] ?? calls[0];
  for (let k = 0; k < work.length; k++) {
    const again = sigs.indexOf(sigs[k], k + 1);
    if (again < 0) continue;
    first = work[again];
    break;
  }
  let last = first;
  for (const i of calls) if (isWait(t, i) && t.calls.end[i] > t.calls.end[last]) last = i;
  const from = t.calls.begin[first];
  return { from, gpuFrom: Math.max(from, gpuDrained(t, first)), to: t.calls.end[last], first, last };
}

/** When the GPU finished the work of the calls issued before `call`: the second iteration's work begins no earlier. */
function gpuDrained(t: Trace, call: number): number {
  let end = 0;
  for (let j = 0; j < t.ops.count; j++)
    if (t.calls.begin[t.ops.call[j]] < t.calls.begin[call]) end = Math.max(end, t.ops.end[j]);
  return end;
}

void (async () => {
  // `--scale`: the scale rows alone, printed (for profiling with node --cpu-prof).
  if (process.argv.includes('--scale')) {
    process.stdout.write(`${scaleRows().join('\n')}\n`);
    return;
  }
  const rows = [
    '| program | the fixed program | plain window | fix window | predicted saving (whatif --all over the plain window) | measured saving (plain - fix window) | error |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [p, fix] of PROGRAMS) {
    const dir = 'test/fixtures/capture/programs';
    const plain = await loadTraceFile(repoPath(dir, `${p}.plain.syncscope.json.gz`));
    const fixed = await loadTraceFile(repoPath(dir, `${p}.fix.syncscope.json.gz`));
    const pw = loopWindow(plain);
    const fw = loopWindow(fixed);
    // `to` is exclusive for the calls a scenario keeps; the last wait begins before it ends.
    const results = whatIf(plain, h200, 'all', { from: pw.from, to: pw.to }).filter((r) => r.applied && !r.isCost);
    const predicted = results.reduce((s, r) => s + (r.before.hostNs - r.after!.hostNs), 0);
    const measured = pw.to - pw.gpuFrom - (fw.to - fw.gpuFrom);
    const err = (predicted - measured) / measured;
    const kinds = [...new Set(results.map((r) => r.finding.kind))].join(', ');
    const where = (t: Trace, w: typeof pw) =>
      `${str(t, t.calls.name[w.first])} at ${ms(w.from - traceExtent(t).start)}${w.gpuFrom > w.from ? ` (its GPU work from ${ms(w.gpuFrom - traceExtent(t).start)})` : ''} to ${str(t, t.calls.name[w.last])}: ${ms(w.to - w.gpuFrom)}`;
    rows.push(
      `| ${p} | ${fix} | ${where(plain, pw)} | ${where(fixed, fw)} | ${ms(predicted)} (${results.length} fixes: ${kinds}) | ${ms(measured)} | ${(err * 100).toFixed(1)}%${Math.abs(err) <= BOUND ? '' : ', over 25%'} |`,
    );
  }
  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  const text = [
    '# What-if: predicted against measured savings',
    '',
    `${new Date().toISOString().slice(0, 10)}, ${hostname()}, commit ${commit}. \`node scripts/build.mjs --no-native --tests=bench/whatif && node out/bench/whatif.bench.js\`.`,
    "Both over the loop's steady window, found the same way in each capture (loopWindow): from the call",
    "that starts the loop's second iteration (the first iteration carries one-time set-up: cuBLAS handles,",
    "autograd's thread, first allocations) to the end of the last wait, its length measured from the end of",
    'the GPU work issued before that call where that is later (a loop that no longer waits issues its second',
    'iteration while the first still runs); start-up, pinned-memory allocation and what runs at exit fall',
    'outside. Predicted: the sum of the host time each fix saves when simulated',
    "alone on the plain capture's window (core/whatif/fixes.ts, h200 profile). Measured: the plain window's",
    "length less the fixed program's (both CUPTI captures on the H200, test/fixtures/capture/programs).",
    '',
    ...rows,
    '',
    '## Scale: a 10^5-op trace converted to a scenario and replayed',
    '',
    ...scaleRows(),
    '',
    'Profiled with `node --cpu-prof` (`node out/bench/whatif.bench.js --scale`). The replay compiles the',
    'generated scenario from its values: core/whatif/emit.ts gives the tree the parser would give, its nodes',
    'made as the compiler reads them (core/scenario/tree.ts), and core/scenario/parse.ts compileTree checks',
    'it by the same rules as a file; the text is printed only when asked for. The old path, printing the',
    "text and parsing it back, is measured in the same run. This trace's iterations are identical, so its",
    'scenario is one repeat; the third row compiles it unrolled, as a trace whose iterations differ is. What',
    "remains is mostly the scenario's generation from the trace, then the simulation and the comparison.",
    '',
  ].join('\n');
  writeFileSync(repoPath('bench/results/whatif.md'), text);
  process.stdout.write(text);
})();
