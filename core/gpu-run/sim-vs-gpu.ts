// The calibrated simulator against GPU runs of the same program, in the measure the GPU test holds
// to 15%: the host's blocked time in all. The GPU test runs the program; the offline evaluator
// (bench/sim-vs-gpu.bench.ts) reads GPU traces written earlier, so the simulator can be studied
// and changed away from the GPU against the same numbers.
import type { Program } from '../scenario/program';
import { simulate } from '../simulate';
import type { SimProfile } from '../simulate/profile';
import { median } from '../stats';
import type { Trace } from '../trace/model';
import { asRecorded, type RecorderCost } from './recorded';

/** How far the simulator may be from the GPU's median, as a share of the GPU's. */
export const SIM_TOLERANCE = 0.15;

export const blockedNs = (t: Trace): number => {
  let sum = 0;
  for (let i = 0; i < t.calls.count; i++) sum += t.calls.blockedNs[i];
  return sum;
};

export interface SimVsGpu {
  gpuNs: number;
  simNs: number;
  /** simulator / GPU - 1 */
  off: number;
}

/** The GPU runs' median blocked time against the simulator's, run as the GPU runs were (with the recorder). */
export function simVsGpu(program: Program, gpuRuns: Trace[], profile: SimProfile, recorder: RecorderCost): SimVsGpu {
  const gpuNs = median(gpuRuns.map(blockedNs));
  const simNs = blockedNs(simulate(program, asRecorded(profile, recorder)));
  const off = gpuNs > 0 ? simNs / gpuNs - 1 : simNs === 0 ? 0 : Infinity;
  return { gpuNs, simNs, off };
}
