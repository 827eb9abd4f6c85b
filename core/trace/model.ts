// The Trace: the one contract between producers (simulator, GPU runtime, importers) and consumers
// (analyses, report, exporters, timeline). In memory it is columnar; on disk it is JSON (json.ts).
import { CALL_KINDS, CK, OK, OP_KINDS, type CallKind, type OpKind } from './kinds';
import { StringTable, Table, TableBuilder } from './table';

export * from './kinds';

export const TRACE_FORMAT = 'syncscope-trace';
export const TRACE_VERSION = 1;

/**
 * Edge kinds. The endpoints' types follow from the kind: `launch` is call -> op, `release` is
 * op -> call, every other kind is op -> op.
 */
export const EDGE_KINDS = ['stream', 'legacy', 'event', 'release', 'launch'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

/** PtoP: between two GPUs' memory (a peer copy, S21). */
export const COPY_KINDS = ['', 'HtoD', 'DtoH', 'DtoD', 'HtoH', 'PtoP'] as const;
export type CopyKind = (typeof COPY_KINDS)[number];

export const HOST_MEMORY = ['', 'pinned', 'pageable'] as const;
export type HostMemory = (typeof HOST_MEMORY)[number];

/**
 * S17, S18: whether a copy makes the host wait. Host to host is done by the host itself; an async
 * copy waits only when its host side is pageable; a synchronous one unless it stays on the GPUs.
 * A copy of unknown direction is not assumed to.
 */
export const copyBlocksHost = (copy: CopyKind, async: boolean, hostMemory: HostMemory | undefined): boolean =>
  copy !== '' && (copy === 'HtoH' || (async ? hostMemory === 'pageable' : copy !== 'DtoD' && copy !== 'PtoP'));

/** Answers a host call got. `error` goes with a `status` string such as cudaErrorNotReady. */
export const ANSWERS = ['', 'ready', 'notReady', 'error'] as const;
export type Answer = (typeof ANSWERS)[number];

/** releasedBy values that are not op ids. */
export const RELEASED_NONE = -1; // nothing was pending: the wait returned at once
export const RELEASED_UNKNOWN = -2; // the data cannot tell which op released the host

/**
 * How a call's releasedBy was found. `exact`: the data binds the wait to its op (a producer that
 * follows the rules, or a recorded binding). `deduced`: the rules leave one candidate. `timing`:
 * inferred from end times alone, shown as "likely".
 */
export const RELEASE_HOW = ['exact', 'deduced', 'timing'] as const;
export type ReleaseHow = (typeof RELEASE_HOW)[number];

/** One frame of user code: a file, a 1-based line (0 when unknown) and the function. */
export interface SourceFrame {
  file: string;
  line: number;
  function: string;
}

/** The largest source line or column: a trace keeps them as 32-bit integers, whichever codec wrote it. */
export const MAX_SOURCE_LINE = 2 ** 31 - 1;

/** A source line (or column) as every reader takes it: an integer from 1 to MAX_SOURCE_LINE. */
export const isSourceLine = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_SOURCE_LINE;

/** A frame's line: a source line, or 0 where the producer did not know it (a module's top level in Kineto's data). */
export const isFrameLine = (v: unknown): v is number => v === 0 || isSourceLine(v);

/**
 * Where in the user's program a call was made. `precision` says what `frame.line` is: `line`,
 * the call's own line; `function`, only the function the call ran in (the line where that
 * function was entered). `stack` is the whole stack, innermost first, library frames included.
 */
export interface CallSite {
  frame: SourceFrame;
  precision: 'line' | 'function';
  stack: SourceFrame[];
  /**
   * The next frame of the user's code outward from `frame`, at its own line: the line that called
   * the function the call was made in (a helper called from two places has two). Only with precision `line`.
   */
  caller?: SourceFrame;
  /**
   * Where the data names no line for the call and a rule placed it at this one, why, in words: a
   * deduction, labelled as such wherever the line is shown.
   */
  deduced?: string;
}

export const CALL_COLUMNS = {
  lane: Uint32Array,
  kind: Uint8Array,
  begin: Float64Array,
  end: Float64Array,
  /** API name, e.g. cudaStreamSynchronize (string id). */
  name: Int32Array,
  /** Stream lane the call targets, or -1. */
  stream: Int32Array,
  /** Event name (string id), 0 for none. For `elapsed`, the start event. */
  event: Int32Array,
  /** For `elapsed`, the end event (string id). */
  event2: Int32Array,
  /** Host time spent blocked on the GPU inside this call. */
  blockedNs: Float64Array,
  /** The op whose completion released this wait, or RELEASED_NONE / RELEASED_UNKNOWN. */
  releasedBy: Int32Array,
  /** Host return time minus the releasing op's end (S16); NaN where it does not apply. */
  unblockNs: Float64Array,
  answer: Uint8Array,
  /** Status name where not success (string id), e.g. cudaErrorNotReady. */
  status: Int32Array,
  /** Elapsed milliseconds for `elapsed`; NaN otherwise. */
  value: Float64Array,
  bytes: Float64Array,
  /** Scenario step index, or -1. */
  step: Int32Array,
  /** 1-based source line and column of the scenario step; 0 when unknown. */
  line: Int32Array,
  column: Int32Array,
  /** Enclosing framework ops, outermost first, joined by " > " (string id). */
  context: Int32Array,
  /** Nesting depth of `context` calls on their lane. */
  depth: Uint8Array,
  /** The GPU a deviceSync synchronized (S21: only that device's streams) or a cudaSetDevice made current; 0 for other calls. */
  device: Uint8Array,
  /** How releasedBy was found: an index into RELEASE_HOW. */
  how: Uint8Array,
  /** Where in the user's program the call was made: 1 + its index in Trace.sites; 0 for none, so zero-filled columns mean none. */
  site: Int32Array,
};

export const OP_COLUMNS = {
  lane: Uint32Array,
  kind: Uint8Array,
  start: Float64Array,
  end: Float64Array,
  /** The call that issued the op, or -1. */
  call: Int32Array,
  name: Int32Array,
  grid: Uint32Array,
  block: Uint32Array,
  bytes: Float64Array,
  copy: Uint8Array,
  hostMemory: Uint8Array,
  /** Event name (string id) for eventRecord / waitEvent ops. */
  event: Int32Array,
  /** The kernel's own %globaltimer span mapped to the host clock (GPU runs); NaN otherwise. */
  truthStart: Float64Array,
  truthEnd: Float64Array,
};

export const EDGE_COLUMNS = { kind: Uint8Array, from: Int32Array, to: Int32Array };

/** Declared buffer accesses by ops: what the hazard analysis reads. */
export const ACCESS_COLUMNS = { op: Int32Array, buffer: Int32Array, write: Uint8Array };

export type CallTable = Table<typeof CALL_COLUMNS>;
export type OpTable = Table<typeof OP_COLUMNS>;
export type EdgeTable = Table<typeof EDGE_COLUMNS>;
export type AccessTable = Table<typeof ACCESS_COLUMNS>;

export type LaneKind = 'thread' | 'stream' | 'copyEngine';

export interface Lane {
  id: number;
  kind: LaneKind;
  name: string;
  device: number;
  /** Streams: created with cudaStreamNonBlocking. */
  nonBlocking?: boolean;
  priority?: number;
  /** Streams: the legacy default stream (stream 0, NULL). */
  legacyDefault?: boolean;
  /** Streams: a per-thread default stream; `thread` names its host thread lane. */
  perThreadDefault?: boolean;
  thread?: number;
  /** The stream's id in the source data (CUDA handle or profiler stream number). */
  handle?: number;
}

/**
 * Every lane field, in one order: written in that order whichever producer built the lane, so
 * that equal traces write equal files.
 */
export const LANE_FIELDS = [
  'id',
  'kind',
  'name',
  'device',
  'nonBlocking',
  'priority',
  'legacyDefault',
  'perThreadDefault',
  'thread',
  'handle',
] as const satisfies readonly (keyof Lane)[];
// Every key of Lane is in the list: a new one that is not fails to compile here.
const everyLaneField: Exclude<keyof Lane, (typeof LANE_FIELDS)[number]> extends never ? true : never = true;
void everyLaneField;

export type TraceSource = 'simulator' | 'gpu' | 'pytorch' | 'chrome' | 'capture';

export interface TraceMeta {
  source: TraceSource;
  device?: { name: string; sms?: number; driver?: string; computeCapability?: string; index?: number };
  /** Every GPU of a run on more than one, by the device number its lanes carry (S21). */
  devices?: { device: number; name: string; sms?: number; index?: number }[];
  /** What the timestamps count from, e.g. "host-monotonic" or "simulated". */
  clock: string;
  /** Bound on the error of mapping GPU times into the host clock, in ns (0 when exact). */
  alignmentErrorNs: number;
  scenario?: { name: string; file?: string };
  profile?: string;
  createdAt?: string;
  /** Free-form provenance notes (importer counts, fallbacks used). */
  notes?: string[];
  /**
   * A Python program: for a capture, whether its calls' Python stacks were read, and the
   * interpreter (`CPython 3.12.3`) or why not; `markers` for a profile whose lines came from
   * `syncscope profile`'s line markers. What a wait without a line says of itself.
   */
  python?: { read: boolean; text: string; markers?: boolean };
  /**
   * The program's own speed: the mean duration of `steps` steps run with no recorder and nothing
   * else of Syncscope's, measured by `syncscope profile` before it recorded. A what-if scales the
   * recorded host time so that the unchanged program runs its steps at this speed.
   */
  plainStep?: PlainStep;
}

/** TraceMeta.plainStep: the mean step `ns` over `steps` steps, each the optimizer's step, or where `stepOn` is given the step it names (a function's every return, or a `file.py:LINE`'s every start). */
export interface PlainStep {
  ns: number;
  steps: number;
  stepOn?: string;
  /**
   * Of `ns`, the mean time per step the script spent in autograd's backward pass, where it ran one:
   * work the engine's threads launch with no Python frames, which a recorder slows by other costs.
   */
  backwardNs?: number;
  /**
   * Of `ns`, the mean time per step the script's own thread spent in the CUDA runtime's synchronizing
   * calls (stream, event and device synchronize, blocking copies), and `otherSyncNs` the other threads'
   * (autograd's engine, loader threads), timed by the sync clock: where the clock ran, the program's
   * waits without a recorder, which the recorder's slower host shortens. They hold the launcher's own
   * synchronize after the last step (core/whatif/plain-waits.ts, plainEndsNs).
   */
  syncNs?: number;
  otherSyncNs?: number;
  /**
   * The mean CPU time per step the script's own thread spent receiving a DataLoader's batches from
   * its worker processes (unpickling them, mapping their shared memory), where the loader does not
   * pin them: DataLoader(pin_memory=True) moves that work to the loader's pin thread.
   */
  batchReceiveNs?: number;
}

/** PlainStep's optional times, each an integer ns of at least 0 wherever a plain step is read. */
export const PLAIN_STEP_TIMES = ['backwardNs', 'syncNs', 'otherSyncNs', 'batchReceiveNs'] as const;

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  rule: string;
  kind: string;
  severity: Severity;
  message: string;
  calls: number[];
  ops: number[];
  source?: { line: number; column: number };
  /** The smallest change that would remove the finding, in words. */
  fix?: string;
  /** Host time the fix would save, where known. */
  savedNs?: number;
}

export interface Trace {
  meta: TraceMeta;
  lanes: Lane[];
  strings: string[];
  calls: CallTable;
  ops: OpTable;
  edges: EdgeTable;
  accesses: AccessTable;
  findings: Finding[];
  /** Call sites in the user's program, shared by the calls made there (calls.site). */
  sites: CallSite[];
}

// ---- Builders ------------------------------------------------------------------------------

export interface CallInit {
  lane: number;
  kind: CallKind;
  begin: number;
  end: number;
  name?: string;
  stream?: number;
  event?: string;
  event2?: string;
  blockedNs?: number;
  releasedBy?: number;
  unblockNs?: number;
  answer?: Answer;
  status?: string;
  value?: number;
  bytes?: number;
  step?: number;
  line?: number;
  column?: number;
  context?: string;
  depth?: number;
  device?: number;
  how?: ReleaseHow;
  /** An index into Trace.sites. */
  site?: number;
}

export interface OpInit {
  lane: number;
  kind: OpKind;
  start: number;
  end: number;
  call?: number;
  name?: string;
  grid?: number;
  block?: number;
  bytes?: number;
  copy?: CopyKind;
  hostMemory?: HostMemory;
  event?: string;
  truthStart?: number;
  truthEnd?: number;
}

/** The one way producers make a Trace. */
export class TraceBuilder {
  readonly strings: StringTable;
  readonly lanes: Lane[] = [];
  readonly calls: TableBuilder<typeof CALL_COLUMNS>;
  readonly ops: TableBuilder<typeof OP_COLUMNS>;
  readonly edges: TableBuilder<typeof EDGE_COLUMNS>;
  readonly accesses: TableBuilder<typeof ACCESS_COLUMNS>;
  readonly findings: Finding[] = [];
  readonly sites: CallSite[] = [];

  /** `capacity`: expected row counts, when the producer knows them, to spare large traces regrowing. */
  constructor(
    strings?: readonly string[],
    capacity: { calls?: number; ops?: number; edges?: number; accesses?: number } = {},
  ) {
    this.strings = new StringTable(strings);
    this.calls = new TableBuilder(CALL_COLUMNS, capacity.calls);
    this.ops = new TableBuilder(OP_COLUMNS, capacity.ops);
    this.edges = new TableBuilder(EDGE_COLUMNS, capacity.edges);
    this.accesses = new TableBuilder(ACCESS_COLUMNS, capacity.accesses ?? 64);
  }

  lane(init: Omit<Lane, 'id'>): number {
    const id = this.lanes.length;
    this.lanes.push({ id, ...init });
    return id;
  }

  call(c: CallInit): number {
    const i = this.callRow(c.lane, CK[c.kind], c.begin, c.end);
    const t = this.calls.cols;
    const s = this.strings;
    if (c.name) t.name[i] = s.id(c.name);
    if (c.stream != null) t.stream[i] = c.stream;
    if (c.event) t.event[i] = s.id(c.event);
    if (c.event2) t.event2[i] = s.id(c.event2);
    if (c.blockedNs !== undefined) t.blockedNs[i] = c.blockedNs;
    if (c.releasedBy != null) t.releasedBy[i] = c.releasedBy;
    if (c.unblockNs != null) t.unblockNs[i] = c.unblockNs;
    if (c.answer) t.answer[i] = ANSWERS.indexOf(c.answer);
    if (c.status) t.status[i] = s.id(c.status);
    if (c.value != null) t.value[i] = c.value;
    if (c.bytes !== undefined) t.bytes[i] = c.bytes;
    if (c.step != null) t.step[i] = c.step;
    if (c.line !== undefined) t.line[i] = c.line;
    if (c.column !== undefined) t.column[i] = c.column;
    if (c.context) t.context[i] = s.id(c.context);
    if (c.depth !== undefined) t.depth[i] = c.depth;
    if (c.device !== undefined) t.device[i] = c.device;
    if (c.how) t.how[i] = RELEASE_HOW.indexOf(c.how);
    if (c.site !== undefined) t.site[i] = c.site + 1;
    return i;
  }

  /**
   * A call of kind code `kind` with every other field at its default, for producers that fill
   * columns themselves (`calls.cols`). Only the defaults that are not 0 are written: a new row is 0.
   */
  callRow(lane: number, kind: number, begin: number, end: number): number {
    const i = this.calls.add();
    const t = this.calls.cols;
    t.lane[i] = lane;
    t.kind[i] = kind;
    t.begin[i] = begin;
    t.end[i] = end;
    t.stream[i] = -1;
    t.releasedBy[i] = RELEASED_NONE;
    t.unblockNs[i] = NaN;
    t.value[i] = NaN;
    t.step[i] = -1;
    return i;
  }

  op(o: OpInit): number {
    const i = this.opRow(o.lane, OK[o.kind], o.start, o.end);
    const t = this.ops.cols;
    const s = this.strings;
    if (o.call != null) t.call[i] = o.call;
    if (o.name) t.name[i] = s.id(o.name);
    if (o.grid !== undefined) t.grid[i] = o.grid;
    if (o.block !== undefined) t.block[i] = o.block;
    if (o.bytes !== undefined) t.bytes[i] = o.bytes;
    if (o.copy) t.copy[i] = COPY_KINDS.indexOf(o.copy);
    if (o.hostMemory) t.hostMemory[i] = HOST_MEMORY.indexOf(o.hostMemory);
    if (o.event) t.event[i] = s.id(o.event);
    if (o.truthStart != null) t.truthStart[i] = o.truthStart;
    if (o.truthEnd != null) t.truthEnd[i] = o.truthEnd;
    return i;
  }

  /** An op of kind code `kind` with every other field at its default (see callRow). */
  opRow(lane: number, kind: number, start: number, end: number): number {
    const i = this.ops.add();
    const t = this.ops.cols;
    t.lane[i] = lane;
    t.kind[i] = kind;
    t.start[i] = start;
    t.end[i] = end;
    t.call[i] = -1;
    t.truthStart[i] = NaN;
    t.truthEnd[i] = NaN;
    return i;
  }

  edge(kind: EdgeKind, from: number, to: number): number {
    const i = this.edges.add();
    const t = this.edges.cols;
    t.kind[i] = EDGE_KINDS.indexOf(kind);
    t.from[i] = from;
    t.to[i] = to;
    return i;
  }

  access(op: number, buffer: string, write: boolean): void {
    const i = this.accesses.add();
    const t = this.accesses.cols;
    t.op[i] = op;
    t.buffer[i] = this.strings.id(buffer);
    t.write[i] = write ? 1 : 0;
  }

  finish(meta: TraceMeta): Trace {
    return {
      meta,
      lanes: this.lanes,
      strings: this.strings.list,
      calls: this.calls.finish(),
      ops: this.ops.finish(),
      edges: this.edges.finish(),
      accesses: this.accesses.finish(),
      findings: this.findings,
      sites: this.sites,
    };
  }
}

// ---- Reading helpers ------------------------------------------------------------------------

export const callKind = (t: Trace, i: number): CallKind => CALL_KINDS[t.calls.kind[i]];
export const opKind = (t: Trace, i: number): OpKind => OP_KINDS[t.ops.kind[i]];
export const edgeKind = (t: Trace, i: number): EdgeKind => EDGE_KINDS[t.edges.kind[i]];
export const releaseHow = (t: Trace, i: number): ReleaseHow => RELEASE_HOW[t.calls.how[i]] ?? 'exact';
/** The user-code site of a call, if the trace knows it. */
export const callSite = (t: Trace, i: number): CallSite | undefined => t.sites[t.calls.site[i] - 1];
export const str = (t: Trace, id: number): string => t.strings[id] ?? '';

/** Total time span covered by the trace's calls and ops. */
export function traceExtent(t: Trace): { start: number; end: number } {
  const [callStart, callEnd] = span(t.calls.begin, t.calls.end, t.calls.count);
  const [opStart, opEnd] = span(t.ops.start, t.ops.end, t.ops.count);
  const start = Math.min(callStart, opStart);
  const end = Math.max(callEnd, opEnd);
  return start <= end ? { start, end } : { start: 0, end: 0 };
}

/** The least of `starts` and the greatest of `ends` (NaN left out). */
function span(starts: Float64Array, ends: Float64Array, n: number): [number, number] {
  let start = Infinity;
  let end = -Infinity;
  for (let i = 0; i < n; i++) {
    if (starts[i] < start) start = starts[i];
    if (ends[i] > end) end = ends[i];
  }
  return [start, end];
}
