// Replay: simulate the scenario made from a trace and compare it with the trace: each host thread's
// span, each wait's blocked time and the op that released it (docs/whatif.md).
import type { SimProfile } from '../simulate/profile';
import { CK, OK, SYNC_CALL_KINDS } from '../trace/kinds';
import { isWait, RELEASED_NONE, RELEASED_UNKNOWN, str, type Trace } from '../trace/model';
import { latestCandidate } from './inferred';
import { iterationsOf } from './iterations';
import { replayableScenario } from './fit';
import { withOrigins } from './origins';
import { traceCallOf, type GeneratedScenario, type GeneratedStep, type ScenarioWindow } from './from-trace';

/** Waits shorter than this are compared but not held to the blocked-time bound. */
export const LONG_WAIT_NS = 50_000;
export const SPAN_TOLERANCE = 0.05;
export const WAIT_TOLERANCE = 0.15;
export { compileGenerated, GENERATED_FILE } from './compile';

export interface ThreadSpan {
  thread: string;
  measuredNs: number;
  replayedNs: number;
  error: number;
}

/** One iteration of a host thread's loop (core/whatif/iterations.ts): from its first call to the next iteration's first (the last: to the thread's next call, else its own last call's end). */
export interface IterationSpan {
  thread: string;
  label: string;
  /** The trace calls that begin and end it. */
  firstCall: number;
  lastCall: number;
  measuredNs: number;
  replayedNs: number;
  error: number;
  /** Why the replay differs by more than SPAN_TOLERANCE: a wait the scenario left out, or a wait's own miss. */
  why?: string;
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
  /** The trace leaves the releaser among several ops (measuredBy -2), and the replay's is one of them: the same as far as the trace can tell. */
  amongCandidates?: true;
  /** Why the replay differs, when it does beyond the bounds. */
  why?: string;
  /** The scenario has no step for this wait: the comment it left instead. */
  leftOut?: string;
  /** The scenario's step for this wait stands on a binding the import inferred, by deduction or by timing. */
  inferred?: 'deduced' | 'timing';
  /** A blocking copy's replay, read by the rule its trace was read by (copyReadByTraceRule). */
  readAs?: 'copy';
}

export interface Replay {
  scenario: GeneratedScenario;
  simulated: Trace;
  spans: ThreadSpan[];
  waits: WaitReplay[];
  /** Each host thread's iterations, where a loop was found; `iterationsFrom` says how. */
  iterations: IterationSpan[];
  iterationsFrom?: 'ProfilerStep' | 'loop';
}

const relErr = (sim: number, real: number): number => (real > 0 ? (sim - real) / real : sim > 0 ? Infinity : 0);

export function replay(t: Trace, profile: SimProfile, window: ScenarioWindow = {}): Replay {
  const { scenario, simulated } = replayableScenario(t, profile, window);
  const compared = compare(t, scenario, simulated);
  return { scenario, simulated: withOrigins(t, scenario, simulated), ...compared };
}

/** For each thread: the trace call behind each compiled step index, and the simulated call of each index. */
function stepMaps(scenario: GeneratedScenario, sim: Trace) {
  const single = scenario.threads.size === 1;
  const maps = new Map<
    string,
    { original: number[]; originalOp: (number | undefined)[]; simulated: Map<number, number>; lane: number }
  >();
  for (const [name, steps] of scenario.threads) {
    const simName = single ? 'main' : name;
    const lane = sim.lanes.find((l) => l.kind === 'thread' && l.name === simName)?.id ?? -1;
    const compiled = steps.filter((s) => Object.keys(s.step).length);
    // Host work that is a call's own time before its steps counts as that call's (its begin is the call's).
    const original = compiled.map(traceCallOf);
    const originalOp = compiled.map((s) => s.op);
    const simulated = new Map<number, number>();
    for (let i = 0; i < sim.calls.count; i++) if (sim.calls.lane[i] === lane) simulated.set(sim.calls.step[i], i);
    maps.set(name, { original, originalOp, simulated, lane });
  }
  return maps;
}

function compare(
  t: Trace,
  scenario: GeneratedScenario,
  sim: Trace,
): Pick<Replay, 'spans' | 'waits' | 'iterations' | 'iterationsFrom'> {
  const maps = stepMaps(scenario, sim);
  // The first trace call whose step the scenario had to leave out: waits after it miss that work.
  // Only work and stream order count: a record left out matters only to a wait on it, itself left out or inferred.
  let firstLeftOut = Infinity;
  for (const steps of scenario.threads.values())
    for (const s of steps)
      if (s.note?.startsWith('left out') && s.call >= 0 && ORDERS_WORK.has(t.calls.kind[s.call]))
        firstLeftOut = Math.min(firstLeftOut, s.call);
  const simToOriginal = new Map<number, number>();
  // A simulated call that launched an op no trace call issued (a graph's node) stands for that op.
  const simToOp = new Map<number, number>();
  for (const m of maps.values())
    for (const [step, c] of m.simulated) {
      simToOriginal.set(c, m.original[step] ?? -1);
      const op = m.originalOp[step];
      if (op !== undefined) simToOp.set(c, op);
    }
  // Each trace call's last op, found once: a scan of every op per wait is quadratic on long traces.
  const lastOpOf = new Map<number, number>();
  for (let j = 0; j < t.ops.count; j++) if (t.ops.call[j] >= 0) lastOpOf.set(t.ops.call[j], j);
  // A wait's return beyond the profile's wake-up, which the trace measured: host work after it (GeneratedStep.partOf).
  const wakeOf = new Map<number, number>();
  for (const steps of scenario.threads.values())
    for (const s of steps)
      if (s.partOf !== undefined && SYNC_CALL_KINDS.has(t.calls.kind[s.partOf]) && 'hostWork' in s.step)
        wakeOf.set(s.partOf, (wakeOf.get(s.partOf) ?? 0) + (s.step.hostWork as { ns: number }).ns);
  const spans: ThreadSpan[] = [];
  const waits: WaitReplay[] = [];
  const iterations: IterationSpan[] = [];
  // Where each iteration's calls end: the next one's first call, or the thread's next modelled call after the loop.
  const until = new Map<IterationSpan, number>();
  const reasons = new Map<string, (it: IterationSpan, to: number) => string | undefined>();
  let iterationsFrom: Replay['iterationsFrom'];
  // Threads are named as in the trace; their steps are found by the scenario's name.
  const scenarioName = new Map<string, string>();
  for (const [name, m] of maps) {
    const lane = scenario.laneOf('thread', name);
    const shown = lane !== undefined && t.lanes[lane] ? t.lanes[lane].name : name;
    scenarioName.set(shown, name);
    const found = iterationSpans(t, sim, shown, scenario.threads.get(name) ?? [], m);
    iterations.push(...found.list);
    found.until.forEach((u, k) => until.set(found.list[k], u));
    iterationsFrom ??= found.from;
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
    spans.push({ thread: shown, measuredNs, replayedNs, error: relErr(replayedNs, measuredNs) });
    const seen = new Set<number>();
    let compiled = 0;
    for (const st of scenario.threads.get(name) ?? []) {
      const step = Object.keys(st.step).length ? compiled++ : -1;
      const call = st.call;
      if (call < 0 || seen.has(call) || t.calls.kind[call] === CK.launch || !isWait(t, call)) continue;
      const s = step >= 0 ? m.simulated.get(step) : undefined;
      // A wait the scenario left out is listed too, as not replayed: it is never dropped silently.
      if (s === undefined && !st.note?.startsWith('left out')) continue;
      seen.add(call);
      const w =
        s === undefined
          ? leftOutWait(t, call, st.note!)
          : waitReplay(t, sim, call, s, st.heldOwnNs ?? 0, wakeOf.get(call) ?? 0, { simToOriginal, simToOp, lastOpOf });
      if (st.inferred) w.inferred = st.inferred;
      // Work left out makes the replay wait less; a wait that blocked as long is not explained by it.
      const waitedLess = w.replayedNs < w.measuredNs * (1 - WAIT_TOLERANCE);
      if (s !== undefined && w.why && waitedLess && t.calls.begin[call] > (t.calls.begin[firstLeftOut] ?? Infinity))
        w.why = `work before this wait was left out of the scenario (${str(t, t.calls.name[firstLeftOut])} had no op in the trace), so the replay does not wait for it`;
      waits.push(w);
    }
  }
  for (const it of iterations) if (Math.abs(it.error) > SPAN_TOLERANCE) it.why = missWhy(it.thread)(it, until.get(it)!);
  return { spans, waits, iterations, ...(iterationsFrom ? { iterationsFrom } : {}) };

  /** A thread's reasons, found once: a scan of every step per iteration is quadratic on long loops. */
  function missWhy(thread: string): (it: IterationSpan, to: number) => string | undefined {
    const known = reasons.get(thread);
    if (known) return known;
    const made = iterationMiss(t, scenario.threads.get(scenarioName.get(thread) ?? thread) ?? [], waits);
    reasons.set(thread, made);
    return made;
  }
}

/**
 * For an iteration from its first call to `to`: the first wait in it that the scenario left out, else
 * the first wait in it whose replay missed, and why.
 */
function iterationMiss(
  t: Trace,
  steps: GeneratedStep[],
  waits: WaitReplay[],
): (it: IterationSpan, to: number) => string | undefined {
  const byBegin = (a: { call: number }, b: { call: number }) => t.calls.begin[a.call] - t.calls.begin[b.call];
  const left = steps
    .filter((s) => s.note?.startsWith('left out') && s.call >= 0 && isWait(t, s.call))
    .sort(byBegin)
    .map((s) => ({
      call: s.call,
      why: `the scenario ${s.note} (call ${s.call}), so the replay does not block where the host waited for the GPU`,
    }));
  const missed = waits
    .filter((w) => w.why)
    .sort(byBegin)
    .map((w) => ({ call: w.call, why: `call ${w.call} ${w.name}: ${w.why}` }));
  const firstIn = (list: { call: number; why: string }[], from: number, to: number) => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (t.calls.begin[list[mid].call] < from) lo = mid + 1;
      else hi = mid;
    }
    return lo < list.length && t.calls.begin[list[lo].call] < to ? list[lo].why : undefined;
  };
  return (it, to) => {
    const from = t.calls.begin[it.firstCall];
    return firstIn(left, from, to) ?? firstIn(missed, from, to);
  };
}

/**
 * The thread's iterations measured and replayed: each from its first call's begin to the next one's,
 * the last to the begin of the thread's next call after the loop, or where it has none to its last
 * call's end. The loop is found in the trace's calls, those the scenario left out
 * too; a boundary on a left-out call moves to the next call that has a step (the last end to the
 * previous one), on both sides alike.
 */
function iterationSpans(
  t: Trace,
  sim: Trace,
  thread: string,
  steps: GeneratedStep[],
  m: { simulated: Map<number, number> },
): { list: IterationSpan[]; until: number[]; from?: 'ProfilerStep' | 'loop' } {
  // The thread's trace calls in order, each with the simulated calls of its first and last step (-1: left out).
  const calls: number[] = [];
  const firstSim: number[] = [];
  const lastSim: number[] = [];
  let compiled = 0;
  for (const s of steps) {
    const sim = Object.keys(s.step).length ? (m.simulated.get(compiled++) ?? -1) : -1;
    const call = traceCallOf(s);
    if (call < 0) continue;
    if (calls[calls.length - 1] === call) {
      if (sim >= 0) {
        lastSim[lastSim.length - 1] = sim;
        if (firstSim[firstSim.length - 1] < 0) firstSim[firstSim.length - 1] = sim;
      }
      continue;
    }
    calls.push(call);
    firstSim.push(sim);
    lastSim.push(sim);
  }
  const opsOf = new Map<number, number[]>();
  for (let j = 0; j < t.ops.count; j++) {
    const c = t.ops.call[j];
    if (c >= 0) (opsOf.get(c) ?? opsOf.set(c, []).get(c)!).push(j);
  }
  const found = iterationsOf(t, calls, opsOf);
  if (!found) return { list: [], until: [] };
  const forward = (k: number) => {
    while (k < calls.length && firstSim[k] < 0) k++;
    return k;
  };
  const backward = (k: number) => {
    while (k >= 0 && lastSim[k] < 0) k--;
    return k;
  };
  const list: IterationSpan[] = [];
  const until: number[] = [];
  found.list.forEach((it, k) => {
    const first = forward(it.first);
    // The last iteration runs to the thread's next call after the loop, where it has one: a call's own
    // length is the profile's in the replay (the rest of it is host work after it), its begin is exact.
    const next = forward(found.list[k + 1]?.first ?? it.last + 1);
    const last = backward(it.last);
    if (first >= calls.length || last < first) return;
    const ends = next < calls.length;
    const measuredNs = (ends ? t.calls.begin[calls[next]] : t.calls.end[calls[last]]) - t.calls.begin[calls[first]];
    const replayedNs =
      (ends ? sim.calls.begin[firstSim[next]] : sim.calls.end[lastSim[last]]) - sim.calls.begin[firstSim[first]];
    list.push({
      thread,
      label: it.label,
      firstCall: calls[first],
      lastCall: calls[last],
      measuredNs,
      replayedNs,
      error: relErr(replayedNs, measuredNs),
    });
    const after = found.list[k + 1]?.first ?? it.last + 1;
    until.push(after < calls.length ? t.calls.begin[calls[after]] : Infinity);
  });
  return { list, until, from: found.from };
}

/** Calls whose step, left out, would have issued work or ordered streams. */
const ORDERS_WORK = new Set<number>([CK.launch, CK.memcpy, CK.memset, CK.hostFunc, CK.streamWait]);

/** A wait the scenario has no step for: the replay does not wait there. */
function leftOutWait(t: Trace, call: number, note: string): WaitReplay {
  const measuredNs = t.calls.blockedNs[call];
  const measuredBy = t.calls.releasedBy[call];
  const w: WaitReplay = {
    call,
    name: str(t, t.calls.name[call]),
    measuredNs,
    replayedNs: 0,
    error: relErr(0, measuredNs),
    measuredBy,
    replayedBy: RELEASED_NONE,
    sameReleaser: measuredBy === RELEASED_NONE,
    leftOut: note.replace(/^left out: /, ''),
  };
  if (measuredNs > LONG_WAIT_NS)
    w.why = `the scenario left this wait out (${w.leftOut}), so the replay does not block where the host waited for the GPU`;
  return w;
}

function waitReplay(
  t: Trace,
  sim: Trace,
  call: number,
  s: number,
  heldOwnNs: number,
  /** The wait's measured return beyond the profile's wake-up, host work after it: part of its blocked time where the replay's wait blocked. */
  wakeNs: number,
  m: { simToOriginal: Map<number, number>; simToOp: Map<number, number>; lastOpOf: Map<number, number> },
): WaitReplay {
  const measuredNs = t.calls.blockedNs[call];
  const measuredBy = t.calls.releasedBy[call];
  // The simulated releaser as a trace op: the op its step stands for, else the (last) op of the same trace call.
  const asTraceOp = (simOp: number) =>
    simOp < 0
      ? simOp
      : (m.simToOp.get(sim.ops.call[simOp]) ?? m.lastOpOf.get(m.simToOriginal.get(sim.ops.call[simOp]) ?? -1) ?? -2);
  const staged = copyReadByTraceRule(t, sim, call, s, heldOwnNs);
  const replayedNs =
    staged?.blockedNs ??
    sim.calls.blockedNs[s] + (sim.calls.releasedBy[s] >= 0 && sim.calls.blockedNs[s] > 0 ? wakeNs : 0);
  const replayedBy = asTraceOp(staged?.op ?? sim.calls.releasedBy[s]);
  // Where the trace leaves the releaser among candidates, the replay's must be one of them.
  const amongCandidates =
    measuredBy === RELEASED_UNKNOWN && !!latestCandidate(t, call)?.candidates.includes(replayedBy);
  const sameReleaser =
    measuredBy === replayedBy || amongCandidates || (measuredBy < 0 && replayedBy < 0 && measuredNs < LONG_WAIT_NS);
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
    ...(amongCandidates ? { amongCandidates } : {}),
    ...(staged ? { readAs: 'copy' as const } : {}),
  };
  const long = measuredNs > LONG_WAIT_NS;
  if (long && (Math.abs(error) > WAIT_TOLERANCE || !sameReleaser)) w.why = explainMiss(t, w);
  return w;
}

/**
 * A blocking copy's replay read by the rule its trace was read by. S17: pageable host-to-device data
 * is staged by the host, and the call returns once it is, the last of it still in flight, so the trace
 * can only name the op the copy was ordered after; the simulator returns the call at its copy's end
 * and names the copy, so the replay's releaser is taken to be the op its copy was ordered after. A
 * torch.profiler trace counts a copy's call as blocked until its releasing op ended, the rest being the
 * call's own work (draining pageable staging buffers, which the scenario adds to the copy's duration,
 * core/whatif/from-trace.ts); a capture counts the whole call. The replay's blocked time is counted alike.
 */
function copyReadByTraceRule(
  t: Trace,
  sim: Trace,
  call: number,
  s: number,
  heldOwnNs: number,
): { op: number; blockedNs: number } | undefined {
  const measuredBy = t.calls.releasedBy[call];
  const simBy = sim.calls.releasedBy[s];
  if (t.calls.kind[call] !== CK.memcpy || measuredBy < 0 || simBy < 0 || sim.ops.call[simBy] !== s) return undefined;
  const own = ownOp(t, call, measuredBy);
  if (own < 0) return undefined;
  const staged = measuredBy !== own && t.ops.end[own] > t.calls.end[call];
  const op = staged ? opBefore(sim, simBy) : simBy;
  if (op < 0) return undefined;
  const begin = t.calls.begin[call];
  const untilOp = Math.min(t.ops.end[measuredBy], t.calls.end[call]) - begin;
  const partly = Math.abs(t.calls.blockedNs[call] - untilOp) < 1 && untilOp < t.calls.end[call] - begin - 1;
  // Both count the call's own time before its op started, which the scenario made host work after the call.
  if (!partly) return { op, blockedNs: sim.calls.blockedNs[s] + heldOwnNs };
  // The part of the copy's duration that the scenario added for the host's draining, after its op ended.
  const drained = op === simBy ? Math.max(0, t.calls.end[call] - t.ops.end[own]) : 0;
  const until = Math.min(sim.ops.end[op] - drained, sim.calls.end[s]);
  // Read until its own op's end, the trace counted the call's own time before that op; read until
  // the op before it (staged), it did not: that time came after the release.
  return { op, blockedNs: Math.max(0, until - sim.calls.begin[s]) + (staged ? 0 : heldOwnNs) };
}

/** The copy op the trace's call issued, searched from `near` (an op issued about then). */
function ownOp(t: Trace, call: number, near: number): number {
  if (t.ops.call[near] === call) return near;
  for (let j = near + 1; j < t.ops.count; j++) if (t.ops.call[j] === call) return j;
  return -1;
}

/** The work op issued before `op` on its stream in a simulated trace (ops are numbered in issue order). */
function opBefore(sim: Trace, op: number): number {
  for (let j = op - 1; j >= 0; j--) if (sim.ops.lane[j] === sim.ops.lane[op] && WORK.has(sim.ops.kind[j])) return j;
  return -1;
}

/** Ops that are work, not an event's marker. */
const WORK = new Set<number>([OK.kernel, OK.memcpy, OK.memset, OK.hostFunc]);

/** The likeliest reason a replayed wait differs: what the simulator does not model, or a rule it applied differently. */
function explainMiss(t: Trace, w: WaitReplay): string {
  if (w.measuredBy === -2)
    return 'the trace does not say which op released this wait, so the replay cannot be checked against it';
  if (graphNodeEndedLater(t, w))
    return `the capture has no call for the graph launch, so its nodes are on their stream without one, placed by their start; the import named op ${w.measuredBy}, the last that started before the wait began, but op ${w.replayedBy} of the same graph started during the wait and ended last, so it released the wait (as the replay says)`;
  if (t.calls.kind[w.call] === CK.memcpy && w.replayedBy >= 0 && t.ops.call[w.replayedBy] === w.call && !w.sameReleaser)
    return `a pageable copy's call returned once its data was staged, just before its own op ended, so the trace names the op it was ordered after${w.measuredNs < w.replayedNs * (1 - WAIT_TOLERANCE) ? " and counts the call as blocked only until that op ended (the copy itself as the call's own work)" : ''}; the simulator returns the call at the copy's end (S17) and names the copy`;
  if (w.replayedNs < w.measuredNs && queuedBehindOtherStream(t, w.measuredBy))
    return 'on the GPU the releasing work waited for SMs held by a kernel on another stream; the simulator places blocks by their threads only (registers and shared memory per block are not modelled), so it ran them side by side';
  if (!w.sameReleaser)
    return 'a different op released the replayed wait: the ops before it ran in a different order or overlap (concurrent kernels slowing each other are not modelled)';
  if (w.replayedNs < w.measuredNs)
    return 'the replay blocked less: the awaited work ran faster in the simulator (copy bandwidth from the profile, kernels slowed by concurrent work in the run) or the host reached the wait later (CPU-bound gaps)';
  return 'the replay blocked more: the host reached the wait earlier in the simulator (launch latency and call costs from the profile, not the trace)';
}

/** Whether the replay's releaser is a node with no call, on the trace releaser's stream, that started during the wait and ended after the trace's releaser, before the wait returned. */
function graphNodeEndedLater(t: Trace, w: WaitReplay): boolean {
  const [m, r] = [w.measuredBy, w.replayedBy];
  if (m < 0 || r < 0 || t.ops.call[m] >= 0 || t.ops.call[r] >= 0 || t.ops.lane[m] !== t.ops.lane[r]) return false;
  const o = t.ops;
  return o.start[r] > t.calls.begin[w.call] && o.end[r] > o.end[m] && o.end[r] <= t.calls.end[w.call];
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
