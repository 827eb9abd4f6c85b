// The program's waits without a recorder: the sync clock times the plain steps' synchronizing calls
// (TraceMeta.plainStep.syncNs and otherSyncNs), and a simulation's waits are read the same way, so
// that the calibration can hold both the plain step and the time the plain program waited in it.
// A recorder slows the host, the GPU's work stays as long, and the waits shrink: a calibration that
// matched the step alone could leave the host slow and the waits short, since host work before a
// wait that the GPU holds does not change the step.
import { CK, SYNC_CALL_KINDS } from '../trace/kinds';
import { str, type PlainStep, type Trace } from '../trace/model';
import type { GeneratedStep } from './from-trace';

/** The runtime's synchronous copy, which the sync clock times too: it returns when the copy is done (S18). */
const CLOCKED_COPY = /^cudaMemcpy(_v\d+)?$/;

/** Whether the sync clock times call `i`: a synchronize call, or cudaMemcpy. */
const clocked = (t: Trace, i: number): boolean =>
  SYNC_CALL_KINDS.has(t.calls.kind[i]) || (t.calls.kind[i] === CK.memcpy && CLOCKED_COPY.test(str(t, t.calls.name[i])));

/** The plain steps' time in synchronizing calls per step, all threads together, where the sync clock ran. */
export const plainWaitsNs = (plain: PlainStep): number | undefined =>
  plain.syncNs === undefined ? undefined : plain.syncNs + (plain.otherSyncNs ?? 0);

/**
 * A simulation's time per iteration in the calls the sync clock times (native/sync-clock: the
 * synchronize calls and cudaMemcpy), on every host thread: each
 * such call of the trace (`steps`: the scenario step of each simulated call, stepsOfSimCalls) with
 * the host work that is part of it (its late return), from the call that begins at `from` (trace
 * time: the second iteration, as the plain steps are timed after steps that settle) over
 * `iterations` iterations.
 */
export function simulatedWaitsNs(
  t: Trace,
  steps: readonly (GeneratedStep | undefined)[],
  sim: Trace,
  from: number,
  iterations: number,
): number {
  if (iterations < 1) return 0;
  let total = 0;
  for (let i = 0; i < sim.calls.count; i++) {
    const s = steps[i];
    const call = s ? (s.call >= 0 ? s.call : (s.partOf ?? -1)) : -1;
    if (call < 0 || !clocked(t, call) || t.calls.begin[call] < from) continue;
    total += sim.calls.end[i] - sim.calls.begin[i];
  }
  return total / iterations;
}
