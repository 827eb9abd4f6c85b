// Any trace becomes a scenario (docs/whatif.md): its streams, events and buffers, each host thread's
// calls in order with the host time between them as hostWork, and its kernels with their measured
// durations. Its text (JSON with comments, ./emit.ts) says where every step came from, and what the
// trace did not know is marked on the step, never guessed silently.
import { callSiteText } from '../analyze/describe';
import type { Node } from '../scenario/jsonc';
import { LIMITS } from '../scenario/kinds';
import { TINY_COPY_BYTES, type SimProfile } from '../simulate/profile';
import { countAtMost } from '../stats';
import { CK, OK, SYNC_CALL_KINDS } from '../trace/kinds';
import {
  COPY_KINDS,
  HOST_MEMORY,
  type CopyKind,
  type HostMemory,
  type ReleaseHow,
  type Trace,
  callSite,
  copyBlocksHost,
  releaseHow,
  str,
  traceExtent,
} from '../trace/model';
import { scenarioText, scenarioTree, type EmitOptions, type ScenarioParts } from './emit';
import { inferredRelease, latestCandidate, nonBlockingByOverlap, recordedBeforeWaits } from './inferred';
import { kernelSignature, occupancyFromQueueing } from './occupancy';
import { OpLeads } from './op-lead';
import { backwardReturnIn } from './backward-returns';
import { engineLanes } from './engine-threads';
import { workerBatches } from '../analyze/data-loader';
import { gapOverhead, overheadFor, overheadUsed, rangeCounter, rangesPerGap, type OverheadUsed } from './overhead';
import type { TraceOverhead, TraceOverheadCost } from '../simulate/trace-overhead';

export interface ScenarioWindow {
  /** Absolute trace times in ns; calls that begin outside [from, to) are left out. */
  from?: number;
  to?: number;
}

/** One emitted step, the trace call it stands for (-1 for host work), and its comment. */
export interface GeneratedStep {
  step: Record<string, unknown>;
  call: number;
  note?: string;
  /** The trace op the step issues (a kernel, copy, memset or host function): the replay names its ops after it. */
  op?: number;
  /** A step the trace's data implies without stating it (a synchronize's target the import bound by deduction or timing). */
  inferred?: 'deduced' | 'timing';
  /**
   * A blocking copy's host time inside its call before its op started with its stream free: the
   * simulator holds the call only for the wait and the copy, so this time is host work after it.
   */
  heldOwnNs?: number;
  /**
   * How long the step's op is to run in the replay where that is more than the trace measured for
   * it: its measured duration and the time it started after it could have (./op-lead.ts).
   */
  spanNs?: number;
  /**
   * Of a step's duration, the time its op started after it could have (./op-lead.ts) and how many
   * waves of blocks the duration is split over (1 for a copy): what a recorder's cost on the GPU per
   * op is taken from (calibrate.ts).
   */
  lead?: { ns: number; waves: number };
  /**
   * Host work that is call `partOf`'s own time, which the trace measured and the simulator's model of
   * the call leaves out: before a call submitted its work (where the work started late on a free
   * stream), or a wait's return after its releasing op beyond the profile's wake-up. The replay
   * counts it as that call's, and a fix that removes or moves the call takes it along.
   */
  partOf?: number;
  /**
   * Host work only: how many calls and framework ranges (ops, user ranges, Python calls) the
   * recorder logged in it (the call before it, the ranges that begin before the next), each at a
   * cost of its own that the program without the recorder does not pay; a Python call's range
   * counts PYTHON_CALL_SHARE of one (overhead.ts).
   */
  ranges?: number;
  /**
   * Host work only: the least it takes without the recorder, where it holds the receipt of
   * DataLoader batches from worker processes and the plain steps timed one (batchReceiveNs each).
   */
  receiveNs?: number;
  /** Host work only: made on a thread of the framework's engine (engine-threads.ts), which a recorder slows by other costs. */
  engine?: true;
}

/** The trace call a step stands for: its own, or the call whose own time it is (partOf); -1 for none. */
export const traceCallOf = (s: GeneratedStep | undefined): number =>
  s ? (s.call >= 0 ? s.call : (s.partOf ?? -1)) : -1;

/** What a host gap holds besides its time: the calls and ranges the recorder logged, and the batches received. */
type Logged = Pick<GeneratedStep, 'ranges' | 'receiveNs'>;

/** A scenario's threads by name, each its steps in order. */
export type Threads = Map<string, GeneratedStep[]>;

export interface GeneratedScenario {
  text: string;
  /** Steps per host thread name, in order: the replay maps simulated calls back through them. */
  threads: Map<string, GeneratedStep[]>;
  /** Steps that the trace could not fill in, explained (also comments in the text). */
  marked: number;
  /** Steps and declarations inferred from the trace's data, each marked so in the text. */
  inferred: number;
  /** The recorder's cost taken out of the host gaps (none unless asked for and measured). */
  overhead: OverheadUsed;
  /** Header comments of the text: what the scenario holds that the trace did not state; one may be added. */
  notes: string[];
  /** The declarations the steps use; an edit may add to them (a pinned buffer, a stream's flag, an event). */
  streams: Map<string, { nonBlocking?: boolean; priority?: number }>;
  events: Set<string>;
  buffers: Map<string, { bytes: number; host?: string }>;
  /** The scenario text of (edited) steps with these declarations. */
  render(threads: Map<string, GeneratedStep[]>, o?: EmitOptions): string;
  /** The same scenario as a tree of values, for the compiler (core/scenario/tree.ts); the generated steps without `threads`. */
  tree(threads?: Map<string, GeneratedStep[]>, o?: EmitOptions): Node;
  /** The scenario's name for a trace stream lane. */
  streamName(lane: number): string;
  /** The trace lane a scenario thread or stream stands for (`default`: the legacy default stream). */
  laneOf(kind: 'thread' | 'stream', name: string): number | undefined;
}

/** A launch step's block size when it gives none (core/scenario/steps.ts). */
const DEFAULT_BLOCK = 256;
const SYNC_NAMES = ['eventSync', 'streamSync', 'deviceSync'] as const;

/** A name the scenario language accepts and that says what the thing was. */
const identifier = (s: string): string => s.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 48) || 'x';

/** How a step's binding is labelled in its comment: an inference says so and how it was made. */
const boundWord = (how: ReleaseHow): string => (how === 'exact' ? 'bound by the trace' : `inferred (${how})`);

/**
 * What the simulator charges the host for a step that does not block (core/simulate/simulate.ts),
 * but a launch, whose cost depends on its stream (Generator.stepCostNs): the rest of a measured call
 * is host work. A scenario's events keep no timing, so a record costs recordNoTimingNs.
 */
function modelledStepNs(step: Record<string, unknown>, p: SimProfile): number {
  if ('record' in step) return p.recordNoTimingNs;
  if ('wait' in step) return p.streamWaitNs;
  if ('query' in step) return p.queryNs;
  if ('eventSync' in step || 'streamSync' in step || 'deviceSync' in step) return p.syncNs;
  if ('copy' in step) return p.copyCallNs;
  if ('memset' in step) return p.memsetCallNs;
  if ('hostFunc' in step) return p.hostFuncCallNs;
  return 0;
}

class Names {
  private readonly byKey = new Map<string, string>();
  /** The key a name was given for. */
  readonly keyOf = new Map<string, string>();
  private readonly used = new Set<string>(['default', 'legacy']);
  get(key: string, wanted: string): string {
    const known = this.byKey.get(key);
    if (known) return known;
    let name = identifier(wanted);
    for (let k = 2; this.used.has(name); k++) name = `${identifier(wanted)}_${k}`;
    this.used.add(name);
    this.byKey.set(key, name);
    this.keyOf.set(name, key);
    return name;
  }
}

/** Whether call `i` is a host call (not a framework range) that begins in window `w`. */
const hostCallIn = (t: Trace, i: number, w: ScenarioWindow): boolean =>
  t.calls.kind[i] !== CK.context && t.calls.begin[i] >= (w.from ?? -Infinity) && t.calls.begin[i] < (w.to ?? Infinity);

/** Calls of each host thread lane in begin order, inside the window, framework ranges left out. */
function callsByThread(t: Trace, w: ScenarioWindow): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (let i = 0; i < t.calls.count; i++) {
    if (!hostCallIn(t, i, w)) continue;
    const lane = t.calls.lane[i];
    (out.get(lane) ?? out.set(lane, []).get(lane)!).push(i);
  }
  for (const list of out.values()) list.sort((a, b) => t.calls.begin[a] - t.calls.begin[b] || a - b);
  return out;
}

/**
 * Host threads whose calls never overlap in time take turns: one hands the GPU work to another and
 * waits for it on the CPU (autograd's backward thread does). The scenario language has no CPU join
 * between threads, so such threads become one thread in time order, which keeps their turns exact.
 */
function handOffs(t: Trace, byThread: Map<number, number[]>): Map<number, number[]> {
  if (byThread.size < 2) return byThread;
  const all = [...byThread.values()].flat().sort((a, b) => t.calls.begin[a] - t.calls.begin[b] || a - b);
  let end = -Infinity;
  let lane = -1;
  for (const i of all) {
    if (t.calls.begin[i] < end && t.calls.lane[i] !== lane) return byThread;
    if (t.calls.end[i] >= end) [end, lane] = [t.calls.end[i], t.calls.lane[i]];
  }
  const first = [...byThread.keys()].find((l) => t.lanes[l]?.name === 'main') ?? t.calls.lane[all[0]];
  return new Map([[first, all]]);
}

/** Ops that hold a stream for a time. */
const WORK_OPS = new Set<number>([OK.kernel, OK.memcpy, OK.memset, OK.hostFunc]);

/** Ops whose start shows when their call submitted them: a kernel, a copy or a memset on a free stream. */
const SUBMITTED = new Set<number>([OK.kernel, OK.memcpy, OK.memset]);

/**
 * Ops that a launch put on a stream. One with no call in the trace is an orphan: a captured program's
 * graph launches are not always recorded, only their nodes.
 */
const LAUNCHED = new Set<number>([OK.kernel, OK.memcpy, OK.memset]);

/** orphansAfter's key for the work launched before the scenario's first call. */
const BEFORE_FIRST = -1;

/**
 * Work that no call of the scenario issued, under the call after which the host launched it:
 * - each orphan op under the last call of the window that ended before the op started
 *   (the host launched it in the gap after that call), and before any call that issued later work
 *   on its stream, since a stream runs its work in the order it was launched (S1);
 * - under BEFORE_FIRST, work on its stream when the window's first call began, which the host
 *   launched before: an orphan that no call of the window can be launched after (in a torch.profiler
 *   trace, an orphan on a stream busy without a break since before the first call, with no work of
 *   the window's calls before it on its stream), and an op that
 *   a call before the window issued, which ran or waited on its stream after the window began.
 * Ops after the window's end, and ops that ended before its first call, are left out.
 */
function orphansAfter(t: Trace, byThread: Map<number, number[]>, w: ScenarioWindow): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const calls = [...byThread.values()].flat();
  const inWindow = new Set(calls);
  const byEnd = [...calls].sort((a, b) => t.calls.end[a] - t.calls.end[b]);
  let first = Infinity;
  for (const i of calls) first = Math.min(first, t.calls.begin[i]);
  const to = w.to ?? Infinity;
  // Per stream lane, the ops the window's calls issued by start, and from each on the earliest begin of their calls.
  const issued = new Map<number, { start: number[]; begin: number[] }>();
  const ops: number[] = [];
  const byStart = [...Array(t.ops.count).keys()].sort((a, b) => t.ops.start[a] - t.ops.start[b] || a - b);
  const queued = queuedSince(t, byStart, first);
  for (const j of byStart) {
    const c = t.ops.call[j];
    if (c >= 0 && inWindow.has(c)) {
      const lane = issued.get(t.ops.lane[j]) ?? issued.set(t.ops.lane[j], { start: [], begin: [] }).get(t.ops.lane[j])!;
      lane.start.push(t.ops.start[j]);
      lane.begin.push(t.calls.begin[c]);
      continue;
    }
    if (!LAUNCHED.has(t.ops.kind[j]) || t.ops.start[j] >= to || !(t.ops.end[j] > first)) continue;
    if (c < 0 || t.calls.begin[c] < first) ops.push(j);
  }
  for (const lane of issued.values())
    for (let k = lane.begin.length - 2; k >= 0; k--) lane.begin[k] = Math.min(lane.begin[k], lane.begin[k + 1]);
  // A torch.profiler trace has the runtime calls of the threads it profiled while it ran: GPU work
  // with no call, on a stream busy without a break since before the first call, was launched before
  // it, unless work that a call of the window issued ran before it on its stream (S1: then it was
  // launched after that call). After a break, work with no call was launched by a call the trace
  // does not show (a graph launch not recorded), after the calls that ended before it began.
  const profiled = t.meta.source === 'pytorch';
  for (const j of ops) {
    let after = -1;
    const lane = issued.get(t.ops.lane[j]);
    const beforeTrace = profiled && queued[j] === 1 && !(lane && lane.start[0] < t.ops.start[j]);
    if (t.ops.call[j] < 0 && !beforeTrace) {
      // The earliest begin of a call that issued work after this op on its stream: the op was launched before it.
      let limit = Infinity;
      if (lane) {
        const lo = countAtMost(lane.start.length, (k) => lane.start[k], t.ops.start[j]);
        if (lo < lane.begin.length) limit = lane.begin[lo];
      }
      const lo = countAtMost(byEnd.length, (k) => t.calls.end[byEnd[k]], t.ops.start[j]);
      for (let k = lo - 1; k >= 0 && after < 0; k--) if (t.calls.begin[byEnd[k]] < limit) after = byEnd[k];
    }
    const key = after >= 0 ? after : BEFORE_FIRST;
    (out.get(key) ?? out.set(key, []).get(key)!).push(j);
  }
  return out;
}

/** The most idle time between two ops on a stream that still counts as one queue of work. */
const QUEUED_GAP_NS = 20_000;

/**
 * Per op, 1 where its stream's work ran without a break from before `first` until it began: work
 * that may have been queued before the first call. An op after a break was launched later, by a
 * call the trace may not show (a graph launch that the profiler did not record).
 */
function queuedSince(t: Trace, byStart: number[], first: number): Uint8Array {
  const out = new Uint8Array(t.ops.count);
  const unbroken = new Map<number, number>(); // lane -> end of its work so far, while unbroken since before `first`
  for (const j of byStart) {
    const lane = t.ops.lane[j];
    const end = unbroken.get(lane);
    if (t.ops.start[j] <= first || (end !== undefined && t.ops.start[j] - end <= QUEUED_GAP_NS)) {
      out[j] = 1;
      unbroken.set(lane, Math.max(end ?? -Infinity, t.ops.end[j]));
    } else unbroken.delete(lane);
  }
  return out;
}

/** The host calls that begin in window `w` (framework ranges are not calls): how many, and the first and last to begin. */
export function hostCallsIn(t: Trace, w: ScenarioWindow = {}): { count: number; first: number; last: number } {
  let count = 0;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < t.calls.count; i++) {
    if (!hostCallIn(t, i, w)) continue;
    count++;
    first = Math.min(first, t.calls.begin[i]);
    last = Math.max(last, t.calls.begin[i]);
  }
  return { count, first, last };
}

/**
 * The k-th kernel of one call that launched several (a CUDA graph launch, or a graph's nodes that
 * no recorded call launched): the first is the graph's launch, the rest ride on it.
 */
const graphPart = (k: number): { graphNode?: true } => (k ? { graphNode: true } : {});

/**
 * The trace's host calls in window `w` as a scenario. A scenario needs a thread, so a window (or a
 * trace) without host calls has none to give, and says so: callers check the window first (hostCallsIn).
 */
export function scenarioFromTrace(
  t: Trace,
  profile: SimProfile,
  w: ScenarioWindow = {},
  /** `overhead`: take the recorder's own cost out of the host gaps, by this model (the what-if's prediction). */
  o: { overhead?: TraceOverhead } = {},
): GeneratedScenario {
  const byThread = handOffs(t, callsByThread(t, w));
  if (!byThread.size)
    throw new Error(
      `nothing to turn into a scenario: ${hostCallsIn(t).count ? 'no host call begins in the window' : 'the trace has no host calls'}`,
    );
  const g = new Generator(t, profile, orphansAfter(t, byThread, w), byThread, overheadFor(t, o.overhead));
  const threads = new Map<string, GeneratedStep[]>();
  // Every scenario thread starts at once: a thread that began later in the trace first works that long.
  let start = Infinity;
  let firstLane = -1;
  for (const [lane, calls] of byThread)
    if (t.calls.begin[calls[0]] < start) [start, firstLane] = [t.calls.begin[calls[0]], lane];
  // The first thread first launches the work that was on the GPU when its first call began; the others wait as long.
  const before = g.launchedBefore(start);
  for (const [lane, calls] of byThread) {
    const name = g.threadName(lane);
    const late = Math.round(t.calls.begin[calls[0]] - start) + (lane === firstLane ? 0 : before.ns);
    const steps = g.thread(calls, lane === firstLane && before.steps.length > 0);
    if (lane === firstLane) steps.unshift(...before.steps);
    else if (late > 0) steps.unshift({ step: { hostWork: { ns: late } }, call: -1, note: 'this thread began later' });
    threads.set(name, steps);
  }
  let text: string | undefined;
  return {
    // Printed only when asked for: the replay and the what-if compile the tree.
    get text() {
      return (text ??= scenarioText(g.parts(threads)));
    },
    threads,
    marked: g.marked,
    inferred: g.inferred,
    overhead: overheadUsed(t, o.overhead, g.subtractedNs),
    notes: g.notes,
    streams: g.streams,
    events: g.events,
    buffers: g.buffers,
    render: (th, o) => scenarioText(g.parts(th), o),
    tree: (th = threads, o) => scenarioTree(g.parts(th), o),
    streamName: (lane) => g.stream(lane),
    laneOf: (kind, name) => g.laneOf(kind, name),
  };
}

class Generator {
  readonly streams = new Map<string, { nonBlocking?: boolean; priority?: number }>();
  readonly events = new Set<string>();
  readonly buffers = new Map<string, { bytes: number; host?: string }>();
  private readonly names = new Names();
  private readonly threadNames = new Names();
  marked = 0;
  inferred = 0;
  subtractedNs = 0;
  /** What the declarations hold that the trace did not state, as header comments. */
  readonly notes: string[] = [];
  /** Stream lanes the trace gives no flag for whose work overlapped the legacy default stream's. */
  private readonly nonBlocking: Set<number>;
  /** Blocks per SM of the kernels whose launches the trace shows waiting for SMs (./occupancy.ts). */
  private readonly occupancy: Map<string, number>;
  /**
   * Ops that event synchronizes without an event in the trace were bound to (by deduction or timing),
   * with the event the scenario records after each and how the binding was found.
   */
  private readonly recordAfter = new Map<number, { event: string; how: ReleaseHow; call: number; wait?: boolean }>();
  /** Stream waits whose event no record of the scenario records, bound by timing to a record after an op (recordAfter): the event. */
  private readonly waitFor = new Map<number, { event: string; op: number; how: ReleaseHow }>();

  /**
   * The host's own time in a copy call that the simulator holds until its op ends (S17): the simulator
   * reproduces the wait for the stream and the copy, whether or not the trace counted them as blocked,
   * so only the time before the op started, with its stream free, is the host's.
   */
  private readonly heldOwn = new Map<number, number>();
  /** The end of the op before each op on its stream. */
  private readonly prevEnd: Float64Array;

  /** The ops each call issued, found once: a scan per call would be quadratic on long traces. */
  private readonly opsByCall = new Map<number, number[]>();
  /** The time each op started after it could have in the replay, which its step's duration takes in (./op-lead.ts). */
  private readonly leads: OpLeads;
  /** Work ops' ends in order, per stream lane and (-1) over all, made when first asked for. */
  private workEnds?: Map<number, number[]>;
  /** While a thread's steps are made: whether it made a CUDA call yet; over the run, the copy directions used (the simulator's cold costs). */
  private warm = false;
  private readonly copied = new Set<string>();
  /** The host lanes of the framework's engine (engine-threads.ts). */
  private readonly engine: Set<number>;

  constructor(
    private readonly t: Trace,
    private readonly p: SimProfile,
    /** Ops no call issued, under the call after which the host launched them (orphansAfter). */
    private readonly orphans: Map<number, number[]> = new Map(),
    /** The calls that become steps, per host thread lane. */
    byThread: Map<number, number[]> = new Map(),
    /** The recorder's cost to take out of the host gaps, where the profile measured it for this kind of trace. */
    private readonly overhead?: TraceOverheadCost,
  ) {
    for (let j = 0; j < t.ops.count; j++) {
      const c = t.ops.call[j];
      if (c >= 0) (this.opsByCall.get(c) ?? this.opsByCall.set(c, []).get(c)!).push(j);
    }
    this.nonBlocking = nonBlockingByOverlap(t);
    this.occupancy = occupancyFromQueueing(t, t.meta.device?.sms ?? p.sms);
    this.leads = new OpLeads(t);
    this.prevEnd = new Float64Array(t.ops.count).fill(-Infinity);
    const order = [...Array(t.ops.count).keys()].sort((a, b) => t.ops.start[a] - t.ops.start[b] || a - b);
    const lastEnd = new Map<number, number>();
    for (const j of order) {
      this.prevEnd[j] = lastEnd.get(t.ops.lane[j]) ?? -Infinity;
      lastEnd.set(t.ops.lane[j], Math.max(this.prevEnd[j], t.ops.end[j]));
    }
    this.planInferredRecords(byThread);
    this.engine = engineLanes(t);
  }

  private opsOf(call: number): number[] {
    return this.opsByCall.get(call) ?? [];
  }

  /** The trace lane a scenario thread or stream name stands for. */
  laneOf(kind: 'thread' | 'stream', name: string): number | undefined {
    if (kind === 'stream' && name === 'default')
      return this.t.lanes.find((l) => l.kind === 'stream' && l.legacyDefault)?.id;
    const key = (kind === 'stream' ? this.names : this.threadNames).keyOf.get(name);
    const m = key === undefined ? null : (kind === 'stream' ? /^s(\d+)$/ : /^(\d+)$/).exec(key);
    return m ? Number(m[1]) : undefined;
  }

  threadName(lane: number): string {
    return this.threadNames.get(`${lane}`, this.t.lanes[lane]?.name === 'main' ? 'main' : `t${lane}`);
  }

  /** The scenario's name for a stream lane: the legacy default stream is built in. */
  stream(lane: number): string {
    const l = this.t.lanes[lane];
    if (!l || l.legacyDefault) return 'default';
    const name = this.names.get(`s${lane}`, l.handle !== undefined ? `s${l.handle}` : l.name);
    if (!this.streams.has(name)) {
      const deduced = this.nonBlocking.has(lane);
      this.streams.set(name, {
        ...(l.nonBlocking || deduced ? { nonBlocking: true } : {}),
        ...(l.priority ? { priority: l.priority } : {}),
      });
      if (deduced) {
        this.inferred++;
        this.notes.push(
          `stream ${name} is non-blocking, deduced: the trace gives no flag, and its work ran alongside the legacy default stream's, which S3 would have ordered`,
        );
      }
    }
    return name;
  }

  private event(id: number): string {
    const name = this.names.get(`e${id}`, `ev_${str(this.t, id)}`);
    this.events.add(name);
    return name;
  }

  private buffer(host: string, bytes: number): string {
    const name = host ? `h_${host}_${bytes}` : `d_${bytes}`;
    if (!this.buffers.has(name)) this.buffers.set(name, { bytes, ...(host ? { host } : {}) });
    return name;
  }

  /** The steps of a host thread's `calls`; `warm`: the thread has made a CUDA call before them (launchedBefore's launches). */
  thread(calls: number[], warm = false): GeneratedStep[] {
    const t = this.t;
    const out: GeneratedStep[] = [];
    this.warm = warm;
    const rangesBetween = rangeCounter(t, calls);
    const ranges = rangesPerGap(t, calls, rangesBetween);
    const recorder = this.overhead ? gapOverhead(ranges, this.overhead) : undefined;
    // Host time the replay spent beyond the trace's, where calls took less than the model's cost and
    // the gap after was too short to take it back: the next host work is shorter by it.
    let owed = 0;
    for (let k = 0; k < calls.length; k++) {
      const i = calls[k];
      const steps = this.steps(i);
      const next = calls[k + 1] as number | undefined;
      // The host's own time: the gap to its next call, and what this call took beyond the model's cost of it.
      const blocked = this.blockedNs(i, steps);
      const took = t.calls.end[i] - t.calls.begin[i] - blocked;
      // Each step's cost as the simulator charges it; an inferred record is a call the trace did not
      // make here: the simulator charges it, the host work pays it back.
      const costs = steps.map((s) => this.stepCostNs(i, s));
      const modelled = costs.reduce((a, b) => a + b, 0);
      // A call that did not wait and took less than the model's cost: the host work after it is that
      // much shorter, so that the next call begins when it did. A wait puts the host on the GPU's time.
      const waited = SYNC_CALL_KINDS.has(t.calls.kind[i]) || blocked > 0;
      if (blocked > 0) owed = 0;
      const own = steps.some((s) => !s.note?.startsWith('left out'))
        ? (this.heldOwn.get(i) ?? (waited ? Math.max(0, took - modelled) : took - modelled))
        : took;
      let work = Math.max(0, own);
      if (next !== undefined) {
        const gap = Math.round(t.calls.begin[next] - t.calls.end[i] + own);
        const taken = recorder ? Math.min(Math.max(0, gap), Math.round(recorder[k])) : 0;
        this.subtractedNs += taken;
        work = gap - taken + owed;
        owed = Math.min(0, work);
      }
      // The part of its own time the call spent before it submitted its work, which the trace shows
      // where the work started after the call's cost with its stream free: host work before the
      // call's steps, so that the replay's GPU starts the work when the trace's did.
      const before = Math.min(Math.max(0, work), this.beforeSubmitNs(i, steps, costs, Math.max(0, own)));
      if (before > 0)
        out.push({
          step: { hostWork: { ns: before } },
          call: -1,
          partOf: i,
          note: `call ${i}'s own time before it submitted its work (its work started that late on a free stream)`,
        });
      this.takeLeads(i, steps, costs, before);
      for (const s of steps) if (Object.keys(s.step).length || s.note) out.push(s);
      const wake = this.wakeBeyondNs(i, steps, own);
      if (wake > 0)
        out.push({
          step: { hostWork: { ns: wake } },
          call: -1,
          partOf: i,
          note: `call ${i} returned this much later after the op that released it than the profile's wake-up`,
        });
      if (next === undefined) continue;
      const orphans = this.orphans.get(i);
      // The recorder logged the call itself, and the framework ranges that begin before the next.
      const logged = { ranges: ranges[k] + 1, receiveNs: this.receivedNs(t.calls.lane[i], i, next) };
      const engine = this.engine.has(t.calls.lane[i]);
      if (orphans) this.orphanLaunches(out, i, orphans, work - before, own - before, logged, engine);
      else if (engine && !this.engine.has(t.calls.lane[next]))
        this.engineHandsBack(out, i, next, work - before, logged, rangesBetween);
      else this.hostWork(out, work - before, logged, engine);
    }
    return out;
  }

  /**
   * The time call `i` waited, as the scenario reproduces it. A graph launch's is none: its nodes take
   * no launch-queue entry of their own in the scenario (graphNode), so that no wait for room could
   * reproduce it, and its time grows with its nodes: its whole time is the host's own.
   */
  private blockedNs(i: number, steps: GeneratedStep[]): number {
    return steps.some((s) => s.step.graphNode) ? 0 : this.t.calls.blockedNs[i];
  }

  /**
   * How much later than the simulator's wake-up wait `i` returned after the op that released it,
   * beyond the call's own time the host work after it already holds: the trace measured it
   * (unblockNs). A scenario's waits spin (it declares no blocking-sync event or schedule). At most
   * the time since the last op that ended before the wait returned (on its stream, where it names
   * one): a releaser the import named wrongly (an earlier op) gives no wake-up of its own.
   */
  private wakeBeyondNs(i: number, steps: GeneratedStep[], own: number): number {
    const c = this.t.calls;
    if (
      !SYNC_CALL_KINDS.has(c.kind[i]) ||
      !(c.blockedNs[i] > 0) ||
      c.releasedBy[i] < 0 ||
      !Number.isFinite(c.unblockNs[i])
    )
      return 0;
    if (!steps.some((s) => SYNC_NAMES.some((k) => k in s.step))) return 0;
    const lane = c.kind[i] === CK.streamSync && c.stream[i] >= 0 ? c.stream[i] : -1;
    const since = c.end[i] - this.lastEndBefore(lane, c.end[i]);
    return Math.max(0, Math.round(Math.min(c.unblockNs[i], since) - this.p.spinWakeNs - own));
  }

  /** The latest end of a work op (on stream lane `lane`, or any where -1) at or before `at`; -Infinity for none. */
  private lastEndBefore(lane: number, at: number): number {
    if (!this.workEnds) {
      this.workEnds = new Map([[-1, []]]);
      const o = this.t.ops;
      for (let j = 0; j < o.count; j++) {
        if (!WORK_OPS.has(o.kind[j])) continue;
        this.workEnds.get(-1)!.push(o.end[j]);
        (this.workEnds.get(o.lane[j]) ?? this.workEnds.set(o.lane[j], []).get(o.lane[j])!).push(o.end[j]);
      }
      for (const ends of this.workEnds.values()) ends.sort((a, b) => a - b);
    }
    const ends = this.workEnds.get(lane) ?? [];
    const lo = countAtMost(ends.length, (k) => ends[k], at);
    return lo > 0 ? ends[lo - 1] : -Infinity;
  }

  /**
   * What the simulator charges the host for call `i`'s step `s`: a launch costs more onto a stream
   * with nothing pending, and a thread's first CUDA step and the run's first copy in each direction
   * cost more (cold), as core/simulate/simulate.ts charges them. Called once per step, in order.
   */
  private stepCostNs(i: number, s: GeneratedStep): number {
    const p = this.p;
    if (!Object.keys(s.step).length || 'hostWork' in s.step || s.step.graphNode) return 0;
    let cold = 0;
    const copy = 'copy' in s.step && s.op !== undefined ? COPY_KINDS[this.t.ops.copy[s.op]] : undefined;
    const first = !this.warm;
    if (first) {
      this.warm = true;
      cold = copy && (s.step.bytes as number) <= TINY_COPY_BYTES ? p.coldTinyCopyNs : p.coldCallNs;
    }
    if (copy && !this.copied.has(copy)) {
      this.copied.add(copy);
      if (!first) cold = p.coldCopyNs;
    }
    if (!('launch' in s.step)) return cold + modelledStepNs(s.step, p);
    return cold + (s.op !== undefined ? this.launchCostNs(s.op, this.t.calls.begin[i]) : p.launchNs);
  }

  /** A launch of op `j` at `at` (trace time): idle when every op issued before it on its stream had ended (as the simulator decides). */
  private launchCostNs(j: number, at: number): number {
    return this.prevEnd[j] <= at ? this.p.idleLaunchNs : this.p.launchNs;
  }

  /**
   * How long call `i` ran before it submitted its first op, beyond the model's cost of the steps up to
   * it: where the op's stream was free by then, the op started a submit latency after its submission.
   * At most the call's own time; none for a call that blocks (its own time is counted apart).
   */
  private beforeSubmitNs(i: number, steps: GeneratedStep[], costs: number[], own: number): number {
    const t = this.t;
    if (this.heldOwn.has(i) || own <= 0) return 0;
    const k = steps.findIndex((s) => s.op !== undefined);
    if (k < 0) return 0;
    const j = steps[k].op!;
    if (!SUBMITTED.has(t.ops.kind[j]) || ('copy' in steps[k].step && !steps[k].step.async)) return 0;
    const upTo = costs.slice(0, k + 1).reduce((a, b) => a + b, 0);
    const begin = t.calls.begin[i];
    if (this.prevEnd[j] > begin + upTo) return 0;
    return Math.min(own, Math.max(0, Math.round(t.ops.start[j] - this.p.submitNs - upTo - begin)));
  }

  /**
   * The time each op of call `i`'s steps started after it could have in the replay (./op-lead.ts),
   * added to its step's duration: the replay submits it when the call's steps up to it have cost
   * their model's time after `before`, and the GPU may start it a submit latency later.
   */
  private takeLeads(i: number, steps: GeneratedStep[], costs: number[], before: number): void {
    let at = this.t.calls.begin[i] + before;
    steps.forEach((s, k) => {
      at += costs[k];
      if (s.op !== undefined) this.takeLead(s, s.op, at + this.p.submitNs);
    });
  }

  /** Op `j`'s lead on step `s` (a kernel's launch or a copy that does not block), when the replay may start it at `ready`. */
  private takeLead(s: GeneratedStep, j: number, ready: number): void {
    const t = this.t;
    const isKernel = 'launch' in s.step && t.ops.kind[j] === OK.kernel;
    const isCopy = 'copy' in s.step && s.heldOwnNs === undefined && !this.heldOwn.has(s.call);
    if (!isKernel && !isCopy) return;
    const lead = Math.round(this.leads.leadNs(j, ready));
    if (lead <= 0) return;
    const measured = t.ops.end[j] - t.ops.start[j];
    // The shape with the lead in: a latency given for the kernel alone goes with it.
    if (isKernel) {
      delete s.step.latencyNs;
      Object.assign(s.step, this.kernelShape(j, lead));
    } else if (typeof s.step.ns === 'number') s.step.ns += lead;
    else return;
    s.spanNs = Math.round(measured + lead);
    s.lead = { ns: lead, waves: isKernel ? this.waves(j, this.occupancy.get(kernelSignature(t, j))) : 1 };
  }

  /**
   * The plain steps' time receiving the worker-fed DataLoader batches handed out on `lane` from call
   * i's begin to call next's: each range that took at least that long (a recording only slows the
   * host; a shorter one, as the exhausted iterator's last, handed out none).
   */
  private receivedNs(lane: number, i: number, next: number): number {
    const each = this.t.meta.plainStep?.batchReceiveNs;
    const batches = workerBatches(this.t, lane);
    if (!each || !batches.begin.length) return 0;
    const first = (x: number) => countAtMost(batches.begin.length, (k) => (batches.begin[k] < x ? 0 : 1), 0);
    let received = 0;
    for (let k = first(this.t.calls.begin[i]); k < first(this.t.calls.begin[next]); k++)
      if (batches.end[k] - batches.begin[k] >= each) received += each;
    return received;
  }

  /**
   * The host work `work` between the engine's call `i` and the script's call `next` on a thread
   * where they take turns: the engine's up to the return of the backward call where the trace shows
   * it (backward-returns.ts), the script's after it, each with the ranges that begin in it.
   */
  private engineHandsBack(
    out: GeneratedStep[],
    i: number,
    next: number,
    work: number,
    logged: Logged,
    rangesBetween: (from: number, to: number) => number,
  ): void {
    const c = this.t.calls;
    const back = backwardReturnIn(this.t, c.end[i], c.begin[next]);
    if (back === undefined) return this.hostWork(out, work, logged, true);
    const engineNs = Math.max(0, Math.min(work, work - (c.begin[next] - back)));
    const engineRanges = Math.min(logged.ranges ?? 0, 1 + rangesBetween(c.begin[i], back));
    this.hostWork(out, engineNs, { ranges: engineRanges }, true);
    const rest = { ...logged, ranges: (logged.ranges ?? 0) - engineRanges };
    this.hostWork(out, work - engineNs, rest, false);
  }

  private hostWork(out: GeneratedStep[], work: number, logged: Logged = {}, engine = false): void {
    if (work <= 0) return;
    // Calls the scenario does not model (stream creation, API queries) fold into the host work around them.
    const prev = out[out.length - 1];
    const held =
      prev?.call === -1 && prev.partOf === undefined && 'hostWork' in prev.step && !prev.engine === !engine
        ? (prev.step.hostWork as { ns: number })
        : undefined;
    const { ranges = 0, receiveNs = 0 } = logged;
    if (held) {
      held.ns += work;
      if (ranges) prev.ranges = (prev.ranges ?? 0) + ranges;
      if (receiveNs) prev.receiveNs = (prev.receiveNs ?? 0) + receiveNs;
    } else
      out.push({
        step: { hostWork: { ns: work } },
        call: -1,
        ...(ranges ? { ranges } : {}),
        ...(receiveNs ? { receiveNs } : {}),
        ...(engine ? { engine: true as const } : {}),
      });
  }

  /**
   * Ops that no call of the trace issued (a graph launch's nodes), launched in the host gap `work`
   * after call `i` as one graph launch: host work until the launch that lets the first one start
   * when it did (as far as the gap leaves room for the launch), a launch step per op with its
   * measured duration on its stream, the first the graph's launch and the rest its nodes, then the
   * rest of the gap less the launch's cost. The replay's call ends `ownAfter` before the trace's
   * (its own time after its steps is host work).
   */
  private orphanLaunches(
    out: GeneratedStep[],
    i: number,
    ops: number[],
    work: number,
    ownAfter: number,
    logged: Logged,
    engine: boolean,
  ): void {
    const t = this.t;
    const ended = t.calls.end[i] - ownAfter;
    const first = this.launchCostNs(ops[0], ended);
    // The graph's launch takes the host's time: the host work before it leaves room for it in the gap.
    let costs = (this.warm ? 0 : this.p.coldCallNs) + first;
    for (const j of ops) costs += this.recordAfter.has(j) ? this.p.recordNoTimingNs : 0;
    const room = Math.max(0, work - costs);
    const lead = Math.max(0, Math.min(room, Math.round(t.ops.start[ops[0]] - ended - first - this.p.submitNs)));
    this.hostWork(out, lead);
    let at = ended + lead;
    let spent = 0;
    ops.forEach((j, k) => {
      // The graph's launch is the first node's call; the further nodes ride on it.
      const cost = k ? 0 : this.launchCostNs(j, at) + (this.warm ? 0 : this.p.coldCallNs);
      this.warm = true;
      at += cost;
      spent += cost;
      const step: GeneratedStep = {
        step: { ...this.kernelStep(j), ...this.onLane(t.ops.lane[j]), ...graphPart(k) },
        call: -1,
        op: j,
        note: `no call in the trace issued ${str(t, t.ops.name[j]).slice(0, 80)} (a graph launch's node): launched here`,
      };
      this.takeLead(step, j, at + this.p.submitNs);
      out.push(step);
      const record = this.inferredRecord(j, -1);
      if (record) {
        out.push(record);
        at += this.p.recordNoTimingNs;
        spent += this.p.recordNoTimingNs;
      }
    });
    this.hostWork(out, work - lead - spent, logged, engine);
  }

  /**
   * The work on the GPU when the scenario's first call began (at `first`), which the host launched
   * before it (orphansAfter's BEFORE_FIRST): a launch step each, at the first thread's start, and how
   * long they take the host. Each runs on its stream until it ended in the trace, so one that was
   * already running runs only its part after the replay could start it.
   */
  launchedBefore(first: number): { steps: GeneratedStep[]; ns: number } {
    const t = this.t;
    const p = this.p;
    const ops = this.orphans.get(BEFORE_FIRST);
    if (!ops) return { steps: [], ns: 0 };
    // The simulator's costs: the thread's first call runs cold, a stream's first launch finds it idle.
    const lanes = new Set<number>();
    const costs = ops.map((j) => {
      const idle = !lanes.has(t.ops.lane[j]);
      lanes.add(t.ops.lane[j]);
      return (idle ? p.idleLaunchNs : p.launchNs) + (this.recordAfter.has(j) ? p.recordNoTimingNs : 0);
    });
    const ns = p.coldCallNs + costs.reduce((a, b) => a + b, 0);
    // The replay's time `x` after the thread's start is the trace's `first - ns + x`.
    let at = first - ns + p.coldCallNs;
    const steps: GeneratedStep[] = [];
    const ended = new Map<number, number>();
    ops.forEach((j, k) => {
      const lane = t.ops.lane[j];
      const ready = at + (this.recordAfter.has(j) ? costs[k] - p.recordNoTimingNs : costs[k]) + p.submitNs;
      at += costs[k];
      const startsAt = Math.max(ready, ended.get(lane) ?? -Infinity);
      const measured = t.ops.end[j] - t.ops.start[j];
      const span =
        t.ops.start[j] < startsAt ? Math.max(1, t.ops.end[j] - startsAt) : measured + this.leads.leadNs(j, ready);
      ended.set(lane, t.ops.end[j]);
      const launcher = t.ops.call[j];
      steps.push({
        step: { ...this.kernelStep(j, Math.round(span - measured)), ...this.onLane(lane) },
        call: -1,
        op: j,
        spanNs: Math.round(span),
        note: `${str(t, t.ops.name[j]).slice(0, 80)} was on its stream when the first call began, launched before${launcher >= 0 ? ` (by call ${launcher})` : ''}: launched here, to end when it did`,
      });
      const record = this.inferredRecord(j, -1);
      if (record) steps.push(record);
    });
    return { steps, ns: Math.round(ns) };
  }

  /** A launch step of op `j` with its measured duration; a copy or memset the graph ran is a kernel of that duration here. */
  private kernelStep(j: number, leadNs = 0): Record<string, unknown> {
    const t = this.t;
    return { launch: identifier(str(t, t.ops.name[j]) || 'kernel'), ...this.kernelShape(j, leadNs) };
  }

  /**
   * Event synchronizes whose event no record of the scenario records before them (a torch.profiler
   * trace's records name no event; without cuda_sync events its synchronizes name none either) but
   * that the trace binds to an op: each such op gets a record of an event after it, which they wait for.
   */
  private planInferredRecords(byThread: Map<number, number[]>): void {
    const t = this.t;
    const c = t.calls;
    const all = [...byThread.values()].flat().sort((a, b) => c.begin[a] - c.begin[b] || a - b);
    const issued = new Set(all);
    const orphans = new Set([...this.orphans.values()].flat());
    const recorded = new Set<number>();
    for (const i of all) {
      if (c.kind[i] === CK.record && c.event[i] && c.stream[i] >= 0) recorded.add(c.event[i]);
      if (c.kind[i] !== CK.eventSync || (c.event[i] && recorded.has(c.event[i]))) continue;
      const op = this.boundOp(i);
      if (op < 0 || this.recordAfter.has(op)) continue;
      const launcher = t.ops.call[op];
      // The record goes after the op's launch step: an op launched outside the scenario has none.
      if (launcher >= 0 ? !issued.has(launcher) : !orphans.has(op)) continue;
      const event = this.names.get(`after${op}`, `ev_after_op${op}`);
      this.events.add(event);
      this.recordAfter.set(op, { event, how: this.boundHow(i), call: i });
    }
    this.planWaitRecords(all, issued);
  }

  /** The op an event synchronize without its record waits for: the import's, else the latest of its candidates (latestCandidate). */
  private boundOp(i: number): number {
    return this.t.calls.releasedBy[i] >= 0 ? this.t.calls.releasedBy[i] : (latestCandidate(this.t, i)?.op ?? -1);
  }

  private boundHow(i: number): ReleaseHow {
    return this.t.calls.releasedBy[i] >= 0 ? releaseHow(this.t, i) : 'timing';
  }

  /**
   * Stream waits on an event that no record of the scenario records before them (a torch.profiler
   * trace's records name no event or stream): where the first op issued to the waiting stream after
   * the wait started later than its launch and its stream let it, at the end of an op of another
   * stream launched before the wait, the wait is bound to a record after that op, inferred by timing.
   * Otherwise the wait orders nothing the trace shows, and stays as it is (S9: it orders nothing).
   */
  private planWaitRecords(all: number[], issued: Set<number>): void {
    const t = this.t;
    const c = t.calls;
    const o = t.ops;
    // Per stream lane, the ops the scenario's calls issued in the order of their calls, and its work ops by end.
    const byLane = new Map<number, number[]>();
    const byEnd = new Map<number, number[]>();
    for (let j = 0; j < o.count; j++) {
      if (!WORK_OPS.has(o.kind[j])) continue;
      (byEnd.get(o.lane[j]) ?? byEnd.set(o.lane[j], []).get(o.lane[j])!).push(j);
      if (o.call[j] >= 0 && issued.has(o.call[j]))
        (byLane.get(o.lane[j]) ?? byLane.set(o.lane[j], []).get(o.lane[j])!).push(j);
    }
    for (const list of byLane.values()) list.sort((a, b) => c.begin[o.call[a]] - c.begin[o.call[b]] || a - b);
    for (const list of byEnd.values()) list.sort((a, b) => o.end[a] - o.end[b] || a - b);
    // When the scenario launches each op no call of it issued: at its start, or after the call it is placed after.
    const placed = new Map<number, number>();
    for (const [key, ops] of this.orphans) for (const j of ops) placed.set(j, key < 0 ? -Infinity : c.begin[key]);
    const launchedAt = (k: number): number | undefined =>
      o.call[k] >= 0 ? (issued.has(o.call[k]) ? c.begin[o.call[k]] : undefined) : placed.get(k);
    const recorded = new Set<number>();
    const deduced = recordedBeforeWaits(t, all);
    for (const i of all) {
      if (c.kind[i] === CK.record && c.event[i] && c.stream[i] >= 0) recorded.add(c.event[i]);
      if (c.kind[i] !== CK.streamWait || !c.event[i] || c.stream[i] < 0 || recorded.has(c.event[i])) continue;
      const list = byLane.get(c.stream[i]) ?? [];
      const j = list[countAtMost(list.length, (k) => c.begin[o.call[list[k]]], c.begin[i])];
      if (j === undefined) continue;
      // When that op could have started without the wait (the submit latency aside), and when it did:
      // the op of another stream launched before the wait that ended last between the two held it.
      const free = Math.max(this.prevEnd[j], c.end[o.call[j]]);
      let held = -1;
      for (const [lane, ends] of byEnd) {
        if (lane === o.lane[j]) continue;
        const a = countAtMost(ends.length, (k) => o.end[ends[k]], o.start[j]);
        for (let k = a - 1; k >= 0 && o.end[ends[k]] > free; k--) {
          const at = launchedAt(ends[k]);
          if (at === undefined || !(at < c.begin[i])) continue;
          if (held < 0 || o.end[ends[k]] > o.end[held]) held = ends[k];
          break;
        }
      }
      // Where the timing shows nothing (the wait held nothing back), the record call just before it.
      const how: ReleaseHow = held >= 0 ? 'timing' : 'deduced';
      if (held < 0) held = deduced.get(i) ?? -1;
      if (held < 0) continue;
      const known = this.recordAfter.get(held);
      const event = known?.event ?? this.names.get(`after${held}`, `ev_after_op${held}`);
      this.events.add(event);
      if (!known) this.recordAfter.set(held, { event, how, call: i, wait: true });
      this.waitFor.set(i, { event, op: held, how });
    }
  }

  /** The record of an event after op `j`, where an event synchronize whose record the trace lacks was bound to `j`. */
  private inferredRecord(j: number, call: number): GeneratedStep | undefined {
    const r = this.recordAfter.get(j);
    if (!r) return undefined;
    return {
      step: { record: r.event, ...this.onLane(this.t.ops.lane[j]) },
      call,
      ...this.bound(r.how),
      note: r.wait
        ? `${boundWord(r.how)}: records an event after op ${j} ${this.opLabel(j)}, ${r.how === 'timing' ? 'whose end the stream wait of call ' + r.call + " held its stream's next op for" : 'for the stream wait of call ' + r.call + ', whose record call names no stream'} (the trace has no record of its event)`
        : `${boundWord(r.how)}: records an event after op ${j} ${this.opLabel(j)}, which ${this.t.calls.releasedBy[r.call] >= 0 ? 'released' : 'of the ops the trace leaves it between ended last before'} the event synchronize of call ${r.call} (the trace has no record of its event)`,
    };
  }

  /** An event synchronize whose record the trace lacks, as a wait for the record after the op it was bound to. */
  private inferredEventSync(i: number, site?: string): GeneratedStep[] | undefined {
    const op = this.boundOp(i);
    const r = op >= 0 ? this.recordAfter.get(op) : undefined;
    if (!r) return undefined;
    const how = this.boundHow(i);
    const latest = this.t.calls.releasedBy[i] < 0 ? latestCandidate(this.t, i) : undefined;
    const which = latest
      ? `the last to end before the host resumed of the ${latest.candidates.length} ops the trace leaves it between`
      : 'the op that released it';
    const note = `${boundWord(how)}: the trace has no record of its event; it waits for the record after op ${op} ${this.opLabel(op)}, ${which}`;
    return [{ step: { eventSync: r.event }, call: i, ...this.bound(how), note: site ? `${note}; ${site}` : note }];
  }

  /** A stream synchronize that names no stream, on the stream of the op the import found released it. */
  private inferredStreamSync(i: number, site?: string): GeneratedStep[] | undefined {
    const bound = inferredRelease(this.t, i);
    if (!bound) return undefined;
    const note = `${boundWord(bound.how)}: the trace names no stream; it synchronizes the stream of op ${bound.op} ${this.opLabel(bound.op)}, the op that released it`;
    return [
      {
        step: { streamSync: this.stream(this.t.ops.lane[bound.op]) },
        call: i,
        ...this.bound(bound.how),
        note: site ? `${note}; ${site}` : note,
      },
    ];
  }

  /** A step's inferred mark, counted; an exact binding is the trace's own, not an inference. */
  private bound(how: ReleaseHow): Pick<GeneratedStep, 'inferred'> {
    if (how === 'exact') return {};
    this.inferred++;
    return { inferred: how };
  }

  private opLabel(j: number): string {
    return JSON.stringify(str(this.t, this.t.ops.name[j]).slice(0, 60));
  }

  private mark(call: number, why: string): GeneratedStep {
    this.marked++;
    return { step: {}, call, note: `left out: ${why}` };
  }

  /** The steps for one call: usually one; a launch of several kernels gives one each. */
  private steps(i: number): GeneratedStep[] {
    const t = this.t;
    const c = t.calls;
    const site = callSite(t, i) ? callSiteText(t, i) : undefined;
    const one = (step: Record<string, unknown>, note?: string): GeneratedStep[] => [
      { step, call: i, note: note ?? site },
    ];
    const ops = this.opsOf(i);
    const stream = c.stream[i] >= 0 ? this.stream(c.stream[i]) : undefined;
    const on = stream && stream !== 'default' ? { stream } : {};
    switch (c.kind[i]) {
      case CK.launch: {
        const kernels = ops.filter((j) => t.ops.kind[j] === OK.kernel || t.ops.kind[j] === OK.hostFunc);
        if (!kernels.length)
          return [this.mark(i, `${str(t, c.name[i]) || 'launch'} has no kernel in the trace, so no duration`)];
        return kernels.flatMap((j, k) => {
          const launch: GeneratedStep = {
            step: {
              launch: identifier(str(t, t.ops.name[j]) || 'kernel'),
              ...(t.ops.lane[j] !== c.stream[i] || stream === undefined ? this.onLane(t.ops.lane[j]) : on),
              ...this.kernelShape(j),
              ...graphPart(k),
            },
            call: i,
            op: j,
            note: site ?? `${str(t, t.ops.name[j])}`.slice(0, 100),
          };
          const record = this.inferredRecord(j, i);
          return record ? [launch, record] : [launch];
        });
      }
      case CK.record:
      case CK.streamWait:
      case CK.query:
      case CK.eventSync: {
        if (c.kind[i] === CK.eventSync) {
          const bound = this.inferredEventSync(i, site);
          if (bound) return bound;
        }
        const held = c.kind[i] === CK.streamWait ? this.waitFor.get(i) : undefined;
        if (held && stream !== undefined) {
          const why =
            held.how === 'timing'
              ? "at whose end its stream's next op started"
              : 'the last op its thread issued before the record call just before the wait, whose stream the trace does not name';
          const note = `${boundWord(held.how)}: the trace has no record of its event; it waits for the record after op ${held.op} ${this.opLabel(held.op)}, ${why}`;
          return [
            {
              step: { wait: held.event, ...on },
              call: i,
              ...this.bound(held.how),
              note: site ? `${note}; ${site}` : note,
            },
          ];
        }
        if (!c.event[i]) return [this.mark(i, `${str(t, c.name[i])} names no event in the trace`)];
        const kind =
          c.kind[i] === CK.record
            ? 'record'
            : c.kind[i] === CK.streamWait
              ? 'wait'
              : c.kind[i] === CK.query
                ? 'query'
                : 'eventSync';
        if (kind !== 'eventSync' && kind !== 'query' && stream === undefined)
          return [this.mark(i, `${str(t, c.name[i])} names no stream in the trace`)];
        return one({ [kind]: this.event(c.event[i]), ...(kind === 'record' || kind === 'wait' ? on : {}) });
      }
      case CK.streamSync:
        if (stream === undefined)
          return (
            this.inferredStreamSync(i, site) ?? [this.mark(i, 'cudaStreamSynchronize names no stream in the trace')]
          );
        return one({ streamSync: stream });
      case CK.hostFunc: {
        const fn = ops.find((j) => t.ops.kind[j] === OK.hostFunc);
        if (fn === undefined || stream === undefined)
          return [this.mark(i, 'cudaLaunchHostFunc has no host function op or stream in the trace')];
        const body = Math.max(0, Math.round(t.ops.end[fn] - t.ops.start[fn] - this.p.hostFuncGapNs));
        return [
          {
            step: { hostFunc: identifier(str(t, t.ops.name[fn]) || 'fn'), ...on, ns: body },
            call: i,
            op: fn,
            note: site,
          },
        ];
      }
      case CK.deviceSync:
        return one({ deviceSync: c.device[i] ? c.device[i] : true });
      case CK.memcpy:
      case CK.memset:
        return this.copy(i, ops, site);
      default:
        return [];
    }
  }

  /**
   * A kernel step's duration, grid, block and, where the trace shows it, blocks per SM. With them the
   * kernel shares SMs with other streams' kernels as it did; the simulator's duration is one wave's,
   * so the measured one (and `leadNs`, the time it started after it could have) is split over the
   * waves it took, less the kernel's own latency, which the simulator adds once. A kernel that held
   * its stream for less than that latency (queued kernels follow each other sooner than a lone
   * launch's latency: a CUDA graph's short nodes) has none, so that it holds it only as long.
   */
  private kernelShape(j: number, leadNs = 0): Record<string, number> {
    const t = this.t;
    const perSm = this.occupancy.get(kernelSignature(t, j));
    const span = t.ops.end[j] - t.ops.start[j] + leadNs;
    const short = span < this.p.kernelOverheadNs;
    return {
      ns: Math.max(1, Math.round((span - (short ? 0 : this.p.kernelOverheadNs)) / this.waves(j, perSm))),
      ...(short ? { latencyNs: 0 } : {}),
      ...(t.ops.grid[j] > 0 ? { grid: t.ops.grid[j] } : {}),
      ...(t.ops.block[j] > 0 ? { block: t.ops.block[j] } : {}),
      ...(perSm ? { blocksPerSm: perSm } : {}),
    };
  }

  /** How many waves of the GPU's block slots the kernel's grid takes (as the simulator places blocks). */
  private waves(op: number, blocksPerSm?: number): number {
    const p = this.p;
    const grid = this.t.ops.grid[op];
    if (!(grid > 0)) return 1;
    const block = Math.max(1, Math.min(this.t.ops.block[op] || DEFAULT_BLOCK, LIMITS.block));
    const perSm = Math.max(1, Math.min(p.blocksPerSm, Math.floor(p.threadsPerSm / block), blocksPerSm ?? Infinity));
    const atOnce = Math.max(1, Math.floor((p.sms * p.blocksPerSm) / Math.ceil(p.blocksPerSm / perSm)));
    return Math.ceil(grid / atOnce);
  }

  private onLane(lane: number): Record<string, string> {
    const s = this.stream(lane);
    return s === 'default' ? {} : { stream: s };
  }

  private copy(i: number, ops: number[], site?: string): GeneratedStep[] {
    const t = this.t;
    const c = t.calls;
    const op = ops.find((j) => t.ops.kind[j] === OK.memcpy || t.ops.kind[j] === OK.memset);
    const name = str(t, c.name[i]);
    if (op === undefined)
      return [this.mark(i, `${name || 'copy'} has no GPU op in the trace, so no direction or size`)];
    const bytes = t.ops.bytes[op] || c.bytes[i];
    if (!(bytes > 0)) return [this.mark(i, `${name} has no size in the trace`)];
    const async = /async/i.test(name);
    const stream = async ? this.onLane(t.ops.lane[op]) : {};
    if (t.ops.kind[op] === OK.memset)
      return [
        {
          step: { memset: this.buffer('', bytes), ...(async ? { async: true, ...stream } : {}) },
          call: i,
          op,
          note: site,
        },
      ];
    const dir = COPY_KINDS[t.ops.copy[op]];
    let hostMemory: string = HOST_MEMORY[t.ops.hostMemory[op]];
    let note = site;
    if (dir !== 'DtoD' && !hostMemory) {
      // The simulator needs to know; pageable is what a plain host array is, and the note says it was assumed.
      hostMemory = 'pageable';
      note = `host memory not in the trace: assumed pageable${site ? `; ${site}` : ''}`;
      this.marked++;
    }
    const host = () => this.buffer(hostMemory, bytes);
    const dev = () => this.buffer('', bytes);
    const ends: Record<string, [() => string, () => string]> = {
      HtoD: [host, dev],
      DtoH: [dev, host],
      DtoD: [dev, () => this.buffer('', bytes + 1)],
      HtoH: [host, () => this.buffer(hostMemory, bytes + 1)],
    };
    const pair = ends[dir];
    if (!pair)
      return [this.mark(i, `${name} copies ${dir || 'in an unknown direction'}, which a scenario cannot say here`)];
    // The measured duration, not the profile's bandwidth: pageable staging and engine contention are in it.
    // A pageable copy's call returns when the host has drained its staging buffers (S17), which for
    // device-to-host is after the DMA ends; the simulator returns it at the copy's end, so that is the end.
    const drained = hostMemory === 'pageable' ? t.calls.end[i] : t.ops.end[op];
    const took = Math.round(Math.max(t.ops.end[op], drained) - t.ops.start[op]);
    const step = { copy: pair[0](), to: pair[1](), bytes, ...(async ? { async: true, ...stream } : {}) };
    let heldOwnNs: number | undefined;
    if (copyBlocksHost(dir as CopyKind, async, hostMemory as HostMemory)) {
      const free = Math.max(c.begin[i], this.prevEnd[op]);
      heldOwnNs = Math.max(0, Math.round(t.ops.start[op] - free - this.p.copyCallNs));
      this.heldOwn.set(i, heldOwnNs);
    }
    return [{ step: took > 0 ? { ...step, ns: took } : step, call: i, op, note, ...(heldOwnNs ? { heldOwnNs } : {}) }];
  }

  /** The scenario's parts for emitting (./emit.ts): the declarations as they stand, which an edit may have added to. */
  parts(threads: Map<string, GeneratedStep[]>): ScenarioParts {
    const t = this.t;
    return {
      name: `${t.meta.scenario?.name ?? t.meta.source} (from its trace)`,
      source: t.meta.source,
      streams: this.streams,
      events: this.events,
      buffers: this.buffers,
      threads,
      notes: this.overhead
        ? [
            ...this.notes,
            `host gaps less the recorder's own cost: ${this.overhead.perCudaCallNs} ns per CUDA call, ${this.overhead.perRecordFunctionNs} ns per record_function (${this.subtractedNs} ns in all)`,
          ]
        : this.notes,
    };
  }
}

/** The window of ProfilerStep#a to #b (inclusive), from the trace's framework ranges; undefined when it has none. */
export function profilerStepWindow(t: Trace, a: number, b: number): ScenarioWindow | undefined {
  let from = Infinity;
  let to = -Infinity;
  for (let i = 0; i < t.calls.count; i++) {
    if (t.calls.kind[i] !== CK.context) continue;
    const m = /^ProfilerStep#(\d+)$/.exec(str(t, t.calls.name[i]));
    if (!m || +m[1] < a || +m[1] > b) continue;
    from = Math.min(from, t.calls.begin[i]);
    to = Math.max(to, t.calls.end[i]);
  }
  return from < to ? { from, to } : undefined;
}

export const windowFromTraceStart = (t: Trace, fromNs?: number, toNs?: number): ScenarioWindow => {
  const start = traceExtent(t).start;
  return {
    ...(fromNs !== undefined ? { from: start + fromNs } : {}),
    ...(toNs !== undefined ? { to: start + toNs } : {}),
  };
};

export { SYNC_NAMES };
