// GPU work goes through the runner child process (runner/client.ts): the addon never loads in the
// extension host, so a crash or hang cannot take VS Code down, and a run can be cancelled.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Program } from '../core/scenario/program';
import type { SimProfile } from '../core/simulate/profile';
import type { Trace } from '../core/trace/model';
import { calibrateInRunner, devicesInRunner, runInRunner } from '../runner/client';
import type { GpuProbe } from './logic/backend';

export interface GpuRunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (message: string) => void;
}

const PROBE_TIMEOUT_MS = 20_000;

export class Gpu {
  private probed?: Promise<GpuProbe>;

  constructor(private readonly extensionPath: string) {}

  /** Asks the runner once which GPU it finds; later calls reuse the answer. */
  probe(): Promise<GpuProbe> {
    this.probed ??= this.doProbe();
    return this.probed;
  }

  private async doProbe(): Promise<GpuProbe> {
    // Without the addon there is nothing to ask; skip starting a process.
    if (!existsSync(join(this.extensionPath, 'build', 'Release', 'syncscope.node'))) {
      return { ok: false, reason: 'the native runtime is not part of this installation' };
    }
    try {
      const [first] = await devicesInRunner({ timeoutMs: PROBE_TIMEOUT_MS });
      if (!first) return { ok: false, reason: 'the CUDA driver reports no devices' };
      const v = first.cudaDriverVersion;
      return { ok: true, name: first.name, driver: v ? `CUDA ${Math.floor(v / 1000)}.${(v % 1000) / 10}` : undefined };
    } catch (e) {
      return { ok: false, reason: (e as Error).message };
    }
  }

  run(program: Program, opts: GpuRunOptions): Promise<Trace> {
    return runInRunner(program, {
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
      onProgress: (message, done, total) => opts.onProgress?.(total ? `${message} (${done ?? 0}/${total})` : message),
    });
  }

  calibrate(opts: GpuRunOptions): Promise<SimProfile> {
    return calibrateInRunner({
      signal: opts.signal,
      timeoutMs: Math.max(opts.timeoutMs, 300_000),
      onProgress: (m) => opts.onProgress?.(m),
    });
  }
}
