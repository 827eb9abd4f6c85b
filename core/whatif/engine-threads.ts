// Threads of the framework's engine: autograd runs the backward pass on threads of its own, which
// launch their work with no Python frames. A recorder that walks the Python stack at each call
// (a capture) or logs each Python call (a profile with stacks) slows them by other costs than the
// script's own thread (a callback, an op range), so the what-if takes their recorder cost out apart
// (calibrate.ts), to the backward pass's plain time (TraceMeta.plainStep.backwardNs).
import { CK } from '../trace/kinds';
import { callSite, type Trace } from '../trace/model';

const lanesOf = new WeakMap<Trace, Set<number>>();

/**
 * The host lanes whose calls the framework's engine made: each call there that has a line has it
 * by deduction (the user's line that ran backward()), none has one of its own.
 */
export function engineLanes(t: Trace): Set<number> {
  let lanes = lanesOf.get(t);
  if (lanes) return lanes;
  const own = new Set<number>();
  const deduced = new Set<number>();
  for (let i = 0; i < t.calls.count; i++) {
    if (t.calls.kind[i] === CK.context) continue;
    const site = callSite(t, i);
    if (site) (site.deduced ? deduced : own).add(t.calls.lane[i]);
  }
  lanes = new Set([...deduced].filter((l) => !own.has(l)));
  lanesOf.set(t, lanes);
  return lanes;
}

/**
 * The time a simulation's host threads spent in the engine's stretches of calls, in all: from the
 * end of the script's own call before each stretch (the script waits in backward() meanwhile) to
 * the end of the engine's last call or host work in it (the engine's host work after its last call
 * runs up to backward()'s return where the trace shows it, and up to the script's next call where
 * not: from-trace.ts), as the plain step's backwardNs is timed from the call of backward() to its
 * return. `steps`: the scenario step of each simulated call (stepsOfSimCalls).
 */
export function engineTimeNs(
  t: Trace,
  steps: readonly ({ call: number; partOf?: number; engine?: true } | undefined)[],
  sim: Trace,
): number {
  const engine = engineLanes(t);
  if (!engine.size) return 0;
  // In time order over the host threads: the engine's calls are on threads of their own in the trace,
  // and on the script's thread where the scenario made them take turns with it.
  const calls = [...Array(sim.calls.count).keys()].sort((a, b) => sim.calls.begin[a] - sim.calls.begin[b] || a - b);
  let total = 0;
  let from = -1; // the end of the script's call before the stretch in progress; -1: none in progress
  let lastOwnEnd = NaN;
  let lastEngineEnd = NaN;
  for (const i of calls) {
    const s = steps[i];
    const call = s ? (s.call >= 0 ? s.call : (s.partOf ?? -1)) : -1;
    if (s?.engine && from >= 0) lastEngineEnd = sim.calls.end[i];
    if (call < 0) continue;
    if (engine.has(t.calls.lane[call])) {
      if (from < 0 && Number.isFinite(lastOwnEnd)) from = lastOwnEnd;
      lastEngineEnd = sim.calls.end[i];
      continue;
    }
    // On a thread of its own, the engine's host work after its last call runs on past the script's
    // next call (the thread idles until the next pass): the stretch ends by that call at the latest.
    if (from >= 0) total += Math.min(lastEngineEnd, sim.calls.begin[i]) - from;
    from = -1;
    lastOwnEnd = sim.calls.end[i];
  }
  return total;
}
