// The capture's cost on the GPU: host time per kernel launch with the capture library injected
// against the same program without it (a C++ launch loop, alternating runs), and on a
// PyTorch loop also against torch.profiler. Writes a Markdown table to stdout, and to
// $SYNCSCOPE_BENCH_OUT when set.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureEnv } from '../runner/capture';
import { findCaptureLibrary } from '../runner/capture-library';
import { median } from '../runner/calibrate';
import { buildProgram, CAPTURE_ENV, noCaptureCpp, noCaptureTorch, programPath } from '../test/gpu/capture/run';

const LAUNCHES = 20000;
const RUNS = 5;
/** The capture itself against the plain loop: more pairs than each probe row. */
const MAIN_RUNS = 15;
/** PyTorch runs start an interpreter each: fewer of them. */
const TORCH_RUNS = 2;
/** With SYNCSCOPE_BENCH_PROBES set: each leaves parts of the capture out (SYNCSCOPE_CAPTURE_PROBE); the last is CUPTI loaded and nothing enabled. */
const PROBES = ['no-kernel-activity', 'no-callbacks', 'no-launch-callbacks', 'no-driver-callbacks', 'no-sync-activity', 'no-event-activity',
  'no-memory-activity', 'no-activity', 'no-activity,no-callbacks'];
/** Every run on the same four cores, so that where the scheduler puts a run is not read as the capture's cost. */
const PIN = spawnSync('taskset', ['-c', '2-5', 'true']).status === 0 ? ['taskset', '-c', '2-5'] : [];
const us = (ns: number) => (ns / 1000).toFixed(2);

function perLaunch(command: string[], env: NodeJS.ProcessEnv): number {
  const pinned = [...PIN, ...command];
  const r = spawnSync(pinned[0], pinned.slice(1), { env, encoding: 'utf8' });
  const m = /per_launch_ns ([\d.]+)/.exec(r.stdout ?? '');
  if (r.status !== 0 || !m) throw new Error(`${command.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return Number(m[1]);
}

/** Alternates plain and other runs; returns the medians and the median of the per-pair differences. */
function alternate(plain: () => number, other: () => number, runs = RUNS) {
  const a: number[] = [];
  const b: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < runs; i++) {
    const x = plain();
    const y = other();
    a.push(x);
    b.push(y);
    diff.push(y - x);
  }
  return { plain: median(a), other: median(b), added: `${us(median(diff))} (${us(Math.min(...diff))} to ${us(Math.max(...diff))})` };
}

function main() {
  const skip = noCaptureCpp;
  if (skip) {
    console.log(`skipped: ${skip}`);
    return;
  }
  const library = findCaptureLibrary();
  if (!library.ok) return;
  const out = mkdtempSync(join(tmpdir(), 'syncscope-bench-'));
  const plainEnv = CAPTURE_ENV;
  const captured = captureEnv(library, join(out, 'capture-%p.raw'), plainEnv);
  const loop = buildProgram('launch_loop');
  const rows: string[] = [];
  const cpp = alternate(() => perLaunch([loop, String(LAUNCHES)], plainEnv), () => perLaunch([loop, String(LAUNCHES)], captured), MAIN_RUNS);
  rows.push(`| C++ launch loop | ${us(cpp.plain)} | ${us(cpp.other)} (capture) | ${(cpp.other / cpp.plain).toFixed(2)} | ${cpp.added} |`);
  report(rows);
  // Where the cost goes: the same capture with parts left out (SYNCSCOPE_CAPTURE_PROBE).
  for (const probe of process.env.SYNCSCOPE_BENCH_PROBES ? PROBES : []) {
    const env = { ...captured, SYNCSCOPE_CAPTURE_PROBE: probe };
    const p = alternate(() => perLaunch([loop, String(LAUNCHES)], plainEnv), () => perLaunch([loop, String(LAUNCHES)], env));
    rows.push(`| C++ launch loop | ${us(p.plain)} | ${us(p.other)} (capture, ${probe}) | ${(p.other / p.plain).toFixed(2)} | ${p.added} |`);
    report(rows);
  }
  if (!noCaptureTorch) {
    const script = programPath('launch_loop.py');
    const torchCap = alternate(() => perLaunch(['python3', script, 'plain', String(LAUNCHES)], plainEnv), () => perLaunch(['python3', script, 'plain', String(LAUNCHES)], captured), TORCH_RUNS);
    rows.push(`| PyTorch x.add_(1) | ${us(torchCap.plain)} | ${us(torchCap.other)} (capture) | ${(torchCap.other / torchCap.plain).toFixed(2)} | ${torchCap.added} |`);
    report(rows);
    const torchProf = alternate(() => perLaunch(['python3', script, 'plain', String(LAUNCHES)], plainEnv), () => perLaunch(['python3', script, 'profiler', String(LAUNCHES)], plainEnv), TORCH_RUNS);
    rows.push(`| PyTorch x.add_(1) | ${us(torchProf.plain)} | ${us(torchProf.other)} (torch.profiler) | ${(torchProf.other / torchProf.plain).toFixed(2)} | ${torchProf.added} |`);
  } else rows.push(`| PyTorch | skipped: ${noCaptureTorch} | | | |`);
  report(rows);
}

let device: string | undefined;

/** Written after every row, so that a run cut short still leaves what it measured. */
function report(rows: string[]): void {
  device ??= spawnSync('nvidia-smi', ['--query-gpu=name,driver_version', '--format=csv,noheader'], { encoding: 'utf8' }).stdout?.trim() ?? 'unknown';
  const text = [
    '# Capture benchmark', '',
    `- date: ${new Date().toISOString()}`, `- device: ${device}`, `- commit: ${process.env.SYNCSCOPE_COMMIT ?? 'unknown'}`,
    `- command: node out/bench/capture.bench.js (${LAUNCHES} launches per run in batches of 256, host time of the launch calls only; ${MAIN_RUNS} alternating pairs for the C++ capture, ${RUNS} for each probe, ${TORCH_RUNS} for PyTorch, medians; ${PIN.length ? 'every run on cores 2 to 5' : 'not pinned (no taskset)'})`, '',
    '| program | plain, us/launch | with, us/launch | ratio | added, median of pairs (range), us/launch |', '| --- | --- | --- | --- | --- |', ...rows, '',
    `Target: at most 2 us added per launch by the capture.`, '',
  ].join('\n');
  console.log(text);
  if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
}

main();
