// Runs a Program on the GPU in this process: encode, execute in the addon (on its own threads,
// never the JS thread), assemble the Trace. The CLI and the extension call this only inside the
// runner child process (child.ts); tests and the benchmark may call it directly.
import type { Program } from '../core/scenario/program';
import type { Trace } from '../core/trace/model';
import { assembleTrace } from '../core/gpu-run/assemble';
import { missingDevice } from '../core/gpu-run/devices';
import { encodeProgram, threadOffsets } from '../core/gpu-run/encode';
import { kernelDriverVersion, loadAddon, type NativeAddon, type NativeFailure, type NativeResult } from './native';

export interface GpuRunOptions {
  device?: number;
  /** Per encoded step, 1 for no timing event (the benchmark's bare blocks inside a recorded run). */
  bareSteps?: Uint8Array;
  calibrationSamples?: number;
  onProgress?: (done: number, total: number) => void;
}

export class GpuError extends Error {
  override name = 'GpuError';
  constructor(
    message: string,
    readonly cuda?: string,
    readonly step?: { thread: string; index: number; line: number; column: number },
  ) {
    super(message);
  }
}

/** No driver, no device, or no addon: the caller may fall back to the simulator. */
export class GpuUnavailableError extends Error {
  override name = 'GpuUnavailableError';
}

export function requireAddon(): NativeAddon {
  const { addon, reason } = loadAddon();
  if (!addon) throw new GpuUnavailableError(reason as string);
  const a = addon.available();
  if (!a.ok) throw new GpuUnavailableError(a.reason);
  return addon;
}

/** "CUDA_ERROR_X in step 3 of thread main (file:12:5, launch): cuLaunchKernel failed: <driver text>" */
export function describeFailure(program: Program, f: NativeFailure): GpuError {
  const detail = f.detail ? `: ${f.detail}` : '';
  if (f.step < 0) return new GpuError(`${f.name} in ${f.api} while preparing the run${detail}`, f.name);
  const offsets = threadOffsets(program);
  const t = offsets.findIndex((o, i) => f.step >= o && f.step < offsets[i + 1]);
  const thread = program.threads[t];
  const index = f.step - offsets[t];
  const step = thread?.steps[index];
  if (!thread || !step) return new GpuError(`${f.name} in ${f.api} at step ${f.step}${detail}`, f.name);
  const where = `${program.file ?? 'scenario'}:${step.pos.line}:${step.pos.column}`;
  return new GpuError(
    `${f.name} in step ${index} (${step.op}) of thread "${thread.name}" at ${where}: ${f.api} failed${detail}`,
    f.name,
    { thread: thread.name, index, line: step.pos.line, column: step.pos.column },
  );
}

/** Raw results, for the benchmark and calibration that read host times without a Trace. */
export async function runRaw(program: Program, opts: GpuRunOptions = {}): Promise<NativeResult> {
  const addon = requireAddon();
  const a = addon.available();
  const missing = missingDevice(program, a.ok ? a.devices : 0, opts.device ?? 0);
  if (missing) throw new GpuError(missing.message, 'CUDA_ERROR_INVALID_DEVICE', missing.step);
  const job = encodeProgram(program, opts);
  const total = program.stepCount;
  const timer = opts.onProgress ? setInterval(() => opts.onProgress?.(addon.progress(), total), 250) : undefined;
  try {
    const res = await addon.run(job);
    if (res.failure) throw describeFailure(program, res.failure);
    return res;
  } finally {
    if (timer) clearInterval(timer);
  }
}

export async function runOnGpu(program: Program, opts: GpuRunOptions = {}): Promise<Trace> {
  const res = await runRaw(program, opts);
  return assembleTrace(program, {
    ...res,
    device: { ...res.device, index: res.device.index ?? opts.device ?? 0 },
    driver: kernelDriverVersion(),
  });
}
