// Shared by the GPU tests: whether a GPU is here, and running one scenario on it and in the simulator.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { compileScenario } from '../../core/scenario/parse';
import type { Program } from '../../core/scenario/program';
import { simulate } from '../../core/simulate';
import { CALL_KINDS, OP_KINDS, str, type CallKind, type OpKind, type Trace } from '../../core/trace/model';
import { runOnGpu } from '../../runner/gpu';
import { availability } from '../../runner/native';

/**
 * Evidence of an NVIDIA GPU on this machine that does not go through the addon: a device node, the
 * kernel driver's GPU list, or nvidia-smi. Undefined where there is none.
 */
function nvidiaDeviceEvidence(): string | undefined {
  if (existsSync('/dev/nvidia0')) return '/dev/nvidia0 exists';
  try {
    const gpus = readdirSync('/proc/driver/nvidia/gpus');
    if (gpus.length) return `/proc/driver/nvidia/gpus lists ${gpus.join(', ')}`;
  } catch {
    // no kernel driver
  }
  const smi = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8', timeout: 10_000 });
  const line = smi.status === 0 ? /^GPU \d+:.*$/m.exec(smi.stdout ?? '')?.[0] : undefined;
  return line ? `nvidia-smi -L lists "${line}"` : undefined;
}

/** How this machine shows an NVIDIA GPU, or undefined where it has none. */
export const nvidiaDevice = nvidiaDeviceEvidence();

/**
 * A GPU test's skip option for `reason`: skip only where this machine has no NVIDIA GPU. Where it
 * has one, the test runs and fails, so that a broken addon or capture library cannot pass as a
 * machine without a GPU.
 */
export const skipUnlessNoDevice = (reason: string | false): string | false => (nvidiaDevice ? false : reason);

const a = availability();
/** Why the native runtime cannot run here ("no NVIDIA driver: ...", "native runtime not built: ..."), else false. */
export const gpuUnavailable: string | false = a.ok ? false : a.reason;

/**
 * The skip reason for GPU tests where there is no NVIDIA GPU, else false: on a machine with one,
 * the tests run (and fail if the addon cannot load, through assertGpu).
 */
export const noGpu: string | false = skipUnlessNoDevice(gpuUnavailable);

/** Fails with the reason where the native runtime cannot run on this machine's NVIDIA GPU. */
export function assertGpu(): void {
  if (gpuUnavailable) throw new Error(`an NVIDIA GPU is here (${nvidiaDevice}), but ${gpuUnavailable}`);
}

/** CUDA devices on this machine; 0 without a driver. */
export const deviceCount = a.ok ? a.devices : 0;

/** Why a test that needs `n` CUDA devices cannot run here ("needs 2 CUDA devices, found 1"), else false. */
export const needsDevices = (n: number): string | false =>
  noGpu || (gpuUnavailable || deviceCount >= n ? false : `needs ${n} CUDA devices, found ${deviceCount}`);

/**
 * Why `program` cannot run on this GPU machine: it names more devices than there are (S21). False
 * where it fits, and where there is no GPU at all (the tests skip for that reason themselves).
 */
export const cannotRun = (program: Program): string | false =>
  !noGpu && needsDevices(Math.max(1, ...program.devices.filter((d) => d.used).map((d) => d.id + 1)));

export const compile = (scenario: object): Program =>
  compileScenario(JSON.stringify(scenario, null, 2), 'gpu-test.scenario.json');

export async function both(scenario: object): Promise<{ program: Program; gpu: Trace; sim: Trace }> {
  assertGpu();
  const program = compile(scenario);
  return { program, gpu: await runOnGpu(program), sim: simulate(program) };
}

export const opsNamed = (t: Trace, name: string): number[] =>
  [...Array(t.ops.count).keys()].filter((i) => str(t, t.ops.name[i]) === name);
export const op = (t: Trace, name: string): number => {
  const found = opsNamed(t, name);
  if (found.length !== 1) throw new Error(`expected one op named ${name}, found ${found.length}`);
  return found[0];
};
export const callsOf = (t: Trace, kind: CallKind): number[] =>
  [...Array(t.calls.count).keys()].filter((i) => t.calls.kind[i] === CALL_KINDS.indexOf(kind));
export const opsOf = (t: Trace, kind: OpKind): number[] =>
  [...Array(t.ops.count).keys()].filter((i) => t.ops.kind[i] === OP_KINDS.indexOf(kind));

/** A kernel's start and end: its own %globaltimer stamps on the GPU, the modelled span in the simulator. */
export function span(t: Trace, i: number): { start: number; end: number } {
  const truth = Number.isFinite(t.ops.truthStart[i]);
  return truth ? { start: t.ops.truthStart[i], end: t.ops.truthEnd[i] } : { start: t.ops.start[i], end: t.ops.end[i] };
}

/** The name of the op that released call `c`, or "" when nothing was pending. */
export const releaser = (t: Trace, c: number): string =>
  t.calls.releasedBy[c] >= 0 ? str(t, t.ops.name[t.calls.releasedBy[c]]) : '';
