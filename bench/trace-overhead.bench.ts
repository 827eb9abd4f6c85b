// What recording a trace adds to a PyTorch program's host time, per CUDA call and per framework op
// (record_function range), for each kind of trace the what-if corrects (core/simulate/trace-overhead.ts):
// torch.profiler by default, with stacks, with stacks and cuda_sync events, and the CUPTI capture
// with Python stacks. bench/trace-overhead/probe.py times four loops (x.add_(1): one op and one
// launch; x.view(-1): one op; event.record(): one CUDA call; a Python function that does nothing:
// one Python call) plain and under each recorder, in alternating rounds of fresh processes pinned to
// the same cores. Per round and recorder:
//   perRecordFunctionNs = op time added;  perCudaCallNs = launch time added less that.
// The Python call's added time is reported beside them: with stacks, the profiler's Python tracer
// logs a range for each Python call, and the what-if weighs those ranges against an op's
// (core/whatif/overhead.ts, PYTHON_CALL_SHARE).
// It also times two kernels on the GPU, queued so that the GPU runs them back to back, for what the
// recorder adds to a kernel's own duration (reported, not part of the model).
// Writes Markdown and the profile's `traceOverhead` field to $SYNCSCOPE_BENCH_OUT (default stdout
// only) and $SYNCSCOPE_BENCH_OUT.json. Needs a GPU, torch, and the capture library.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '../core/stats';
import type { TraceKind, TraceOverhead } from '../core/simulate/trace-overhead';
import { findCaptureLibrary } from '../node/capture-library';
import { captureEnv } from '../node/capture-process';
import { repoPath } from '../test/helpers/paths';

const ROUNDS = Number(process.env.SYNCSCOPE_BENCH_ROUNDS ?? 5);
const PROBE = repoPath('bench/trace-overhead/probe.py');
const PIN = spawnSync('taskset', ['-c', '2-5', 'true']).status === 0 ? ['taskset', '-c', '2-5'] : [];
const RECORDERS: TraceKind[] = ['profiler-default', 'profiler-stacks', 'profiler-cuda-sync', 'capture'];

interface Probe {
  launch: number;
  op: number;
  record: number;
  python: number;
  /** GPU time per kernel, queued behind a sleeping kernel: a one-element add, a 1024x1024 matmul, the add as a CUDA graph's nodes. */
  gpuAdd: number;
  gpuMm: number;
  gpuGraph: number;
}

function probe(mode: string, env: NodeJS.ProcessEnv): Probe {
  const command = [...PIN, 'python3', PROBE, mode];
  const r = spawnSync(command[0], command.slice(1), { env, encoding: 'utf8', timeout: 120_000 });
  const m =
    /launch_ns ([\d.]+) op_ns ([\d.]+) record_ns ([\d.]+) python_ns ([\d.]+) gpu_add_ns ([\d.]+) gpu_mm_ns ([\d.]+) gpu_graph_ns ([\d.]+)/.exec(
      r.stdout ?? '',
    );
  if (r.status !== 0 || !m) throw new Error(`probe.py ${mode} failed (${r.status}): ${r.stdout}${r.stderr}`);
  const [launch, op, record, python, gpuAdd, gpuMm, gpuGraph] = m.slice(1).map(Number);
  return { launch, op, record, python, gpuAdd, gpuMm, gpuGraph };
}

function main(): void {
  const library = findCaptureLibrary();
  if (!library.ok) throw new Error(library.reason);
  const plainEnv = { ...process.env, CUDA_MODULE_LOADING: 'EAGER' };
  const captured = captureEnv(library, join(mkdtempSync(join(tmpdir(), 'syncscope-overhead-')), 'c-%p.raw'), plainEnv);
  const added = new Map(
    RECORDERS.map((k) => [
      k,
      {
        op: [] as number[],
        call: [] as number[],
        record: [] as number[],
        python: [] as number[],
        gpuAdd: [] as number[],
        gpuMm: [] as number[],
        gpuGraph: [] as number[],
      },
    ]),
  );
  const plains: Probe[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const plain = probe('plain', plainEnv);
    plains.push(plain);
    for (const kind of RECORDERS) {
      const p = kind === 'capture' ? probe('plain', captured) : probe(kind, plainEnv);
      const a = added.get(kind)!;
      const op = p.op - plain.op;
      a.op.push(op);
      a.call.push(p.launch - plain.launch - op);
      a.record.push(p.record - plain.record);
      a.python.push(p.python - plain.python);
      a.gpuAdd.push(p.gpuAdd - plain.gpuAdd);
      a.gpuMm.push(p.gpuMm - plain.gpuMm);
      a.gpuGraph.push(p.gpuGraph - plain.gpuGraph);
    }
    console.log(`round ${round + 1} of ${ROUNDS} done`);
  }
  const model: TraceOverhead = { name: `${device()} torch probe ${new Date().toISOString().slice(0, 10)}`, kinds: {} };
  const rows: string[] = [];
  const gpuRows: string[] = [];
  for (const kind of RECORDERS) {
    const a = added.get(kind)!;
    // A capture has no framework ops to slow; what its op loop shows is noise between processes.
    const perRecordFunctionNs = kind === 'capture' ? 0 : Math.max(0, Math.round(median(a.op)));
    const perCudaCallNs = Math.max(0, Math.round(median(a.call) + (kind === 'capture' ? median(a.op) : 0)));
    model.kinds[kind] = { perCudaCallNs, perRecordFunctionNs };
    rows.push(
      `| ${kind} | ${range(a.op)} | ${range(a.call)} | ${range(a.record)} | ${range(a.python)} | ${perCudaCallNs} | ${perRecordFunctionNs} |`,
    );
    gpuRows.push(`| ${kind} | ${range(a.gpuAdd)} | ${range(a.gpuMm)} | ${range(a.gpuGraph)} |`);
  }
  const text = [
    '# Trace overhead: what a recorder adds per CUDA call and per framework op, and per kernel on the GPU',
    '',
    `- date: ${new Date().toISOString()}`,
    `- device: ${device()}`,
    `- commit: ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout?.trim() || 'unknown'}`,
    `- command: node out/bench/trace-overhead.bench.js (${ROUNDS} rounds; each a fresh plain process of bench/trace-overhead/probe.py, then one under each recorder; every process on cores 2 to 5)`,
    `- plain process, medians: x.add_(1) ${fmt(median(plains.map((p) => p.launch)))} ns, x.view(-1) ${fmt(median(plains.map((p) => p.op)))} ns, event.record() ${fmt(median(plains.map((p) => p.record)))} ns, nothing() ${fmt(median(plains.map((p) => p.python)))} ns per call`,
    '',
    "Added per call against the plain process of the same round, ns: median (range). The model takes the op loop's added time as the cost per framework op, and the launch loop's less that as the cost per CUDA call; the event record loop, a CUDA call with no framework op, checks the latter. A capture has no framework op to slow: its op loop's difference goes to the CUDA call. nothing() is a call of a Python function that does nothing: with stacks, one range of the profiler's Python tracer.",
    '',
    '| recorder | x.view(-1): per op | x.add_(1) less the op: per CUDA call | event.record(): per CUDA call | nothing(): per Python call | model: perCudaCallNs | model: perRecordFunctionNs |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `GPU time added per kernel against the plain process of the same round, ns: median (range). Plain, per kernel: a one-element add ${fmt(median(plains.map((p) => p.gpuAdd)))} ns, a 1024x1024 matmul ${fmt(median(plains.map((p) => p.gpuMm)))} ns, the add as a CUDA graph's node ${fmt(median(plains.map((p) => p.gpuGraph)))} ns; each kernel queued 400 at a time behind a sleeping kernel (the graph's 400 nodes by one replay), so that the GPU runs them back to back, timed between CUDA events (median of 5 batches).`,
    '',
    '| recorder | one-element add | 1024x1024 matmul | one-element add, a CUDA graph node |',
    '| --- | --- | --- | --- |',
    ...gpuRows,
    '',
    'The profile field:',
    '',
    '```json',
    JSON.stringify({ traceOverhead: model }, null, 2),
    '```',
    '',
  ].join('\n');
  console.log(text);
  const out = process.env.SYNCSCOPE_BENCH_OUT;
  if (out) {
    writeFileSync(out, text);
    writeFileSync(`${out}.json`, JSON.stringify(model, null, 2));
  }
}

let deviceName: string | undefined;
function device(): string {
  deviceName ??=
    spawnSync('nvidia-smi', ['--query-gpu=name', '--format=csv,noheader'], { encoding: 'utf8' })
      .stdout?.trim()
      .split('\n')[0] || 'unknown GPU';
  return deviceName;
}

const fmt = (ns: number) => ns.toFixed(0);
const range = (xs: number[]) => `${fmt(median(xs))} (${fmt(Math.min(...xs))} to ${fmt(Math.max(...xs))})`;

main();
