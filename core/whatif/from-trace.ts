// Any trace becomes a scenario (docs/whatif.md): its streams, events and buffers, each host thread's
// calls in order with the host time between them as hostWork, and its kernels with their measured
// durations. Its text (JSON with comments, ./emit.ts) says where every step came from, and what the
// trace did not know is marked on the step, never guessed silently.
import { callSiteText } from '../analyze/describe';
import type { Node } from '../scenario/jsonc';
import { LIMITS } from '../scenario/kinds';
import type { SimProfile } from '../simulate/profile';
import { CK, OK } from '../trace/kinds';
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
import { inferredRelease, nonBlockingByOverlap } from './inferred';
import { kernelSignature, occupancyFromQueueing } from './occupancy';
import { gapOverhead, overheadFor, overheadUsed, type OverheadUsed } from './overhead';
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
}

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

/** What the simulator charges the host for a call that does not block: the rest of a measured call is host work. */
function modelledCallNs(kind: number, p: SimProfile): number {
  switch (kind) {
    case CK.launch:
      return p.launchNs;
    case CK.record:
      return p.recordNoTimingNs;
    case CK.streamWait:
      return p.streamWaitNs;
    case CK.query:
      return p.queryNs;
    case CK.eventSync:
    case CK.streamSync:
    case CK.deviceSync:
      return p.syncNs;
    case CK.memcpy:
      return p.copyCallNs;
    case CK.memset:
      return p.memsetCallNs;
    case CK.hostFunc:
      return p.hostFuncCallNs;
    default:
      return 0;
  }
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

/** GPU work the trace has no call for: a captured program's graph launches are not always recorded, only their nodes. */
const orphanWork = (t: Trace, j: number): boolean =>
  t.ops.call[j] < 0 && (t.ops.kind[j] === OK.kernel || t.ops.kind[j] === OK.memcpy || t.ops.kind[j] === OK.memset);

/**
 * Each orphan op (orphanWork) under the last call of the window that ended before the op started: the
 * host launched it in the gap after that call. Ops before the window's first call or after its end are left out.
 */
function orphansAfter(t: Trace, byThread: Map<number, number[]>, w: ScenarioWindow): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const byEnd = [...byThread.values()].flat().sort((a, b) => t.calls.end[a] - t.calls.end[b]);
  const to = w.to ?? Infinity;
  const ops: number[] = [];
  for (let j = 0; j < t.ops.count; j++) if (orphanWork(t, j) && t.ops.start[j] < to) ops.push(j);
  ops.sort((a, b) => t.ops.start[a] - t.ops.start[b] || a - b);
  for (const j of ops) {
    let lo = 0;
    let hi = byEnd.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (t.calls.end[byEnd[mid]] <= t.ops.start[j]) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) continue;
    const after = byEnd[lo - 1];
    (out.get(after) ?? out.set(after, []).get(after)!).push(j);
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
  for (const calls of byThread.values()) start = Math.min(start, t.calls.begin[calls[0]]);
  for (const [lane, calls] of byThread) {
    const name = g.threadName(lane);
    const late = Math.round(t.calls.begin[calls[0]] - start);
    const steps = g.thread(calls);
    if (late > 0) steps.unshift({ step: { hostWork: { ns: late } }, call: -1, note: 'this thread began later' });
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
  private readonly recordAfter = new Map<number, { event: string; how: ReleaseHow; call: number }>();

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
    this.planInferredRecords(byThread);
    this.prevEnd = new Float64Array(t.ops.count).fill(-Infinity);
    const order = [...Array(t.ops.count).keys()].sort((a, b) => t.ops.start[a] - t.ops.start[b] || a - b);
    const lastEnd = new Map<number, number>();
    for (const j of order) {
      this.prevEnd[j] = lastEnd.get(t.ops.lane[j]) ?? -Infinity;
      lastEnd.set(t.ops.lane[j], Math.max(this.prevEnd[j], t.ops.end[j]));
    }
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

  thread(calls: number[]): GeneratedStep[] {
    const t = this.t;
    const out: GeneratedStep[] = [];
    const recorder = this.overhead ? gapOverhead(t, calls, this.overhead) : undefined;
    for (let k = 0; k < calls.length; k++) {
      const i = calls[k];
      const steps = this.steps(i);
      for (const s of steps) if (Object.keys(s.step).length || s.note) out.push(s);
      // The host's own time: the gap to its next call, and what this call took beyond the model's cost of it.
      const next = calls[k + 1];
      if (next === undefined) continue;
      const took = t.calls.end[i] - t.calls.begin[i] - t.calls.blockedNs[i];
      // An inferred record is a call the trace did not make here: the simulator charges it, the host work pays it back.
      const records =
        t.calls.kind[i] === CK.record ? 0 : steps.filter((s) => 'record' in s.step).length * this.p.recordNoTimingNs;
      const own = steps.some((s) => !s.note?.startsWith('left out'))
        ? (this.heldOwn.get(i) ?? Math.max(0, took - modelledCallNs(t.calls.kind[i], this.p) - records))
        : took;
      const gap = Math.round(t.calls.begin[next] - t.calls.end[i] + own);
      const taken = recorder ? Math.min(Math.max(0, gap), Math.round(recorder[k])) : 0;
      this.subtractedNs += taken;
      const work = gap - taken;
      const orphans = this.orphans.get(i);
      if (orphans) this.orphanLaunches(out, i, orphans, work);
      else this.hostWork(out, work);
    }
    return out;
  }

  private hostWork(out: GeneratedStep[], work: number): void {
    if (work <= 0) return;
    // Calls the scenario does not model (stream creation, API queries) fold into the host work around them.
    const prev = out[out.length - 1];
    const held = prev?.call === -1 && 'hostWork' in prev.step ? (prev.step.hostWork as { ns: number }) : undefined;
    if (held) held.ns += work;
    else out.push({ step: { hostWork: { ns: work } }, call: -1 });
  }

  /**
   * Ops that no call of the trace issued (a graph launch's nodes), launched in the host gap `work`
   * after call `i`: host work until the launch that lets the first one start when it did, a launch
   * step per op with its measured duration on its stream, then the rest of the gap less the launches' cost.
   */
  private orphanLaunches(out: GeneratedStep[], i: number, ops: number[], work: number): void {
    const t = this.t;
    const launchNs = this.p.launchNs;
    const lead = Math.max(
      0,
      Math.min(work, Math.round(t.ops.start[ops[0]] - t.calls.end[i] - launchNs - this.p.submitNs)),
    );
    this.hostWork(out, lead);
    let records = 0;
    for (const j of ops) {
      out.push({
        step: { ...this.kernelStep(j), ...this.onLane(t.ops.lane[j]) },
        call: -1,
        op: j,
        note: `no call in the trace issued ${str(t, t.ops.name[j]).slice(0, 80)} (a graph launch's node): launched here`,
      });
      const record = this.inferredRecord(j, -1);
      if (record) {
        out.push(record);
        records++;
      }
    }
    this.hostWork(out, work - lead - ops.length * launchNs - records * this.p.recordNoTimingNs);
  }

  /** A launch step of op `j` with its measured duration; a copy or memset the graph ran is a kernel of that duration here. */
  private kernelStep(j: number): Record<string, unknown> {
    const t = this.t;
    return { launch: identifier(str(t, t.ops.name[j]) || 'kernel'), ...this.kernelShape(j) };
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
      const op = c.releasedBy[i];
      if (op < 0 || this.recordAfter.has(op)) continue;
      const launcher = t.ops.call[op];
      // The record goes after the op's launch step: an op launched outside the scenario has none.
      if (launcher >= 0 ? !issued.has(launcher) : !orphans.has(op)) continue;
      const event = this.names.get(`after${op}`, `ev_after_op${op}`);
      this.events.add(event);
      this.recordAfter.set(op, { event, how: releaseHow(t, i), call: i });
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
      note: `${boundWord(r.how)}: records an event after op ${j} ${this.opLabel(j)}, which released the event synchronize of call ${r.call} (the trace has no record of its event)`,
    };
  }

  /** An event synchronize whose record the trace lacks, as a wait for the record after the op it was bound to. */
  private inferredEventSync(i: number, site?: string): GeneratedStep[] | undefined {
    const op = this.t.calls.releasedBy[i];
    const r = op >= 0 ? this.recordAfter.get(op) : undefined;
    if (!r) return undefined;
    const how = releaseHow(this.t, i);
    const note = `${boundWord(how)}: the trace has no record of its event; it waits for the record after op ${op} ${this.opLabel(op)}, the op that released it`;
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
        return kernels.flatMap((j) => {
          const launch: GeneratedStep = {
            step: {
              launch: identifier(str(t, t.ops.name[j]) || 'kernel'),
              ...(t.ops.lane[j] !== c.stream[i] || stream === undefined ? this.onLane(t.ops.lane[j]) : on),
              ...this.kernelShape(j),
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
   * so the measured one is split over the waves it took.
   */
  private kernelShape(j: number): Record<string, number> {
    const t = this.t;
    const perSm = this.occupancy.get(kernelSignature(t, j));
    return {
      ns: Math.max(1, Math.round((t.ops.end[j] - t.ops.start[j] - this.p.kernelOverheadNs) / this.waves(j, perSm))),
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
