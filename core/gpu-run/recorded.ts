// What the recorder adds to a program run on the GPU, as a simulator profile: comparing a recorded
// GPU run with the simulator is fair only if the simulator runs the program the recorder ran.
// Each stream op is followed by one timing event record (native/src/runtime.cc, onStream), which
// costs the host a record call and takes a second launch-queue entry on the device.
import type { SimProfile } from '../simulate/profile';

/**
 * Launch-queue entries a recorded stream op takes: the op and its end event. On the H200 the queue
 * holds 1021 entries beyond the running kernel: 1021 bare launches fit behind it, and with the
 * recorder 510 (the running kernel's end event, then two entries per launch).
 */
export const ENTRIES_PER_RECORDED_OP = 2;

/** Launches that fit in the queue behind a running kernel when each takes `entries` entries. */
export const launchesThatFit = (depth: number, entries: number): number =>
  Math.floor((depth - (entries - 1)) / entries);

/** The launch-queue depth in bare launches, from the number of recorded launches that fitted. */
export const depthFromRecorded = (fitted: number): number =>
  ENTRIES_PER_RECORDED_OP * fitted + ENTRIES_PER_RECORDED_OP - 1;

/**
 * What the recorder costs the host after each stream op: its end-event record and bookkeeping
 * (`tailNs`), and more at the start of a run, while that code is cold: `coldTailNs` more after a
 * thread's first stream op, half that after its second, and so on. Both are measured by `calibrate`.
 */
export interface RecorderCost {
  tailNs: number;
  coldTailNs: number;
}

/**
 * `p` as a recorded run sees the device: fewer launches fit, and every stream op is followed by a
 * record (by default, a bare record call that is never cold).
 */
export function asRecorded(
  p: SimProfile,
  cost: RecorderCost = { tailNs: p.recordTimingNs, coldTailNs: 0 },
): SimProfile {
  return {
    ...p,
    name: `${p.name}+recorder`,
    queueDepth: Math.max(1, launchesThatFit(p.queueDepth, ENTRIES_PER_RECORDED_OP)),
    // The record comes after the op's own call returns, so it delays the thread's next step but is
    // not part of the call, nor of a blocking copy's wait.
    afterStreamOpNs: p.afterStreamOpNs + cost.tailNs,
    afterFirstStreamOpNs: p.afterFirstStreamOpNs + cost.coldTailNs,
  };
}
