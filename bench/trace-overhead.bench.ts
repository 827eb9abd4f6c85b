// What recording a trace adds to a PyTorch program's host time, per CUDA call and per framework op
// (record_function range), for each kind of trace the what-if corrects (core/simulate/trace-overhead.ts):
// torch.profiler by default, with stacks, with stacks and cuda_sync events, and the CUPTI capture
// with Python stacks. bench/trace-overhead/probe.py times three loops (x.add_(1): one op and one
// launch; x.view(-1): one op; event.record(): one CUDA call) plain and under each recorder, in
// alternating rounds of fresh processes pinned to the same cores. Per round and recorder:
//   perRecordFunctionNs = op time added;  perCudaCallNs = launch time added less that.
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
}

function probe(mode: string, env: NodeJS.ProcessEnv): Probe {
  const command = [...PIN, 'python3', PROBE, mode];
  const r = spawnSync(command[0], command.slice(1), { env, encoding: 'utf8', timeout: 120_000 });
  const m = /launch_ns ([\d.]+) op_ns ([\d.]+) record_ns ([\d.]+)/.exec(r.stdout ?? '');
  if (r.status !== 0 || !m) throw new Error(`probe.py ${mode} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return { launch: Number(m[1]), op: Number(m[2]), record: Number(m[3]) };
}

function main(): void {
  const library = findCaptureLibrary();
  if (!library.ok) throw new Error(library.reason);
  const plainEnv = { ...process.env, CUDA_MODULE_LOADING: 'EAGER' };
  const captured = captureEnv(library, join(mkdtempSync(join(tmpdir(), 'syncscope-overhead-')), 'c-%p.raw'), plainEnv);
  const added = new Map(
    RECORDERS.map((k) => [k, { op: [] as number[], call: [] as number[], record: [] as number[] }]),
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
    }
    console.log(`round ${round + 1} of ${ROUNDS} done`);
  }
  const model: TraceOverhead = { name: `${device()} torch probe ${new Date().toISOString().slice(0, 10)}`, kinds: {} };
  const rows: string[] = [];
  for (const kind of RECORDERS) {
    const a = added.get(kind)!;
    // A capture has no framework ops to slow; what its op loop shows is noise between processes.
    const perRecordFunctionNs = kind === 'capture' ? 0 : Math.max(0, Math.round(median(a.op)));
    const perCudaCallNs = Math.max(0, Math.round(median(a.call) + (kind === 'capture' ? median(a.op) : 0)));
    model.kinds[kind] = { perCudaCallNs, perRecordFunctionNs };
    rows.push(
      `| ${kind} | ${range(a.op)} | ${range(a.call)} | ${range(a.record)} | ${perCudaCallNs} | ${perRecordFunctionNs} |`,
    );
  }
  const text = [
    '# Trace overhead: what a recorder adds per CUDA call and per framework op',
    '',
    `- date: ${new Date().toISOString()}`,
    `- device: ${device()}`,
    `- commit: ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout?.trim() || 'unknown'}`,
    `- command: node out/bench/trace-overhead.bench.js (${ROUNDS} rounds; each a fresh plain process of bench/trace-overhead/probe.py, then one under each recorder; every process on cores 2 to 5)`,
    `- plain process, medians: x.add_(1) ${fmt(median(plains.map((p) => p.launch)))} ns, x.view(-1) ${fmt(median(plains.map((p) => p.op)))} ns, event.record() ${fmt(median(plains.map((p) => p.record)))} ns per call`,
    '',
    "Added per call against the plain process of the same round, ns: median (range). The model takes the op loop's added time as the cost per framework op, and the launch loop's less that as the cost per CUDA call; the event record loop, a CUDA call with no framework op, checks the latter. A capture has no framework op to slow: its op loop's difference goes to the CUDA call.",
    '',
    '| recorder | x.view(-1): per op | x.add_(1) less the op: per CUDA call | event.record(): per CUDA call | model: perCudaCallNs | model: perRecordFunctionNs |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
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
