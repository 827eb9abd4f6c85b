// Runs the calibration scenarios (core/gpu-run/calibration.ts) on the GPU: what `syncscope calibrate`
// and the GPU tests measure the simulator's cost model with.
import {
  CALIBRATION_RUNS,
  calibrationProgram,
  calibrationsIn,
  FIRST_CALL_RUNS,
  profileFromRuns,
  type CalibrationRun,
} from '../core/gpu-run/calibration';
import type { RecorderCost } from '../core/gpu-run/recorded';
import type { Program } from '../core/scenario/program';
import type { SimProfile } from '../core/simulate/profile';
import type { Trace } from '../core/trace/model';
import { runOnGpu } from './gpu';

export async function calibrateProfile(
  opts: { device?: number; onProgress?: (m: string) => void } = {},
): Promise<SimProfile> {
  return (await calibrate(opts)).profile;
}

/** The profile, and what the recorder added in the same runs. */
export async function calibrate(
  opts: { device?: number; onProgress?: (m: string) => void } = {},
): Promise<{ profile: SimProfile; recorder: RecorderCost }> {
  const runs: CalibrationRun[] = [];
  for (let r = 1; r <= CALIBRATION_RUNS; r++) {
    opts.onProgress?.(`calibrating: run ${r} of ${CALIBRATION_RUNS}`);
    runs.push(await calibrationRun(opts.device));
  }
  return profileFromRuns(runs);
}

/**
 * Runs each program `rounds` times, a round at a time (one run of every program), with
 * CALIBRATION_RUNS calibration runs spread among the rounds: the shared host's speed drifts over
 * seconds, and runs in a row would hand one program a slow stretch that the calibration never saw.
 */
export async function runInRounds(
  programs: readonly (readonly [string, Program])[],
  rounds: number,
  got: {
    calibration: (run: Required<CalibrationRun>) => void;
    run: (name: string, round: number, trace: Trace) => void;
  },
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (let k = calibrationsIn(round, rounds); k > 0; k--) got.calibration(await calibrationRun());
    for (const [name, program] of programs) got.run(name, round, await runOnGpu(program));
  }
}

/** One run of each calibration scenario: what profileFromRuns takes, a run at a time, so that a caller can interleave them with other work. */
export async function calibrationRun(device?: number): Promise<Required<CalibrationRun>> {
  const trace = await runOnGpu(calibrationProgram('calibration'), { device });
  const blocking = await runOnGpu(calibrationProgram('calibration-blocking'), { device });
  const first: Trace[] = [];
  const firstTiny: Trace[] = [];
  for (let k = 0; k < FIRST_CALL_RUNS; k++) {
    first.push(await runOnGpu(calibrationProgram('calibration-first'), { device }));
    firstTiny.push(await runOnGpu(calibrationProgram('calibration-first-tiny'), { device }));
  }
  return { trace, blocking, first, firstTiny };
}
