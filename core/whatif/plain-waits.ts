// The program's waits without a recorder: the sync clock times the plain steps' synchronizing calls
// (TraceMeta.plainStep.syncNs and otherSyncNs), and a simulation's waits are read the same way, so
// that the calibration can hold both the plain step and the time the plain program waited in it.
// A recorder slows the host, the GPU's work stays as long, and the waits shrink: a calibration that
// matched the step alone could leave the host slow and the waits short, since host work before a
// wait that the GPU holds does not change the step.
import { CK, SYNC_CALL_KINDS } from '../trace/kinds';
import { str, type PlainStep, type Trace } from '../trace/model';
import { traceCallOf, type GeneratedStep, type Threads } from './from-trace';
import { doneWithWorkBefore } from './pace';

/** The runtime's synchronous copy, which the sync clock times too: it returns when the copy is done (S18). */
const CLOCKED_COPY = /^cudaMemcpy(_v\d+)?$/;

/** Whether the sync clock times call `i`: a synchronize call, or cudaMemcpy. */
const clocked = (t: Trace, i: number): boolean =>
  SYNC_CALL_KINDS.has(t.calls.kind[i]) || (t.calls.kind[i] === CK.memcpy && CLOCKED_COPY.test(str(t, t.calls.name[i])));

/**
 * What the sync clock times over the plain steps beyond as many steady steps' waits: the launcher's
 * own synchronize after them (python/syncscope_profile.py, end_plain) waits for the work the last
 * step queued after its last wait (drainNs), and the first step, begun on an idle GPU, waits the
 * less by the work a steady step finds still queued when it begins (`from`, trace time), at most
 * the step's waits (`stepWaitsNs`). A loop whose host runs ahead of the GPU with no timed wait (a
 * pageable copy's, say) has waits in the plain steps all the same: the last one's.
 */
export function plainEndsNs(
  t: Trace,
  steps: readonly (GeneratedStep | undefined)[],
  sim: Trace,
  from: number,
  stepWaitsNs: number,
): number {
  let begins = Infinity;
  for (let i = 0; i < sim.calls.count; i++) {
    const s = steps[i];
    const call = traceCallOf(s);
    if (call >= 0 && t.calls.begin[call] >= from) begins = Math.min(begins, sim.calls.begin[i]);
  }
  const queued = Number.isFinite(begins) ? Math.max(0, doneWithWorkBefore(t, steps, sim, from) - begins) : 0;
  return drainNs(sim) - Math.min(queued, stepWaitsNs);
}

/** The GPU's work left when the host's last call of `sim` returned. */
function drainNs(sim: Trace): number {
  let host = -Infinity;
  let gpu = -Infinity;
  for (let i = 0; i < sim.calls.count; i++)
    if (sim.calls.kind[i] !== CK.context) host = Math.max(host, sim.calls.end[i]);
  for (let j = 0; j < sim.ops.count; j++) gpu = Math.max(gpu, sim.ops.end[j]);
  return Number.isFinite(host) && gpu > host ? gpu - host : 0;
}

/**
 * Whether a call of `threads` (a scenario's) from `from` (trace time) is one the sync clock times.
 * Where none is, the plain steps' waits are the launcher's last synchronize alone (plainEndsNs): one
 * wait at the end of a run, not a step's, which the calibration does not fit.
 */
export function timesStepWaits(t: Trace, threads: Threads, from: number): boolean {
  for (const steps of threads.values())
    for (const s of steps) if (s.call >= 0 && t.calls.begin[s.call] >= from && clocked(t, s.call)) return true;
  return false;
}

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
    const call = traceCallOf(s);
    if (call < 0 || !clocked(t, call) || t.calls.begin[call] < from) continue;
    total += sim.calls.end[i] - sim.calls.begin[i];
  }
  return total / iterations;
}
