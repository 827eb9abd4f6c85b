// Fixes as edits (docs/whatif.md): each finding with a fix becomes an edit on the scenario made from
// the trace; the simulator runs the edited scenario, and the difference from the unedited one is the
// fix's predicted effect. A fix that cannot apply says why instead.
import { analyze } from '../analyze';
import { findingCalls, MAX_IDS, withMembers } from '../analyze/collect';
import type { MemoryBudget } from '../memory';
import type { Analysis } from '../analyze/types';
import { simulate } from '../simulate/simulate';
import type { SimProfile } from '../simulate/profile';
import { CK } from '../trace/kinds';
import { str, type Finding, type PlainStep, type Trace } from '../trace/model';
import {
  scenarioFromTrace,
  type GeneratedScenario,
  type GeneratedStep,
  type ScenarioWindow,
  type Threads,
} from './from-trace';
import { iterationsOf } from './iterations';
import { stepsOfSimCalls, withOrigins } from './origins';
import { paceAfterFirst, type Pace } from './pace';
import type { OverheadUsed } from './overhead';
import { compileGenerated } from './compile';
import { rankFindings } from '../overview/rank';
import { recordedWindow, scenarioWindowOf, type RecordedWindow } from '../overview/window';
import { applyFitted, replayableScenario } from './fit';
import { doneAt } from './before-after';
import { CAPTURE_CALL_NS, calibrateToPlain, plainWork } from './calibrate';
import { engineTimeNs } from './engine-threads';
import { plainEndsNs, simulatedWaitsNs, timesStepWaits } from './plain-waits';
import { plainStepUnused } from './loop-step';
import { batchReceiveText, takeOutBatchReceives } from './loader-receive';
import { countKernelsText, dropCountKernels } from './count-read';

export interface Outcome {
  /** The longest host thread's span, from its first call to its last. */
  hostNs: number;
  /** Time some GPU op ran (the union of op intervals). */
  gpuBusyNs: number;
  /**
   * From the simulation's start to when the window's work is done: its last host call returned and
   * its last GPU op ended (before-after.ts's doneAt). A saving is measured on it, since a window cut
   * after its last iteration does not hold the wait that drains the GPU: a fix that frees the host
   * there leaves the GPU's work to be waited for after it, and the host's span alone would count
   * that work as saved.
   */
  doneNs: number;
}

export interface WaitChange {
  call: number;
  name: string;
  beforeNs: number;
  /** undefined: the wait is gone (the edit removed it). */
  afterNs?: number;
}

export interface FixResult {
  /** F1, or F1+F2 for findings whose fixes were simulated together (`finding` is then the first). */
  id: string;
  finding: Finding;
  /** What the edit does, in words; or why it cannot apply. */
  edit: string;
  applied: boolean;
  before: Outcome;
  after?: Outcome;
  /** Waits over a microsecond that disappear or shrink by more than one. */
  waits: WaitChange[];
  /** A race fix adds a wait: its cost, not a saving. */
  isCost: boolean;
  /** Scenario text after the edit. */
  scenario?: string;
  /** The simulated traces of the scenario before and after the edit, for showing them side by side. */
  simulated?: { before: Trace; after: Trace };
  /** The recorder's cost taken out of the trace's host gaps before simulating (none measured, unless the profile has a model). */
  overhead: OverheadUsed;
  /** The iterations of the loop the window holds (core/whatif/iterations.ts), over which a saving is shared; 0 where no loop was found. */
  iterations: number;
  /** The time per iteration after the first, before and after the fix (pace.ts), where the window's iterations set one. */
  pace?: Pace;
}

/**
 * An edit on a copy of the threads; returns what it did, or a string starting "cannot" saying why
 * not. `iterations`: of the loop the scenario's window holds (0 where none was found).
 */
type Edit = (g: GeneratedScenario, th: Threads, f: Finding, a: Analysis, t: Trace, iterations: number) => string;

const REMOVE_KINDS = new Set(['loop-sync', 'redundant-wait', 'stale-wait', 'no-op-wait']);

const stepsOf = (th: Threads, calls: Set<number>) =>
  [...th.values()].flatMap((steps) => steps.filter((s) => calls.has(s.call) && Object.keys(s.step).length));

/**
 * The synchronize steps go. A host wait also ordered the GPU work the host issued after it, and
 * the fix that keeps that order without blocking the host is a stream wait (Stream.wait_event,
 * Stream.wait_stream): an event or stream synchronize is replaced by one on each other stream the
 * thread issues work to before its next synchronize, so that the fixed program is not a racy one.
 */
const removeSync: Edit = (_g, th, f) => removedText(removeSyncSteps(th, new Set(findingCalls(f))));

function removeSyncSteps(th: Threads, calls: Set<number>): { n: number; kept: number } {
  let n = 0;
  let kept = 0;
  for (const [name, steps] of th) {
    const out: GeneratedStep[] = [];
    steps.forEach((s, k) => {
      // A removed wait's measured return after its releasing op (GeneratedStep.partOf) goes with it.
      if (s.partOf !== undefined && calls.has(s.partOf) && k > 0 && isSyncStep(steps[k - 1])) return;
      if (!(calls.has(s.call) && isSyncStep(s))) return void out.push(s);
      n++;
      for (const step of orderKeeping(steps, k)) {
        out.push({ step, call: -1, note: `keeps the GPU order of the synchronize at call ${s.call}` });
        kept++;
      }
    });
    th.set(name, out);
  }
  return { n, kept };
}

function removedText({ n, kept }: { n: number; kept: number }): string {
  if (!n) return 'cannot apply: its calls are not synchronize steps of the scenario';
  const what = `remove ${n} synchronize step${n > 1 ? 's' : ''}`;
  return kept ? `${what}, keeping the GPU order with ${kept} stream wait${kept > 1 ? 's' : ''}` : what;
}

/**
 * A loop's synchronizes go (removeSync), but one that the host made to read what its thread copied
 * to pinned host memory since its last wait (loop-syncs.ts, Place.readsCopy) moves to the thread's
 * next host wait instead: the fixed program keeps the values on the GPU and reads them after the loop.
 */
const removeOrDeferSync: Edit = (g, th, f) => {
  const calls = new Set(findingCalls(f));
  const reads = readsOfCopies(g, th, calls);
  if (!reads.size) return removedText(removeSyncSteps(th, calls));
  const moved = moveSyncSteps(th, reads);
  const removed = removeSyncSteps(th, new Set([...calls].filter((c) => !reads.has(c))));
  return (
    `move ${moved} synchronize step${moved > 1 ? 's' : ''} that read a copy to host memory to the thread's next host wait ` +
    `(the values read after the loop)${removed.n ? `, and ${removedText(removed)}` : ''}`
  );
};

/**
 * The synchronize steps of `calls` that their thread made after it copied to a pinned host buffer
 * since its last wait (a copy to pageable memory does not return before it is done).
 */
function readsOfCopies(g: GeneratedScenario, th: Threads, calls: Set<number>): Set<number> {
  const reads = new Set<number>();
  const toHost = (s: GeneratedStep) =>
    'copy' in s.step && s.step.async === true && g.buffers.get(s.step.to as string)?.host === 'pinned';
  for (const steps of th.values()) {
    let copied = false;
    for (const s of steps) {
      if (toHost(s)) copied = true;
      if (!isHostWait(s)) continue;
      if (copied && calls.has(s.call)) reads.add(s.call);
      copied = false;
    }
  }
  return reads;
}

/** The steps that hold the host until the GPU is done (S12 to S14). */
const HOST_WAIT_STEP = ['deviceSync', 'streamSync', 'eventSync'];
const isHostWait = (s: GeneratedStep): boolean => HOST_WAIT_STEP.some((k) => k in s.step);
const SYNC_STEP = [...HOST_WAIT_STEP, 'wait', 'query'];
const isSyncStep = (s: GeneratedStep): boolean => SYNC_STEP.some((k) => k in s.step);
const WORK_STEP = ['launch', 'copy', 'memset', 'hostFunc'];
/** A scenario step's stream: its "stream", or the default stream where it names none. */
const streamOf = (step: Record<string, unknown>): string => (step.stream as string | undefined) ?? 'default';
const onStream = (stream: string) => (stream === 'default' ? {} : { stream });

/**
 * The stream waits that keep what steps[k], an event or stream synchronize, ordered: one for each
 * stream other than the awaited one that the steps after it issue work to, up to the next synchronize.
 */
function orderKeeping(steps: GeneratedStep[], k: number): Record<string, unknown>[] {
  const sync = steps[k].step;
  let awaited: string | undefined;
  let wait: (stream: string) => Record<string, unknown>;
  if (typeof sync.eventSync === 'string') {
    const event = sync.eventSync;
    let r = k - 1;
    while (r >= 0 && steps[r].step.record !== event) r--;
    if (r < 0) return [];
    awaited = streamOf(steps[r].step);
    wait = (stream) => ({ wait: event, ...onStream(stream) });
  } else if (typeof sync.streamSync === 'string') {
    const other = sync.streamSync;
    awaited = other;
    wait = (stream) => ({ waitStream: other, ...onStream(stream) });
  } else return [];
  const next = new Set<string>();
  for (const s of steps.slice(k + 1)) {
    if (isSyncStep(s)) break;
    if (WORK_STEP.some((key) => key in s.step)) next.add(streamOf(s.step));
  }
  next.delete(awaited);
  return [...next].map(wait);
}

/**
 * The copies read or write pinned buffers, asynchronously. A blocking copy's synchronize (one the
 * finding lists: PyTorch's copy without non_blocking=True) goes too, as non_blocking=True drops it.
 * Where the plain steps timed the thread receiving a DataLoader's batches unpinned, the loader's pin
 * thread takes that over (loader-receive.ts).
 */
const pinCopy: Edit = (g, th, f, a, t, iterations) => {
  const mine = stepsOf(th, new Set(findingCalls(f)));
  const steps = mine.filter((s) => 'copy' in s.step);
  if (!steps.length) return 'cannot apply: its copies are not in the scenario';
  for (const s of steps) {
    const st = s.step as Record<string, unknown>;
    for (const end of ['copy', 'to'] as const) {
      const name = st[end] as string;
      const b = g.buffers.get(name);
      if (b?.host !== 'pageable') continue;
      const pinned = name.replace(/^h_pageable_/, 'h_pinned_');
      g.buffers.set(pinned, { bytes: b.bytes, host: 'pinned' });
      st[end] = pinned;
    }
    // The measured time was the pageable path's; the profile's pinned bandwidth gives the new one.
    delete st.ns;
    st.async = true;
  }
  const received = takeOutBatchReceives(g, th, t, new Set(steps), iterations);
  const pinned =
    `copy from pinned host memory, asynchronously, in ${steps.length} cop${steps.length > 1 ? 'ies' : 'y'}` +
    (received.batches ? batchReceiveText(received, t.meta.plainStep?.batchReceiveNs ?? 0) : '');
  const blocking = mine.some(isSyncStep);
  if (!blocking) return pinned;
  return `${pinned}, and ${removeSync(g, th, f, a, t, iterations).replace(/^remove (\d+ synchronize steps?)/, 'remove the $1 after them')}`;
};

/**
 * `.item()`-style: the host reads a value right after it is copied; read it later, at the thread's
 * next wait. A count read's fix runs no count: its op's own kernels go (count-read.ts).
 */
const moveSyncLater: Edit = (_g, th, f, _a, t) => {
  const calls = new Set(findingCalls(f));
  const counted = dropCountKernels(th, calls, isSyncStep, t);
  const moved = moveSyncSteps(th, calls);
  return moved
    ? `move ${moved} synchronize step${moved > 1 ? 's' : ''} to the thread's next host wait (where the value is next needed)` +
        countKernelsText(counted)
    : 'cannot apply: its synchronize is not a step of the scenario';
};

/** Moves the synchronize steps of `calls` to their thread's next host wait that is not one of them; returns how many moved. */
function moveSyncSteps(th: Threads, calls: Set<number>): number {
  let moved = 0;
  for (const [name, steps] of th) {
    const out: GeneratedStep[] = [];
    const carried: GeneratedStep[] = [];
    for (const s of steps) {
      const sync = isSyncStep(s);
      // A moved wait's measured return after its releasing op (GeneratedStep.partOf) moves with it.
      const wake = s.partOf !== undefined && carried.length > 0 && carried[carried.length - 1].call === s.partOf;
      if ((sync && calls.has(s.call)) || wake) {
        carried.push(s);
        if (!wake) moved++;
        continue;
      }
      // They land before the next step that holds the host; a stream's wait for an event does not.
      if (isHostWait(s) && carried.length) out.push(...carried.splice(0));
      out.push(s);
    }
    th.set(name, [...out, ...carried]);
  }
  return moved;
}

/**
 * A device-wide wait where the host needed one op (S14): an event is recorded right after the
 * needed op's step, on its stream, and the device synchronize becomes a synchronize on that event.
 * Work issued after it keeps the order its stream gives it: the finding is made only where no later
 * work of the thread needed the rest (waits.ts, neededOps).
 */
const narrowDeviceWait: Edit = (g, th, f, a) => {
  const neededOf = new Map(a.waits.flatMap((w) => (w.narrower ? [[w.id, w.narrower.op] as const] : [])));
  const calls = new Set(findingCalls(f));
  let n = 0;
  for (const [name, steps] of th) {
    // Where each op was issued, and the records to issue right after it: one pass, however many waits.
    const stepOfOp = new Map<number, number>();
    const recordsAfter = new Map<number, GeneratedStep[]>();
    steps.forEach((s, k) => {
      if (s.op !== undefined) stepOfOp.set(s.op, k);
      const needed = neededOf.get(s.call);
      if (!calls.has(s.call) || !('deviceSync' in s.step) || needed === undefined) return;
      const r = stepOfOp.get(needed);
      if (r === undefined) return;
      const ev = `fix_narrow_${s.call}`;
      g.events.add(ev);
      s.step = { eventSync: ev };
      const record = { step: { record: ev, ...onStream(streamOf(steps[r].step)) }, call: -1, note: 'fix: record' };
      recordsAfter.set(r, [...(recordsAfter.get(r) ?? []), record]);
      n++;
    });
    if (recordsAfter.size)
      th.set(
        name,
        steps.flatMap((s, k) => [s, ...(recordsAfter.get(k) ?? [])]),
      );
  }
  return n
    ? `synchronize on an event recorded after the op the host needed, in place of ${n} device synchronize${n > 1 ? 's' : ''}`
    : 'cannot apply: the op the host needed is not a step of the thread before its device synchronize';
};

/**
 * A race: an event recorded after the first access, on its stream, and waited for on the second's
 * stream before the second; for every pair of calls the finding stands for (an inferred race lists
 * each pass of its loop, Hazard.occurrences), as the program's fix orders every pass.
 */
const addRaceWait: Edit = (g, th, f, a, t) => {
  const calls = new Set(findingCalls(f));
  const h = a.hazards.find((z) => calls.has(z.fix.after) && calls.has(z.fix.before));
  if (!h) return 'cannot apply: the race has no structured fix';
  const stepOf = new Map<number, GeneratedStep>();
  // A call's work step, else its first: the record goes right after the write, the wait right before the read.
  const works = (s: GeneratedStep | undefined) => !!s && WORK_STEP.some((k) => k in s.step);
  for (const s of [...th.values()].flat())
    if (s.call >= 0 && !works(stepOf.get(s.call)) && (works(s) || !stepOf.has(s.call))) stepOf.set(s.call, s);
  const on = (lane: number) => onStream(g.streamName(lane));
  let n = 0;
  let first = '';
  for (const { after: a1, before: b1 } of h.occurrences ?? [h.fix]) {
    const after = stepOf.get(a1);
    const before = stepOf.get(b1);
    if (!after || !before) continue;
    const ev = `fix_${a1}_${b1}`;
    first ||= ev;
    g.events.add(ev);
    for (const steps of th.values()) {
      const i = steps.indexOf(after);
      if (i >= 0)
        steps.splice(i + 1, 0, { step: { record: ev, ...on(t.calls.stream[a1]) }, call: -1, note: 'fix: record' });
      const k = steps.indexOf(before);
      if (k >= 0) steps.splice(k, 0, { step: { wait: ev, ...on(t.calls.stream[b1]) }, call: -1, note: 'fix: wait' });
    }
    n++;
  }
  if (!n) return 'cannot apply: one of the racing calls is not a step of the scenario';
  const times = n > 1 ? ` (${n} times)` : '';
  return `record "${first}" on ${h.fix.recordOn} after the first access and wait for it on ${h.fix.waitIn} before the second${times}`;
};

/**
 * S3: work on the legacy default stream and a blocking stream wait for each other. Made non-blocking,
 * the stream that is not the legacy one no longer does; the finding's ops are the late one first and
 * the one it waited for last.
 */
const makeNonBlocking: Edit = (g, _th, f, _a, t) => {
  const [late, before] = [f.ops[0], f.ops[f.ops.length - 1]];
  if (late === undefined || before === undefined) return 'cannot apply: the finding names no ops';
  const legacy = (op: number) => t.lanes[t.ops.lane[op]]?.legacyDefault === true;
  const lane = legacy(late) ? t.ops.lane[before] : t.ops.lane[late];
  if (t.lanes[lane]?.legacyDefault)
    return 'cannot apply: both ops are on the legacy default stream, which cannot be made non-blocking';
  const name = g.streamName(lane);
  const stream = g.streams.get(name);
  if (!stream) return `cannot apply: stream ${name} is not declared in the scenario`;
  if (stream.nonBlocking) return `cannot apply: stream ${name} is non-blocking already`;
  stream.nonBlocking = true;
  return `make stream "${name}" non-blocking, so the legacy default stream no longer orders it`;
};

/** The edit of each finding kind that has one; core/whatif/fix-view.ts's FIX_EDIT_KINDS names the same kinds. */
export const EDITS: Readonly<Record<string, Edit>> = {
  'legacy-serialization': makeNonBlocking,
  ...Object.fromEntries([...REMOVE_KINDS].map((k) => [k, k === 'loop-sync' ? removeOrDeferSync : removeSync])),
  'pageable-async-copy': pinCopy,
  'hidden-sync': moveSyncLater,
  'device-wide-wait': narrowDeviceWait,
  race: addRaceWait,
};

function editFor(f: Finding): Edit | string {
  return (
    EDITS[f.kind] ??
    `cannot apply: ${/^[aeiou]/.test(f.kind) ? 'an' : 'a'} ${f.kind} finding has no edit the simulator can run`
  );
}

function outcome(sim: Trace): Outcome {
  const byLane = new Map<number, [number, number]>();
  for (let i = 0; i < sim.calls.count; i++) {
    if (sim.calls.kind[i] === CK.context || str(sim, sim.calls.name[i]) === 'hostWork') continue;
    const r = byLane.get(sim.calls.lane[i]) ?? [Infinity, -Infinity];
    byLane.set(sim.calls.lane[i], [Math.min(r[0], sim.calls.begin[i]), Math.max(r[1], sim.calls.end[i])]);
  }
  const hostNs = Math.max(0, ...[...byLane.values()].map(([a, b]) => b - a));
  const spans: [number, number][] = [];
  for (let j = 0; j < sim.ops.count; j++)
    if (sim.ops.end[j] > sim.ops.start[j]) spans.push([sim.ops.start[j], sim.ops.end[j]]);
  spans.sort((x, y) => x[0] - y[0]);
  let busy = 0;
  let end = -Infinity;
  for (const [a, b] of spans) {
    if (b <= end) continue;
    busy += b - Math.max(a, end);
    end = b;
  }
  return { hostNs, gpuBusyNs: busy, doneNs: doneAt(sim) };
}

/** Each trace call's blocked time in a simulation (`steps`: the scenario step of each of its calls). */
function blockedByCall(steps: readonly (GeneratedStep | undefined)[], sim: Trace): Map<number, number> {
  const out = new Map<number, number>();
  steps.forEach((s, i) => {
    if (s && s.call >= 0) out.set(s.call, (out.get(s.call) ?? 0) + sim.calls.blockedNs[i]);
  });
  return out;
}

const copyThreads = (th: Threads): Threads =>
  new Map([...th].map(([n, steps]) => [n, steps.map((s) => ({ ...s, step: structuredClone(s.step) }))]));

/** Why a finding's calls have no step to edit: the first one the scenario left out, and why, or the window. */
function missingSteps(th: Threads, calls: readonly number[]): string {
  const all = [...th.values()].flat();
  const wanted = new Set(calls);
  const left = all.find((s) => wanted.has(s.call) && s.note?.startsWith('left out'));
  if (left) return ` (call ${left.call} was ${left.note!.replace(/^left out: /, 'left out: ')})`;
  return all.some((s) => wanted.has(s.call)) ? '' : ' (its calls are outside the window)';
}

/** Time a fix saves until the window's work is done (Outcome.doneNs); negative where it costs time (a race fix adds a wait); undefined where it could not apply. */
export const savedNs = (r: FixResult): number | undefined => (r.after ? r.before.doneNs - r.after.doneNs : undefined);

/**
 * The saving per iteration of the window's loop: from the pace of the iterations after the first
 * where they set one (pace.ts), else the saving shared over the iterations; undefined where the fix
 * could not apply or no loop was found. A pace that says the opposite of the window's saving (a
 * saving of microseconds either way) gives way to the shared one, so that the two never disagree
 * on whether the fix saves.
 */
export const savedPerIterationNs = (r: FixResult): number | undefined => {
  const saved = savedNs(r);
  if (saved === undefined || !r.iterations) return undefined;
  const paced = r.pace ? r.pace.beforeNs - r.pace.afterNs : undefined;
  return paced !== undefined && Math.sign(paced) === Math.sign(saved) ? paced : saved / r.iterations;
};

/** Fixes in the one order of findings (core/overview/rank.ts): largest predicted saving first, a cost after the savings, those that cannot apply last. */
export function rankedBySaving<T extends FixResult>(results: T[]): T[] {
  const items = results.map((r) => ({
    r,
    index: parseInt(r.id.slice(1), 10) - 1,
    severity: r.finding.severity,
    predictedSavingNs: savedNs(r),
    perIterationNs: savedPerIterationNs(r),
  }));
  return rankFindings(items).map(({ r }) => r);
}

/** The iterations, counted or left out, that a saving over the recorded window is shared by (0: no loop found). */
const windowIterations = (rw: RecordedWindow): number => (rw.summary.detectedBy === 'none' ? 0 : rw.seen.length);

/** Where the window's second iteration begins (trace time), where the window holds a loop. */
function secondIterationBegins(rw: RecordedWindow | undefined): number | undefined {
  if (!rw || rw.summary.detectedBy === 'none') return undefined;
  return rw.spans.find((s) => s.beginNs > rw.summary.beginNs)?.beginNs;
}

/** How many iterations of its loop the longest host thread of the scenario runs (0: no loop found). */
function loopIterations(t: Trace, g: GeneratedScenario): number {
  let longest: number[] = [];
  for (const steps of g.threads.values()) {
    const calls = [...new Set(steps.filter((s) => s.call >= 0).map((s) => s.call))];
    if (calls.length > longest.length) longest = calls;
  }
  const opsOf = new Map<number, number[]>();
  for (let j = 0; j < t.ops.count; j++) {
    const c = t.ops.call[j];
    if (c >= 0) (opsOf.get(c) ?? opsOf.set(c, []).get(c)!).push(j);
  }
  return iterationsOf(t, longest, opsOf)?.list.length ?? 0;
}

/** The least cost per call a recorder was measured to add to this trace's calls: a capture that read the Python stacks. */
const leastCostPerCall = (t: Trace): number =>
  t.meta.source === 'capture' && t.meta.python?.read ? CAPTURE_CALL_NS : 0;

/**
 * The findings of `ids`, each a group of one, or of several for an id that joins them with "+"
 * (F3+F4: both fixes in one scenario, as one change to the program makes them); every finding with
 * a fix for 'all'. An id that names no finding is left out.
 */
function chosenFixes(findings: readonly Finding[], ids: string[] | 'all'): { f: Finding; id: string }[][] {
  const byId = new Map(findings.map((f, k) => [`F${k + 1}`, f]));
  if (ids === 'all') return [...byId].filter(([, f]) => !!f.fix).map(([id, f]) => [{ f, id }]);
  return ids
    .map((joined) => joined.split('+').flatMap((id) => (byId.has(id) ? [{ f: byId.get(id)!, id }] : [])))
    .filter((group) => group.length > 0);
}

/**
 * A group's findings as one finding per kind, standing for all their calls: one edit then sees every
 * wait the change removes (two reads moved one after the other would move the first to the second's
 * old place).
 */
function byKind(group: Finding[]): Finding[] {
  const kinds = [...new Set(group.map((f) => f.kind))];
  return kinds.map((kind) => {
    const of = group.filter((f) => f.kind === kind);
    if (of.length === 1) return of[0];
    const all = of.flatMap((f) => findingCalls(f));
    const ops = [...new Set(of.flatMap((f) => f.ops))];
    return withMembers({ ...of[0], calls: all.slice(0, MAX_IDS), ops }, all);
  });
}

/** One finding's edit on the scenario's threads: what it did, or why it cannot apply. */
function editOne(g: GeneratedScenario, th: Threads, f: Finding, a: Analysis, t: Trace, iterations: number): string {
  const edit = editFor(f);
  const tried = typeof edit === 'string' ? edit : edit(g, th, f, a, t, iterations);
  return tried.startsWith('cannot') && typeof edit !== 'string' ? tried + missingSteps(th, findingCalls(f)) : tried;
}

/**
 * The unchanged program calibrated to its plain steps (calibrate.ts): its step, the backward pass's
 * time on autograd's engine threads, and its waits in the calls the sync clock times, each read from
 * a simulation as the plain steps were timed.
 */
function toPlainSteps(
  t: Trace,
  profile: SimProfile,
  base: GeneratedScenario,
  recorded: Trace,
  plainStep: PlainStep,
  read: {
    stepOf: (sim: Trace) => number;
    stepsOf: (sim: Trace) => (GeneratedStep | undefined)[];
    second: number | undefined;
    iterations: number;
  },
) {
  const { stepOf, stepsOf, second, iterations } = read;
  const engineOf = (sim: Trace) => engineTimeNs(t, stepsOf(sim), sim) / Math.max(1, iterations);
  // From the second iteration, as the plain steps are timed after steps that settle; their start
  // and end, which the sync clock timed too, over as many steps as they were.
  const from = second ?? -Infinity;
  const waitsOf = (sim: Trace) => {
    const steady = simulatedWaitsNs(
      t,
      stepsOf(sim),
      sim,
      from,
      Math.max(1, iterations - (second === undefined ? 0 : 1)),
    );
    return steady + plainEndsNs(t, stepsOf(sim), sim, from, steady) / plainStep.steps;
  };
  const timed = timesStepWaits(t, base.threads, from) ? waitsOf : undefined;
  return calibrateToPlain(base, profile, stepOf, plainStep, recorded, engineOf, leastCostPerCall(t), timed);
}

/**
 * The fixes of `ids` (F1, F2, ... in the order of the analysis's findings; F1+F2 simulates both in
 * one scenario, chosenFixes), or of every finding with
 * a fix. `a` is the trace's analysis, given where the caller has one (with a scenario's program), so
 * that the numbers are those of the findings the caller lists. Without a window, the fixes are
 * simulated over the recorded window and a saving is shared by its iterations, as the overview
 * counts them (recordedWindow), so that every place that gives a saving per iteration gives
 * the same one; a window asked for is shared by the iterations of its own loop.
 */
export function whatIf(
  t: Trace,
  profile: SimProfile,
  ids: string[] | 'all',
  asked?: ScenarioWindow,
  a?: Analysis,
  memory?: MemoryBudget,
  rw: RecordedWindow | undefined = asked ? undefined : recordedWindow(t),
): FixResult[] {
  a ??= analyze(t, { memory });
  const made = { overhead: profile.traceOverhead };
  const w = asked ?? scenarioWindowOf(rw!);
  const { scenario: base, simulated: recorded, fitted } = replayableScenario(t, profile, w, made);
  const iterations = rw ? windowIterations(rw) : loopIterations(t, base);
  const second = secondIterationBegins(rw);
  const paceOf = (steps: readonly (GeneratedStep | undefined)[], sim: Trace) =>
    second === undefined ? undefined : paceAfterFirst(t, steps, sim, second, iterations);
  // The plain step is the launcher's steps': it calibrates a window of those steps alone, read as
  // the savings are read (the pace after the first iteration).
  // Each calibration simulation is read three ways (step, engine time, waits): its steps are found once.
  const simSteps = new WeakMap<Trace, (GeneratedStep | undefined)[]>();
  const stepsOfBase = (sim: Trace) =>
    simSteps.get(sim) ?? simSteps.set(sim, stepsOfSimCalls(base.threads, sim)).get(sim)!;
  const stepOf = (sim: Trace) => paceOf(stepsOfBase(sim), sim) ?? doneAt(sim) / iterations;
  const { plainStep } = t.meta;
  const unused = plainStep && plainStepUnused(t, plainStep, rw, iterations, () => stepOf(recorded));
  const plain =
    plainStep && !unused
      ? toPlainSteps(t, profile, base, recorded, plainStep, { stepOf, stepsOf: stepsOfBase, second, iterations })
      : undefined;
  const baseSim = plain?.simulated ?? recorded;
  const overhead: OverheadUsed = plain
    ? { ...base.overhead, plain: plain.calibration }
    : unused
      ? { ...base.overhead, plainUnused: unused }
      : base.overhead;
  const before = outcome(baseSim);
  const baseSteps = stepsOfBase(baseSim);
  const baseBlocked = blockedByCall(baseSteps, baseSim);
  const basePace = paceOf(baseSteps, baseSim);
  withOrigins(t, base, baseSim, base.threads, baseSteps);
  const analysis = a;
  return chosenFixes(a.findings, ids).map((group) => {
    // Each fix edits a fresh scenario, so fixes do not add up; a group's edits share one.
    const g = scenarioFromTrace(t, profile, w, made);
    applyFitted(g, fitted);
    const th = copyThreads(g.threads);
    if (plain) plainWork(th, plain.calibration);
    const edits = byKind(group.map(({ f }) => f)).map((f) => editOne(g, th, f, analysis, t, iterations));
    const result: FixResult = {
      id: group.map(({ id }) => id).join('+'),
      finding: group[0].f,
      edit: edits.join('; '),
      applied: false,
      before,
      waits: [],
      isCost: group.some(({ f }) => f.kind === 'race'),
      overhead,
      iterations,
    };
    if (edits.some((e) => e.startsWith('cannot'))) return result;
    const sim = simulate(compileGenerated(g, th), profile);
    const steps = stepsOfSimCalls(th, sim);
    const after = blockedByCall(steps, sim);
    const afterPace = basePace === undefined ? undefined : paceOf(steps, sim);
    withOrigins(t, g, sim, th, steps);
    for (const [call, was] of baseBlocked) {
      const now = after.get(call);
      if (was > 1000 && (now === undefined || was - now > 1000))
        result.waits.push({ call, name: str(t, t.calls.name[call]), beforeNs: was, afterNs: now });
    }
    // The edited scenario's text is printed only when read.
    return {
      ...result,
      applied: true,
      after: outcome(sim),
      ...(basePace !== undefined && afterPace !== undefined
        ? { pace: { beforeNs: basePace, afterNs: afterPace } }
        : {}),
      simulated: { before: baseSim, after: sim },
      get scenario() {
        return g.render(th);
      },
    };
  });
}
