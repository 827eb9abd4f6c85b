// The capture's cost on the GPU: host time per kernel launch with the capture library injected
// against the same program without it (a C++ launch loop, alternating runs), the capture's parts
// switched within one process (launch_switch.cu), and on a PyTorch loop also against
// torch.profiler. The switched and probed runs load the benchmark's build of the library
// (libsyncscope_capture_measure.so: node scripts/build-capture.mjs --measure); the capture's own
// rows load the shipped one. Writes Markdown tables to stdout, and to $SYNCSCOPE_BENCH_OUT when set.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '../core/stats';
import { captureEnv } from '../node/capture-process';
import { findCaptureLibrary } from '../node/capture-library';
import { buildProgram, CAPTURE_ENV, noCaptureCpp, noCaptureTorch, programPath } from '../test/gpu/capture/run';

const LAUNCHES = 20000;
const RUNS = 5;
/** The capture itself against the plain loop: more pairs than each probe row. */
const MAIN_RUNS = 15;
/** PyTorch runs start an interpreter each: fewer of them. */
const TORCH_RUNS = 2;
/** Pairs of processes (plain, captured) of the switching loop, and the rounds of every part each runs. */
const SWITCH_RUNS = 6;
const SWITCH_ROUNDS = 100;
/** With SYNCSCOPE_BENCH_PROBES set: each leaves parts of the capture out (SYNCSCOPE_CAPTURE_PROBE); the last is CUPTI loaded and nothing enabled. */
const PROBES = [
  'no-kernel-activity',
  'no-callbacks',
  'no-launch-callbacks',
  'no-driver-callbacks',
  'no-sync-activity',
  'no-event-activity',
  'no-memory-activity',
  'no-activity',
  'no-activity,no-callbacks',
];
/** Every run on the same four cores, so that where the scheduler puts a run is not read as the capture's cost. */
const PIN = spawnSync('taskset', ['-c', '2-5', 'true']).status === 0 ? ['taskset', '-c', '2-5'] : [];
const us = (ns: number) => (ns / 1000).toFixed(2);
/** The probe list that leaves only CUPTI's kernel activity records enabled. */
const KERNEL_RECORDS_ONLY = 'no-callbacks,no-sync-activity,no-event-activity,no-memory-activity';

function runPinned(command: string[], env: NodeJS.ProcessEnv): string {
  const pinned = [...PIN, ...command];
  const r = spawnSync(pinned[0], pinned.slice(1), { env, encoding: 'utf8' });
  if (r.status !== 0 || !/per_launch_ns/.test(r.stdout ?? ''))
    throw new Error(`${command.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return r.stdout;
}

function perLaunch(command: string[], env: NodeJS.ProcessEnv): number {
  return Number(/per_launch_ns ([\d.]+)/.exec(runPinned(command, env))![1]);
}

/** launch_switch's lines: per part, its median level and its median difference from part 0. */
function switchedParts(out: string): Map<number, { added: number; level: number }> {
  const parts = new Map<number, { added: number; level: number }>();
  for (const m of out.matchAll(/parts (\d+) added_ns (-?[\d.]+) per_launch_ns ([\d.]+)/g))
    parts.set(Number(m[1]), { added: Number(m[2]), level: Number(m[3]) });
  return parts;
}

/**
 * The capture switched per batch within one process (launch_switch.cu), each captured process
 * paired with a plain one: what the parts cost with the process held fixed, and how much slower
 * the captured process runs with the capture off.
 */
function switchedRows(plainEnv: NodeJS.ProcessEnv, captured: NodeJS.ProcessEnv): string[] {
  const loop = buildProgram('launch_switch');
  const rows: string[] = [];
  const offs: number[] = [];
  const boths: number[] = [];
  const wholes: number[] = [];
  for (let i = 0; i < SWITCH_RUNS; i++) {
    const plain = switchedParts(runPinned([loop, String(SWITCH_ROUNDS)], plainEnv)).get(0)!.level;
    const p = switchedParts(runPinned([loop, String(SWITCH_ROUNDS)], captured));
    const [off, act, cb, both] = [0, 1, 2, 3].map((k) => p.get(k)!);
    offs.push(off.level - plain);
    boths.push(both.added);
    wholes.push(both.level - plain);
    rows.push(
      `| ${i + 1} | ${us(plain)} | ${us(off.level)} (${sign(off.level - plain)}) | ${sign(act.added)} | ${sign(cb.added)} | ${sign(both.added)} | ${sign(both.level - plain)} |`,
    );
  }
  return [
    '## One process, the capture switched per batch',
    '',
    `${SWITCH_RUNS} pairs of processes of test/gpu/capture/programs/launch_switch.cu: a plain one, then one with the capture, switched between its parts (syncscope_capture_switch) for each batch of 256 launches, ${SWITCH_ROUNDS} rounds of every part. Added: the median over rounds of a part's difference from the capture off in the same round, us per launch.`,
    '',
    '| pair | plain process | captured process, capture off (vs plain) | activity records on | API callbacks on | both (the capture) | both, vs the plain process |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Medians: the capture switched on adds ${us(median(boths))} us per launch within its process; the captured process with the capture off runs ${sign(median(offs))} us per launch against the plain one; the whole, ${us(median(wholes))} us.`,
    '',
  ];
}

/** Processes of stack_cost.py, each alternating stacks on and off per batch for its rounds. */
const STACK_RUNS = 3;
const STACK_ROUNDS = 200;

/**
 * The Python stacks' cost with the process held fixed: stack_cost.py switches them on and off for
 * alternate batches of launches and of synchronizes (syncscope_capture_switch), 24 frames deep.
 */
function stackRows(switchable: NodeJS.ProcessEnv): string[] {
  if (noCaptureTorch) return ['## Python stacks', '', `skipped: ${noCaptureTorch}`, ''];
  const rows: string[] = [];
  const launch: number[] = [];
  const sync: number[] = [];
  for (let i = 0; i < STACK_RUNS; i++) {
    const out = runStacks(switchable);
    const m =
      /stacks depth (\d+) launch_added_ns (-?[\d.]+) sync_added_ns (-?[\d.]+) launch_on_ns ([\d.]+) sync_on_ns ([\d.]+)/.exec(
        out,
      );
    if (!m) throw new Error(`stack_cost.py printed no result: ${out}`);
    launch.push(Number(m[2]));
    sync.push(Number(m[3]));
    rows.push(
      `| ${i + 1} | ${m[1]} | ${us(Number(m[4]))} | ${sign(Number(m[2]))} | ${us(Number(m[5]))} | ${sign(Number(m[3]))} |`,
    );
  }
  return [
    '## Python stacks',
    '',
    `${STACK_RUNS} processes of test/gpu/capture/programs/stack_cost.py under the capture, each switching the Python stacks on and off (syncscope_capture_switch) for alternate batches of 256 launches (x.add_(1)) and of 256 synchronizes of an idle stream, ${STACK_ROUNDS} rounds, the calls made 24 Python frames deep. Added: the median over rounds of stacks on less stacks off, us per call.`,
    '',
    '| process | frames | per launch, stacks on | added | per synchronize, stacks on | added |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Medians: the stacks add ${us(median(launch))} us per launch (target: at most 1) and ${us(median(sync))} us per synchronize (target: at most 3).`,
    '',
  ];
}

function runStacks(env: NodeJS.ProcessEnv): string {
  const pinned = [...PIN, 'python3', programPath('stack_cost.py'), String(STACK_ROUNDS)];
  const r = spawnSync(pinned[0], pinned.slice(1), { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`stack_cost.py failed (${r.status}): ${r.stdout}${r.stderr}`);
  return r.stdout;
}

const sign = (ns: number) => `${ns >= 0 ? '+' : ''}${us(ns)}`;

/**
 * Alternates a plain run with one run of each other kind; returns each kind's median and the
 * median of its per-round differences from the plain run.
 */
function alternate(plain: () => number, others: (() => number)[], runs = RUNS) {
  const a: number[] = [];
  const b: number[][] = others.map(() => []);
  const diff: number[][] = others.map(() => []);
  for (let i = 0; i < runs; i++) {
    const x = plain();
    a.push(x);
    others.forEach((other, k) => {
      const y = other();
      b[k].push(y);
      diff[k].push(y - x);
    });
  }
  return {
    plain: median(a),
    others: b.map((ys, k) => ({
      other: median(ys),
      added: median(diff[k]),
      text: `${us(median(diff[k]))} (${us(Math.min(...diff[k]))} to ${us(Math.max(...diff[k]))})`,
    })),
  };
}

function main() {
  const skip = noCaptureCpp;
  if (skip) {
    console.log(`skipped: ${skip}`);
    return;
  }
  const library = findCaptureLibrary();
  if (!library.ok) return;
  const measuring = findCaptureLibrary({
    ...process.env,
    SYNCSCOPE_CAPTURE_LIB: library.path.replace(/\.so$/, '_measure.so'),
  });
  if (!measuring.ok) throw new Error(`${measuring.reason}; build it with node scripts/build-capture.mjs --measure`);
  const out = mkdtempSync(join(tmpdir(), 'syncscope-bench-'));
  const plainEnv = CAPTURE_ENV;
  // The shipped library, and the benchmark's build of it with the switches that leave parts out.
  const captured = captureEnv(library, join(out, 'capture-%p.raw'), plainEnv);
  const switchable = captureEnv(measuring, join(out, 'capture-%p.raw'), plainEnv);
  // SYNCSCOPE_BENCH_ONLY=stacks: the Python stacks' rows alone, for a short run on the GPU machine.
  if (process.env.SYNCSCOPE_BENCH_ONLY === 'stacks') {
    const text = stackRows(switchable).join('\n');
    console.log(text);
    if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
    return;
  }
  const loop = buildProgram('launch_loop');
  const rows: string[] = [];
  const run = (env: NodeJS.ProcessEnv) => () => perLaunch([loop, String(LAUNCHES)], env);
  // CUPTI's kernel records alone, none of the library's callbacks: what any CUPTI tracer that times
  // kernels pays on this host, in the same rounds as the capture.
  const floorEnv = { ...switchable, SYNCSCOPE_CAPTURE_PROBE: KERNEL_RECORDS_ONLY };
  const cpp = alternate(run(plainEnv), [run(captured), run(floorEnv)], MAIN_RUNS);
  const [whole, floor] = cpp.others;
  rows.push(row('C++ launch loop', cpp.plain, whole, 'capture'));
  rows.push(row('C++ launch loop', cpp.plain, floor, "CUPTI's kernel records alone"));
  const own = `The library's own part, the capture less CUPTI's kernel records alone (medians of ${MAIN_RUNS} rounds): ${us(whole.added - floor.added)} us per launch.`;
  report(rows, own);
  const stacks = stackRows(switchable);
  report(rows, own, stacks);
  const switched = [...switchedRows(plainEnv, switchable), ...stacks];
  report(rows, own, switched);
  // Where the cost goes: the same capture with parts left out (SYNCSCOPE_CAPTURE_PROBE).
  for (const probe of process.env.SYNCSCOPE_BENCH_PROBES ? PROBES : []) {
    const p = alternate(run(plainEnv), [run({ ...switchable, SYNCSCOPE_CAPTURE_PROBE: probe })]);
    rows.push(row('C++ launch loop', p.plain, p.others[0], `capture, ${probe}`));
    report(rows, own, switched);
  }
  if (!noCaptureTorch) {
    const script = programPath('launch_loop.py');
    const torch = (mode: string, env: NodeJS.ProcessEnv) => () =>
      perLaunch(['python3', script, mode, String(LAUNCHES)], env);
    const t = alternate(torch('plain', plainEnv), [torch('plain', captured), torch('profiler', plainEnv)], TORCH_RUNS);
    rows.push(row('PyTorch x.add_(1)', t.plain, t.others[0], 'capture'));
    rows.push(row('PyTorch x.add_(1)', t.plain, t.others[1], 'torch.profiler'));
  } else rows.push(`| PyTorch | skipped: ${noCaptureTorch} | | | |`);
  report(rows, own, switched);
}

let device: string | undefined;

function row(program: string, plain: number, r: { other: number; text: string }, what: string): string {
  return `| ${program} | ${us(plain)} | ${us(r.other)} (${what}) | ${(r.other / plain).toFixed(2)} | ${r.text} |`;
}

/** Written after every row, so that a run cut short still leaves what it measured. */
function report(rows: string[], note = '', after: string[] = []): void {
  device ??=
    spawnSync('nvidia-smi', ['--query-gpu=name,driver_version', '--format=csv,noheader'], {
      encoding: 'utf8',
    }).stdout?.trim() ?? 'unknown';
  const text = [
    '# Capture benchmark',
    '',
    `- date: ${new Date().toISOString()}`,
    `- device: ${device}`,
    `- commit: ${process.env.SYNCSCOPE_COMMIT ?? 'unknown'}`,
    `- command: node out/bench/capture.bench.js (${LAUNCHES} launches per run in batches of 256, host time of the launch calls only; ${MAIN_RUNS} alternating rounds (plain, capture, CUPTI's kernel records alone) for the C++ loop, ${RUNS} for each probe, ${TORCH_RUNS} rounds (plain, capture, torch.profiler) for PyTorch, medians; ${PIN.length ? 'every run on cores 2 to 5' : 'not pinned (no taskset)'})`,
    '',
    '| program | plain, us/launch | with, us/launch | ratio | added, median of pairs (range), us/launch |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Target: at most 2 us added per launch by the capture.`,
    ...(note ? ['', note] : []),
    '',
    ...after,
  ].join('\n');
  console.log(text);
  if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
}

main();
