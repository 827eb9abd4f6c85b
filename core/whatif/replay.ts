// Replay: simulate the scenario made from a trace and compare it with the trace: each host thread's
// span, each wait's blocked time and the op that released it (docs/whatif.md).
import { compileTree } from '../scenario/parse';
import type { Program } from '../scenario/program';
import { simulate } from '../simulate/simulate';
import type { SimProfile } from '../simulate/profile';
import { CK } from '../trace/kinds';
import { isWait, str, type Trace } from '../trace/model';
import { scenarioFromTrace, type GeneratedScenario, type ScenarioWindow } from './from-trace';

/** Waits shorter than this are compared but not held to the blocked-time bound. */
export const LONG_WAIT_NS = 50_000;
export const SPAN_TOLERANCE = 0.05;
export const WAIT_TOLERANCE = 0.15;
/** The file name a generated scenario's program and errors carry. */
export const GENERATED_FILE = 'generated.scenario.json';

export interface ThreadSpan {
  thread: string;
  measuredNs: number;
  replayedNs: number;
  error: number;
}

export interface WaitReplay {
  call: number;
  name: string;
  measuredNs: number;
  replayedNs: number;
  /** (replayed - measured) / measured; NaN when nothing was measured. */
  error: number;
  /** The trace's releasing op and the replay's, as ops of the trace; -1 for none, -2 unknown. */
  measuredBy: number;
  replayedBy: number;
  sameReleaser: boolean;
  /** Why the replay differs, when it does beyond the bounds. */
  why?: string;
}

export interface Replay {
  scenario: GeneratedScenario;
  simulated: Trace;
  spans: ThreadSpan[];
  waits: WaitReplay[];
}

const relErr = (sim: number, real: number): number => (real > 0 ? (sim - real) / real : sim > 0 ? Infinity : 0);

/**
 * Compile the generated scenario (of `threads`, edited, or its own steps) from its values, not its text;
 * its errors would be a bug in the generator, so they are thrown as one.
 */
export function compileGenerated(g: GeneratedScenario, threads = g.threads): Program {
  const { program, errors } = compileTree(g.tree(threads), GENERATED_FILE);
  if (!program) throw new Error(`generated scenario does not compile: ${errors[0]?.message ?? ''}`);
  return program;
}

export function replay(t: Trace, profile: SimProfile, window: ScenarioWindow = {}): Replay {
  const scenario = scenarioFromTrace(t, profile, window);
  const simulated = simulate(compileGenerated(scenario), profile);
  return { scenario, simulated, ...compare(t, scenario, simulated) };
}

/** For each thread: the trace call behind each compiled step index, and the simulated call of each index. */
function stepMaps(scenario: GeneratedScenario, sim: Trace) {
  const single = scenario.threads.size === 1;
  const maps = new Map<string, { original: number[]; simulated: Map<number, number>; lane: number }>();
  for (const [name, steps] of scenario.threads) {
    const simName = single ? 'main' : name;
    const lane = sim.lanes.find((l) => l.kind === 'thread' && l.name === simName)?.id ?? -1;
    const original = steps.filter((s) => Object.keys(s.step).length).map((s) => s.call);
    const simulated = new Map<number, number>();
    for (let i = 0; i < sim.calls.count; i++) if (sim.calls.lane[i] === lane) simulated.set(sim.calls.step[i], i);
    maps.set(name, { original, simulated, lane });
  }
  return maps;
}

function compare(t: Trace, scenario: GeneratedScenario, sim: Trace): Pick<Replay, 'spans' | 'waits'> {
  const maps = stepMaps(scenario, sim);
  // The first trace call whose step the scenario had to leave out: waits after it miss that work.
  let firstLeftOut = Infinity;
  for (const steps of scenario.threads.values())
    for (const s of steps)
      if (s.note?.startsWith('left out') && s.call >= 0) firstLeftOut = Math.min(firstLeftOut, s.call);
  const simToOriginal = new Map<number, number>();
  for (const m of maps.values()) for (const [step, c] of m.simulated) simToOriginal.set(c, m.original[step] ?? -1);
  // Each trace call's last op, found once: a scan of every op per wait is quadratic on long traces.
  const lastOpOf = new Map<number, number>();
  for (let j = 0; j < t.ops.count; j++) if (t.ops.call[j] >= 0) lastOpOf.set(t.ops.call[j], j);
  const spans: ThreadSpan[] = [];
  const waits: WaitReplay[] = [];
  for (const [name, m] of maps) {
    const calls = m.original.filter((c) => c >= 0);
    const measuredNs = calls.length ? t.calls.end[calls[calls.length - 1]] - t.calls.begin[calls[0]] : 0;
    let first = Infinity;
    let last = -Infinity;
    for (const [step, c] of m.simulated) {
      if ((m.original[step] ?? -1) < 0) continue; // host work is the gap between calls, as in the trace
      first = Math.min(first, sim.calls.begin[c]);
      last = Math.max(last, sim.calls.end[c]);
    }
    const replayedNs = last > first ? last - first : 0;
    spans.push({ thread: name, measuredNs, replayedNs, error: relErr(replayedNs, measuredNs) });
    const seen = new Set<number>();
    m.original.forEach((call, step) => {
      if (call < 0 || seen.has(call) || t.calls.kind[call] === CK.launch || !isWait(t, call)) return;
      seen.add(call);
      const s = m.simulated.get(step);
      if (s === undefined) return;
      const w = waitReplay(t, sim, call, s, simToOriginal, lastOpOf);
      if (w.why && t.calls.begin[call] > (t.calls.begin[firstLeftOut] ?? Infinity))
        w.why = `work before this wait was left out of the scenario (${str(t, t.calls.name[firstLeftOut])} had no op in the trace), so the replay does not wait for it`;
      waits.push(w);
    });
  }
  return { spans, waits };
}

function waitReplay(
  t: Trace,
  sim: Trace,
  call: number,
  s: number,
  simToOriginal: Map<number, number>,
  lastOpOf: Map<number, number>,
): WaitReplay {
  const measuredNs = t.calls.blockedNs[call];
  const replayedNs = sim.calls.blockedNs[s];
  const measuredBy = t.calls.releasedBy[call];
  const simOp = sim.calls.releasedBy[s];
  // The simulated releaser as a trace op: the (last) op issued by the same trace call.
  let replayedBy = simOp;
  if (simOp >= 0) replayedBy = lastOpOf.get(simToOriginal.get(sim.ops.call[simOp]) ?? -1) ?? -2;
  const sameReleaser = measuredBy === replayedBy || (measuredBy < 0 && replayedBy < 0 && measuredNs < LONG_WAIT_NS);
  const error = relErr(replayedNs, measuredNs);
  const w: WaitReplay = {
    call,
    name: str(t, t.calls.name[call]),
    measuredNs,
    replayedNs,
    error,
    measuredBy,
    replayedBy,
    sameReleaser,
  };
  const long = measuredNs > LONG_WAIT_NS;
  if (long && (Math.abs(error) > WAIT_TOLERANCE || !sameReleaser)) w.why = explainMiss(t, w);
  return w;
}

/** The likeliest reason a replayed wait differs: what the simulator does not model, or a rule it applied differently. */
function explainMiss(t: Trace, w: WaitReplay): string {
  if (w.measuredBy === -2)
    return 'the trace does not say which op released this wait, so the replay cannot be checked against it';
  if (t.calls.kind[w.call] === CK.memcpy && w.replayedBy >= 0 && t.ops.call[w.replayedBy] === w.call && !w.sameReleaser)
    return "a pageable copy's call returned once its data was staged, just before its own op ended, so the capture names the op it was ordered after; the simulator returns the call at the copy's end (S17) and names the copy";
  if (w.replayedNs < w.measuredNs && queuedBehindOtherStream(t, w.measuredBy))
    return 'on the GPU the releasing work waited for SMs held by a kernel on another stream; the simulator places blocks by their threads only (registers and shared memory per block are not modelled), so it ran them side by side';
  if (!w.sameReleaser)
    return 'a different op released the replayed wait: the ops before it ran in a different order or overlap (concurrent kernels slowing each other are not modelled)';
  if (w.replayedNs < w.measuredNs)
    return 'the replay blocked less: the awaited work ran faster in the simulator (copy bandwidth from the profile, kernels slowed by concurrent work in the run) or the host reached the wait later (CPU-bound gaps)';
  return 'the replay blocked more: the host reached the wait earlier in the simulator (launch latency and call costs from the profile, not the trace)';
}

/** Whether `op`, or the op before it on its stream, started well after both its launch and that op: it queued behind another stream's kernel. */
function queuedBehindOtherStream(t: Trace, op: number): boolean {
  const QUEUED_NS = 100_000;
  for (let j = op, k = 0; j >= 0 && k < 2; k++) {
    const lane = t.ops.lane[j];
    let prevEnd = -Infinity;
    let prev = -1;
    for (let i = j - 1; i >= 0; i--)
      if (t.ops.lane[i] === lane) {
        prevEnd = t.ops.end[i];
        prev = i;
        break;
      }
    const launched = t.ops.call[j] >= 0 ? t.calls.end[t.ops.call[j]] : -Infinity;
    if (t.ops.start[j] - Math.max(prevEnd, launched) > QUEUED_NS) return true;
    j = prev;
  }
  return false;
}
