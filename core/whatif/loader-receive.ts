// DataLoader(pin_memory=True) does more than pin: its pin thread reads the worker processes' result
// queue, so the thread that iterates the loader no longer unpickles each batch and maps its shared
// memory. The launcher times that work in the plain steps (TraceMeta.plainStep.batchReceiveNs: the
// CPU time the script's own thread spent receiving unpinned batches), and the pinned copies' fix
// takes it out for each batch: where a profile shows each batch received, from that host work, else
// from the host work before each batch's first copy. The pin thread still holds the GIL while it
// unpickles, which the scenario does not model.
import { loaderOnLane } from '../analyze/data-loader';
import type { Trace } from '../trace/model';
import { formatNs } from '../units';
import type { GeneratedStep, GeneratedScenario, Threads } from './from-trace';

/** Host work never goes below this: a step of the scenario must last. */
const LEAST_HOST_NS = 1;

/** Whether scenario thread `name` takes a worker-fed DataLoader's batches (loaderOnLane). */
function receivesBatches(g: GeneratedScenario, t: Trace, name: string): boolean {
  const lane = g.laneOf('thread', name);
  return lane !== undefined && loaderOnLane(t, lane) === 'workers';
}

/**
 * Takes the plain steps' receive time per batch (batchReceiveNs) of host work out, on the threads
 * that received the batches: where the trace shows where each batch was handed out (a profile's
 * DataLoader ranges: the host work that holds one keeps that time, GeneratedStep.receiveNs), from
 * there; else before each batch's first copy among `copies` (the fix's copy steps, `iterations`
 * batches' worth), from the host work between calls right before it, latest first. Returns the time
 * taken out in all, and of how many batches.
 */
export function takeOutBatchReceives(
  g: GeneratedScenario,
  th: Threads,
  t: Trace,
  copies: ReadonlySet<GeneratedStep>,
  iterations: number,
): { ns: number; batches: number } {
  const receiveNs = t.meta.plainStep?.batchReceiveNs ?? 0;
  const out = { ns: 0, batches: 0 };
  if (!(receiveNs > 0) || iterations < 1) return out;
  // A batch is copied in one or more copies (images and labels): its first copy follows the receive.
  const perBatch = Math.max(1, Math.round(copies.size / iterations));
  for (const [name, steps] of th) {
    if (!receivesBatches(g, t, name)) continue;
    if (steps.some((s) => s.receiveNs)) {
      steps.forEach((s, k) => {
        if (!s.receiveNs) return;
        out.ns += takeFrom(steps, k, s.receiveNs);
        out.batches += Math.round(s.receiveNs / receiveNs);
      });
      continue;
    }
    let seen = 0;
    steps.forEach((s, k) => {
      if (!copies.has(s) || seen++ % perBatch !== 0) return;
      out.ns += takeBefore(steps, k, receiveNs);
      out.batches++;
    });
  }
  return out;
}

/** Takes up to `ns` out of host work step steps[j], none below LEAST_HOST_NS; returns what it took. */
function takeFrom(steps: GeneratedStep[], j: number, ns: number): number {
  const s = steps[j];
  const work = (s.step.hostWork as { ns: number }).ns;
  const taken = Math.min(ns, Math.max(0, work - LEAST_HOST_NS));
  steps[j] = { ...s, step: { ...s.step, hostWork: { ns: work - taken } } };
  return taken;
}

/** Takes up to `ns` out of the host work between calls just before steps[k] (latest first, none below LEAST_HOST_NS); returns what it took. */
function takeBefore(steps: GeneratedStep[], k: number, ns: number): number {
  let left = ns;
  for (let j = k - 1; j >= 0 && left > 0; j--) {
    const s = steps[j];
    if (!('hostWork' in s.step)) break;
    // A call's own time (GeneratedStep.partOf) is that call's, not the thread's work between calls.
    if (s.partOf !== undefined) continue;
    left -= takeFrom(steps, j, left);
  }
  return ns - left;
}

/** ", and the DataLoader's pin thread receives the batches ...: 480 µs less host work for each of 10 batches, ...". */
export function batchReceiveText(r: { ns: number; batches: number }, receiveNs: number): string {
  const each = r.ns / r.batches;
  const what =
    each >= receiveNs - 1
      ? 'the CPU time the plain steps spent receiving one'
      : `all the host work there, of the ${formatNs(receiveNs)} of CPU time the plain steps spent receiving one`;
  return (
    `, and the DataLoader's pin thread receives the batches from its worker processes: ${formatNs(each)} less host work ` +
    `for each of ${r.batches} batch${r.batches > 1 ? 'es' : ''}, ${what} ` +
    '(not counted: the pin thread holds the GIL while it unpickles)'
  );
}
