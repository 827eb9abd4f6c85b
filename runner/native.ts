// Finds and loads the native runtime addon (build/Release/syncscope.node). Loading it never
// touches the GPU: available() says whether a driver and a device are there.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { builtFile } from '../node/built-file';
import type { EncodedJob } from '../core/gpu-run/encode';

export interface DeviceInfo {
  index: number;
  name: string;
  sms: number;
  computeCapability: string;
  /** cuDriverGetVersion: 13000 for CUDA 13.0. */
  cudaDriverVersion: number;
  totalMem?: number;
}

export interface NativeFailure {
  /** CUDA_ERROR_* */
  name: string;
  api: string;
  detail: string;
  /** Global step index, or -1 outside the program (setup, calibration). */
  step: number;
}

export interface NativeResult {
  records: Float64Array;
  /** One calibration block per device the scenario uses, in device-number order (runtime.h documents a block). */
  calibration: Float64Array;
  /** The scenario's device 0 (or its lowest used device). */
  device: DeviceInfo;
  /** Every device the scenario uses, in device-number order: `device` is the scenario's number, `index` the CUDA one. */
  devices?: (DeviceInfo & { device: number })[];
  failure?: NativeFailure;
}

export type Availability = { ok: true; devices: number; cudaDriverVersion: number } | { ok: false; reason: string };

export interface NativeAddon {
  available(): Availability;
  devices(): DeviceInfo[];
  run(job: EncodedJob): Promise<NativeResult>;
  /** Steps finished so far in the run in flight. */
  progress(): number;
}

/** The addon's path: $SYNCSCOPE_ADDON, else build/Release/ in the first folder above this file that has one. */
export const addonPath = (): string => builtFile('syncscope.node', process.env.SYNCSCOPE_ADDON);

let cached: { addon?: NativeAddon; reason?: string } | undefined;

/** The addon, or the reason it cannot be used (not built, or built for another platform). */
export function loadAddon(): { addon?: NativeAddon; reason?: string } {
  if (cached) return cached;
  const path = addonPath();
  if (!existsSync(path))
    return (cached = { reason: `native runtime not built: ${path} is missing (npm run build:native)` });
  try {
    return (cached = { addon: createRequire(__filename)(path) as NativeAddon });
  } catch (e) {
    return (cached = { reason: `native runtime failed to load from ${path}: ${(e as Error).message}` });
  }
}

export function availability(): Availability {
  const { addon, reason } = loadAddon();
  return addon ? addon.available() : { ok: false, reason: reason as string };
}

/** The kernel driver's version, e.g. "580.95.05", from /proc on Linux. */
export function kernelDriverVersion(): string | undefined {
  try {
    return /Kernel Module\s+(?:for\s+\S+\s+)?([\d.]+)/.exec(readFileSync('/proc/driver/nvidia/version', 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}
