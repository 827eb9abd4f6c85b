// The simulator's cost model: one flat object of numbers, so that a profile can be written by hand,
// produced by `syncscope calibrate` on a real GPU, and diffed. Times are ns, bandwidths GB/s
// (which is bytes per ns). docs/simulator.md explains every field and where each number came from.

import { parseTraceOverhead, type TraceOverhead } from './trace-overhead';

export interface SimProfile {
  name: string;
  deviceName: string;
  /** Streaming multiprocessors. */
  sms: number;
  /** Resident blocks per SM, at most (small blocks). */
  blocksPerSm: number;
  /** Resident threads per SM, at most: large blocks fit fewer per SM. */
  threadsPerSm: number;

  // Host cost of each API call when it does not block.
  /** cudaLaunchKernel queued behind pending work on its stream. */
  launchNs: number;
  /** cudaLaunchKernel onto a stream with nothing pending, which costs the driver more. */
  idleLaunchNs: number;
  /** What a host thread's first CUDA call in a run costs beyond the same call later (cold host caches). */
  coldCallNs: number;
  /**
   * The same for a first call that copies at most TINY_COPY_BYTES: such first copies (pageable,
   * host to device, as a program starts) cost less than 40 B and 64 B ones, run for run
   * (docs/simulator.md).
   */
  coldTinyCopyNs: number;
  /**
   * What a run's first copy in each direction costs beyond the same copy later (driver code the
   * process has not run yet), unless it is its thread's first call (coldCallNs).
   */
  coldCopyNs: number;
  recordTimingNs: number;
  recordNoTimingNs: number;
  streamWaitNs: number;
  queryNs: number;
  elapsedNs: number;
  /** A synchronize that finds nothing pending. */
  syncNs: number;
  /** cudaMemcpy / cudaMemcpyAsync, before any blocking. */
  copyCallNs: number;
  memsetCallNs: number;
  hostFuncCallNs: number;
  /**
   * Host time after each call that issues stream work, before the thread's next step: 0 for a bare
   * program; the recorder's end-event record when the simulator stands in for a recorded GPU run.
   */
  afterStreamOpNs: number;
  /**
   * Host time beyond afterStreamOpNs after a thread's first call that issues stream work, half that
   * after its second, and so on: 0 for a bare program; the recorder's record runs cold at first.
   */
  afterFirstStreamOpNs: number;

  /** From the end of the issuing call until the GPU can start the op. */
  submitNs: number;
  /** Added to every kernel: the GPU-side launch latency that event brackets include. */
  kernelOverheadNs: number;
  /** A host function's op: from the previous op's end to the next op's start, plus the body. */
  hostFuncGapNs: number;
  /** Ops a launch queue holds (kernels, copies, memsets, host functions, event records) before the next blocks the host (S19). */
  queueDepth: number;
  /** Launch queues a GPU has for its streams (CUDA_DEVICE_MAX_CONNECTIONS): more streams share them (S19). */
  hardwareQueues: number;

  /** From the awaited op's end to the host's return, when the host spins. */
  spinWakeNs: number;
  /** The same when the host sleeps in the synchronize of a blocking-sync event. */
  sleepWakeNs: number;
  /** The same when the device schedule is blockingSync: every wait sleeps on the context. */
  scheduleSleepWakeNs: number;
  /** cudaEventElapsedTime rounds to this. */
  elapsedResolutionNs: number;

  pinnedHtoDGBps: number;
  pinnedDtoHGBps: number;
  /** A copy to or from pageable memory is driven by the host through staging buffers: a fixed cost, then its bytes at the rate below. */
  pageableHtoDLatencyNs: number;
  pageableDtoHLatencyNs: number;
  pageableHtoDGBps: number;
  pageableDtoHGBps: number;
  dtoDGBps: number;
  /** Device to device across two GPUs (a peer copy, S21). */
  peerGBps: number;
  hostCopyGBps: number;
  /** Device memory bandwidth: a touch kernel reads and writes its buffer at this rate; memsets write at it. */
  memoryGBps: number;
  /** What recording a trace cost its host, per trace kind (./trace-overhead.ts); none measured when left out. */
  traceOverhead?: TraceOverhead;
}

/** The largest copy whose cold first call costs coldTinyCopyNs: a tensor of four floats. */
export const TINY_COPY_BYTES = 16;

/** NVIDIA H200, CUDA 13.0, driver 580: each field's source (DESIGN.md's measured facts, or calibrations on the H200) is in docs/simulator.md. */
export const h200: Readonly<SimProfile> = Object.freeze({
  name: 'h200',
  deviceName: 'NVIDIA H200',
  sms: 132,
  blocksPerSm: 32,
  threadsPerSm: 2048,

  launchNs: 3900,
  idleLaunchNs: 5000,
  coldCallNs: 500,
  coldTinyCopyNs: 0,
  coldCopyNs: 1500,
  recordTimingNs: 1300,
  recordNoTimingNs: 250,
  streamWaitNs: 90,
  queryNs: 1500,
  elapsedNs: 150,
  syncNs: 1600,
  copyCallNs: 2000,
  memsetCallNs: 1100,
  hostFuncCallNs: 1400,
  afterStreamOpNs: 0,
  afterFirstStreamOpNs: 0,

  submitNs: 1000,
  kernelOverheadNs: 2600,
  hostFuncGapNs: 47000,
  queueDepth: 1021,
  hardwareQueues: 8,

  spinWakeNs: 3600,
  sleepWakeNs: 57000,
  scheduleSleepWakeNs: 57000,
  elapsedResolutionNs: 500,

  pinnedHtoDGBps: 55,
  pinnedDtoHGBps: 55,
  pageableHtoDLatencyNs: 700,
  pageableDtoHLatencyNs: 6000,
  pageableHtoDGBps: 8.5,
  pageableDtoHGBps: 12.7,
  dtoDGBps: 1650,
  peerGBps: 370,
  hostCopyGBps: 14,
  memoryGBps: 2850,
});

export const PROFILES: Readonly<Record<string, Readonly<SimProfile>>> = { h200 };

export class ProfileError extends Error {
  override name = 'ProfileError';
}

const WHOLE = new Set(['sms', 'blocksPerSm', 'threadsPerSm', 'queueDepth', 'hardwareQueues']);
const POSITIVE = new Set([
  ...WHOLE,
  'pinnedHtoDGBps',
  'pinnedDtoHGBps',
  'pageableHtoDGBps',
  'pageableDtoHGBps',
  'dtoDGBps',
  'peerGBps',
  'hostCopyGBps',
  'memoryGBps',
  'elapsedResolutionNs',
]);

/**
 * A profile from a built-in name ("h200") or a parsed JSON object. Fields left out take h200's
 * values, so that a calibration that measured only some numbers is still a whole profile.
 */
export function loadProfile(json: unknown): SimProfile {
  if (typeof json === 'string') {
    const named = Object.hasOwn(PROFILES, json) ? PROFILES[json] : undefined;
    if (!named)
      throw new ProfileError(`unknown profile "${json}"; built-in profiles: ${Object.keys(PROFILES).join(', ')}`);
    return { ...named };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ProfileError(
      `a profile must be a JSON object, got ${json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json}`,
    );
  }
  const out: SimProfile = { ...h200, name: 'custom' };
  for (const [key, value] of Object.entries(json)) {
    if (key === '$schema' || key === 'description') continue;
    if (key === 'traceOverhead') {
      try {
        out.traceOverhead = parseTraceOverhead(value);
      } catch (e) {
        throw new ProfileError((e as Error).message);
      }
      continue;
    }
    if (!Object.hasOwn(h200, key)) {
      throw new ProfileError(
        `profile.${key}: unknown field; fields are ${Object.keys(h200).join(', ')}, traceOverhead`,
      );
    }
    const k = key as Exclude<keyof SimProfile, 'traceOverhead'>;
    if (k === 'name' || k === 'deviceName') {
      if (typeof value !== 'string' || value === '')
        throw new ProfileError(`profile.${key}: expected a non-empty string, got ${JSON.stringify(value)}`);
      out[k] = value;
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new ProfileError(`profile.${key}: expected a number, got ${JSON.stringify(value)}`);
    }
    if (WHOLE.has(k) && !(Number.isInteger(value) && value >= 1)) {
      throw new ProfileError(`profile.${key}: expected a whole number of at least 1, got ${value}`);
    }
    if (POSITIVE.has(k) ? value <= 0 : value < 0) {
      throw new ProfileError(
        `profile.${key}: expected a number ${POSITIVE.has(k) ? 'above 0' : 'of at least 0'}, got ${value}`,
      );
    }
    out[k] = value;
  }
  return out;
}
