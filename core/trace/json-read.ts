// Loading a `*.syncscope.json`: every field, reference and time is checked before the columnar
// Trace is built, so that a hand-edited file fails here, at its line and column, and never later
// in a page. The checks build no text unless one fails; the position is found only then.
import {
  RELEASE_HOW,
  type ReleaseHow,
  ANSWERS,
  CALL_KINDS,
  CallSite,
  COPY_KINDS,
  EDGE_KINDS,
  Finding,
  HOST_MEMORY,
  Lane,
  MAX_SOURCE_LINE,
  OP_KINDS,
  PLAIN_STEP_TIMES,
  RELEASED_NONE,
  RELEASED_UNKNOWN,
  SourceFrame,
  Trace,
  TraceBuilder,
  TraceMeta,
  TRACE_FORMAT,
  TRACE_VERSION,
} from './model';
import { checkShape, JsonPath, lineColumn, offsetOfPath, type Piece } from './json-position';
import {
  amountFault,
  blockedFault,
  describe,
  endFault,
  finiteFault,
  INT32,
  intFault,
  DEVICE_QUEUE,
  laneFault,
  laneKinds,
  type LaneKinds,
  oneOfFault,
  positionFault,
  refFault,
  STREAM,
  THREAD,
  truthFault,
  UINT32,
} from './content-rules';

/**
 * Containers nested deeper than this are refused where the trace keeps what it reads as values
 * (meta, lanes, sites, findings): no trace of ours comes near, and every later walk stays shallow.
 * Rows are read field by field into columns, so a row's other fields are never walked: they may nest
 * as deep as JSON.parse reads, and it does not recurse.
 */
export const MAX_NESTING = 100;

/** The root's arrays of rows: read into columns, and streamed by the chunked reader. */
export const ROW_TABLES: readonly string[] = ['calls', 'ops', 'edges'];
const ROWS = new Set(ROW_TABLES);

export class TraceFormatError extends Error {
  override name = 'TraceFormatError';
  private file?: string;
  private position?: { line: number; column: number };

  constructor(
    readonly segments: JsonPath,
    readonly detail: string,
  ) {
    super();
    this.message = this.text();
  }

  /** The JSON path of the value at fault, e.g. `$.calls[3].lane`. */
  get path(): string {
    return '$' + this.segments.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
  }

  /** Names the file and, given the document's bytes, the line and column of the value at fault. */
  locate(file: string | undefined, chunks?: readonly Uint8Array[], offset?: number): this {
    this.file = file;
    if (chunks) this.position = lineColumn(chunks, offset ?? offsetOfPath(chunks, this.segments));
    this.message = this.text();
    return this;
  }

  private text(): string {
    const at = this.position && `${this.position.line}:${this.position.column}`;
    const where = this.file && at ? `${this.file}:${at}` : (this.file ?? at);
    return `${where ? where + ': ' : ''}${this.path}: ${this.detail}`;
  }
}

/**
 * Checks what JSON.parse cannot see: nesting and root keys given twice (which JSON.parse would
 * drop in silence). `chunks` hold the document's UTF-8 bytes; `pieces`, the parts of them to walk,
 * which may leave out the content of the rows arrays (see checkShape).
 */
export function checkTraceShape(
  chunks: readonly Uint8Array[],
  file?: string,
  pieces: readonly Piece[] = wholeDocument(chunks),
): void {
  const p = checkShape(pieces, MAX_NESTING, ROWS);
  if (!p) return;
  const e =
    p.kind === 'depth'
      ? new TraceFormatError([], `nested deeper than ${MAX_NESTING} levels; expected at most ${MAX_NESTING}`)
      : new TraceFormatError([p.key], `"${p.key}" is given twice; expected each key once`);
  throw e.locate(file, chunks, p.offset);
}

function wholeDocument(chunks: readonly Uint8Array[]): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  for (const bytes of chunks) {
    pieces.push({ bytes, at });
    at += bytes.length;
  }
  return pieces;
}

type Json = Record<string, unknown>;
type Where = readonly (string | number)[];

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(at: Where, key: string | number | undefined, detail: string): never {
  throw new TraceFormatError(key === undefined ? at : [...at, key], detail);
}

/** Fails at `at`.`key` when `fault` names what is wrong (a rule of content-rules.ts). */
function check(fault: string | undefined, at: Where, key: string | number): void {
  if (fault !== undefined) fail(at, key, fault);
}

function num(o: Json, k: string, at: Where): number {
  check(finiteFault(o[k]), at, k);
  return o[k] as number;
}
function optNum(o: Json, k: string, at: Where): number | undefined {
  return o[k] === undefined ? undefined : num(o, k, at);
}
/** A time or size: finite, not negative, and exact as a double (times are integer ns; 2^53 ns is 104 days). */
function amount(o: Json, k: string, at: Where): number {
  check(amountFault(o[k]), at, k);
  return o[k] as number;
}
function optAmount(o: Json, k: string, at: Where): number | undefined {
  return o[k] === undefined ? undefined : amount(o, k, at);
}
function int(o: Json, k: string, at: Where, min: number, max: number): number {
  check(intFault(o[k], min, max), at, k);
  return o[k] as number;
}
function optInt(o: Json, k: string, at: Where, min: number, max: number): number | undefined {
  return o[k] === undefined ? undefined : int(o, k, at, min, max);
}
function str(o: Json, k: string, at: Where): string {
  const v = o[k];
  return typeof v === 'string' ? v : fail(at, k, `got ${describe(v)}; expected a string`);
}
function optStr(o: Json, k: string, at: Where): string | undefined {
  return o[k] === undefined ? undefined : str(o, k, at);
}
function optBool(o: Json, k: string, at: Where): void {
  const v = o[k];
  if (v !== undefined && typeof v !== 'boolean') fail(at, k, `got ${describe(v)}; expected true or false`);
}
function bool(o: Json, k: string, at: Where): void {
  if (o[k] === undefined) fail(at, k, 'is missing; expected true or false');
  optBool(o, k, at);
}
function oneOf<T extends string>(o: Json, k: string, at: Where, names: ReadonlySet<string>): T {
  check(oneOfFault(o[k], names), at, k);
  return o[k] as T;
}
function optOneOf<T extends string>(o: Json, k: string, at: Where, names: ReadonlySet<string>): T | undefined {
  return o[k] === undefined ? undefined : oneOf<T>(o, k, at, names);
}
function obj(v: unknown, at: Where, key?: string | number): Json {
  return isObj(v) ? v : fail(at, key, `got ${describe(v)}; expected an object`);
}
function list(o: Json, k: string, at: Where): unknown[] {
  const v = o[k];
  return Array.isArray(v) ? v : fail(at, k, `got ${describe(v)}; expected an array`);
}
/** A root array that may be left out: `sites`, `findings`. */
export function optionalList(v: unknown, key: string): unknown[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : fail([], key, `got ${describe(v)}; expected an array`);
}
function strings(o: Json, k: string, at: Where): string[] | undefined {
  if (o[k] === undefined) return undefined;
  const names = list(o, k, at);
  for (let j = 0; j < names.length; j++)
    if (typeof names[j] !== 'string') fail([...at, k], j, `got ${describe(names[j])}; expected a string`);
  return names as string[];
}
/** An id into a table of `count` rows. */
function ref(v: unknown, at: Where, key: string | number, count: number, what: string): number {
  check(refFault(v, count, what), at, key);
  return v as number;
}

const set = (names: readonly string[]): ReadonlySet<string> => new Set(names);
const CALL_KIND = set(CALL_KINDS);
const OP_KIND = set(OP_KINDS);
const EDGE_KIND = set(EDGE_KINDS);
const ANSWER = set(ANSWERS);
/** A call row's `how`: absent when exact. */
const HOW = set(RELEASE_HOW.filter((h) => h !== 'exact'));
const COPY = set(COPY_KINDS);
const MEMORY = set(HOST_MEMORY);
const SOURCES = set(['simulator', 'gpu', 'pytorch', 'chrome', 'capture']);
const LANE_KINDS = set(['thread', 'stream', 'copyEngine']);
const SEVERITIES = set(['error', 'warning', 'info']);

/**
 * The references rows make to other tables, checked against those tables' sizes. A row reader that
 * streams the rows (`TraceRowReader`) does not know the sizes yet: it accepts any id a column holds
 * and checks the largest of each kind, and each row's lane kind, once the whole trace is read.
 */
class Refs {
  maxCall = -1;
  maxOp = -1;
  maxSite = -1;
  maxLane = -1;

  constructor(
    readonly calls: number,
    readonly ops: number,
    readonly sites: number,
    /** Known lanes; without them a lane's kind is checked later, column by column. */
    readonly lanes?: readonly Lane[],
  ) {}

  private readonly kinds = new Map<readonly string[], LaneKinds>();
  private laneKinds(kinds: readonly string[]): LaneKinds {
    let to = this.kinds.get(kinds);
    if (!to) this.kinds.set(kinds, (to = laneKinds(this.lanes!, kinds)));
    return to;
  }

  call(v: unknown, at: Where, key: string | number): number {
    const id = ref(v, at, key, this.calls, 'call');
    if (id > this.maxCall) this.maxCall = id;
    return id;
  }
  op(v: unknown, at: Where, key: string | number): number {
    const id = ref(v, at, key, this.ops, 'op');
    if (id > this.maxOp) this.maxOp = id;
    return id;
  }
  site(v: unknown, at: Where, key: string): number {
    const id = ref(v, at, key, this.sites, 'site');
    if (id > this.maxSite) this.maxSite = id;
    return id;
  }
  /** A lane of one kind: a call runs on a thread and targets a stream; an op runs on a stream or copy engine. */
  lane(o: Json, k: string, at: Where, kinds: readonly string[]): number {
    const { lanes } = this;
    const id = ref(o[k], at, k, lanes ? lanes.length : UNKNOWN_COUNT, 'lane');
    if (lanes) check(laneFault(id, this.laneKinds(kinds)), at, k);
    if (id > this.maxLane) this.maxLane = id;
    return id;
  }
}

/** The size a streaming reader gives a table it has not seen whole: any id an Int32 column holds. */
const UNKNOWN_COUNT = INT32;

/** Validates a parsed `.syncscope.json` value and builds the columnar Trace. */
export function traceFromJson(v: unknown): Trace {
  const root = obj(v, []);
  const meta = readRoot(root);
  const size = (k: string): number => (Array.isArray(root[k]) ? (root[k] as unknown[]).length : 0);
  const b = new TraceBuilder(undefined, { calls: size('calls'), ops: size('ops'), edges: size('edges') });
  const lanes = list(root, 'lanes', []);
  for (let i = 0; i < lanes.length; i++) readLane(b, lanes[i], i, lanes.length);
  const calls = list(root, 'calls', []);
  const ops = list(root, 'ops', []);
  const edges = list(root, 'edges', []);
  const findings = optionalList(root.findings, 'findings');
  const sites = optionalList(root.sites, 'sites');
  for (let i = 0; i < sites.length; i++) b.sites.push(readSite(sites[i], i));
  const refs = new Refs(calls.length, ops.length, sites.length, b.lanes);
  for (let i = 0; i < calls.length; i++) readCall(b, calls[i], i, refs);
  for (let i = 0; i < ops.length; i++) readOp(b, ops[i], i, refs);
  for (let i = 0; i < edges.length; i++) readEdge(b, edges[i], i, refs);
  for (let i = 0; i < findings.length; i++) b.findings.push(readFinding(findings[i], i, calls.length, ops.length));
  return b.finish(meta);
}

/** The root's format, version and meta. */
function readRoot(root: Json): TraceMeta {
  if (root.format !== TRACE_FORMAT)
    fail([], 'format', `got ${describe(root.format)}; expected "${TRACE_FORMAT}": this is not a Syncscope trace`);
  if (root.version !== TRACE_VERSION)
    fail([], 'version', `got ${describe(root.version)}; expected ${TRACE_VERSION}, the version this build reads`);
  return readMeta(root.meta);
}

/**
 * Reads the rows of calls, ops and edges as they stream in, straight into the Trace's columns, so
 * that no row object outlives its batch. It only tells valid from not: after any fault `finish`
 * gives undefined, and the caller reads the whole document again with `traceFromJson`, whose
 * first error (and its order of checks) is the one reported.
 */
export class TraceRowReader {
  private readonly b = new TraceBuilder();
  private readonly refs = new Refs(UNKNOWN_COUNT, UNKNOWN_COUNT, UNKNOWN_COUNT);
  private failed = false;

  /** A batch of rows of the root's `key` array, in file order. */
  add(rows: readonly unknown[], key: string): void {
    if (this.failed) return;
    const { b, refs } = this;
    try {
      if (key === 'calls') for (const row of rows) readCall(b, row, b.calls.count, refs);
      else if (key === 'ops') for (const row of rows) readOp(b, row, b.ops.count, refs);
      else if (key === 'edges') for (const row of rows) readEdge(b, row, b.edges.count, refs);
      else this.failed = true;
    } catch (e) {
      if (!(e instanceof TraceFormatError)) throw e;
      this.failed = true;
    }
  }

  /** The Trace, given the root without its rows (each rows array left empty); undefined if anything is wrong. */
  finish(root: Record<string, unknown>): Trace | undefined {
    if (this.failed) return undefined;
    try {
      return this.build(root);
    } catch (e) {
      if (e instanceof TraceFormatError) return undefined;
      throw e;
    }
  }

  private build(v: unknown): Trace | undefined {
    const { b, refs } = this;
    const root = obj(v, []);
    const meta = readRoot(root);
    const lanes = list(root, 'lanes', []);
    for (const k of ROW_TABLES) if (list(root, k, []).length) return undefined;
    for (let i = 0; i < lanes.length; i++) readLane(b, lanes[i], i, lanes.length);
    const findings = optionalList(root.findings, 'findings');
    const sites = optionalList(root.sites, 'sites');
    for (let i = 0; i < sites.length; i++) b.sites.push(readSite(sites[i], i));
    const calls = b.calls.count;
    const ops = b.ops.count;
    if (refs.maxCall >= calls || refs.maxOp >= ops || refs.maxSite >= sites.length) return undefined;
    if (refs.maxLane >= b.lanes.length || !this.laneKindsHold()) return undefined;
    for (let i = 0; i < findings.length; i++) b.findings.push(readFinding(findings[i], i, calls, ops));
    return b.finish(meta);
  }

  /** Each call runs on a thread and targets a stream (or none); each op runs on a stream or copy engine. */
  private laneKindsHold(): boolean {
    const { b } = this;
    const kinds = b.lanes.map((l) => l.kind);
    const c = b.calls.cols;
    for (let i = 0; i < b.calls.count; i++) {
      if (kinds[c.lane[i]] !== 'thread') return false;
      const s = c.stream[i];
      if (s >= 0 && kinds[s] !== 'stream') return false;
    }
    const o = b.ops.cols;
    for (let i = 0; i < b.ops.count; i++) {
      const k = kinds[o.lane[i]];
      if (k !== 'stream' && k !== 'copyEngine') return false;
    }
    return true;
  }
}

/** The root's `meta`. */
export function readMeta(v: unknown): TraceMeta {
  const m = obj(v, [], 'meta');
  const at = ['meta'];
  oneOf(m, 'source', at, SOURCES);
  str(m, 'clock', at);
  amount(m, 'alignmentErrorNs', at);
  if (m.device !== undefined) {
    const d = obj(m.device, at, 'device');
    const dat = ['meta', 'device'];
    str(d, 'name', dat);
    optInt(d, 'sms', dat, 0, INT32);
    optStr(d, 'driver', dat);
    optStr(d, 'computeCapability', dat);
    optInt(d, 'index', dat, 0, INT32);
  }
  if (m.devices !== undefined) {
    const devices = list(m, 'devices', at);
    for (let i = 0; i < devices.length; i++) {
      const dat = ['meta', 'devices', i];
      const d = obj(devices[i], ['meta', 'devices'], i);
      int(d, 'device', dat, 0, 255);
      str(d, 'name', dat);
      optInt(d, 'sms', dat, 0, INT32);
      optInt(d, 'index', dat, 0, INT32);
    }
  }
  if (m.scenario !== undefined) {
    const s = obj(m.scenario, at, 'scenario');
    str(s, 'name', ['meta', 'scenario']);
    optStr(s, 'file', ['meta', 'scenario']);
  }
  optStr(m, 'profile', at);
  optStr(m, 'createdAt', at);
  strings(m, 'notes', at);
  if (m.python !== undefined) {
    const p = obj(m.python, at, 'python');
    bool(p, 'read', ['meta', 'python']);
    str(p, 'text', ['meta', 'python']);
    if (p.markers !== undefined) bool(p, 'markers', ['meta', 'python']);
  }
  if (m.plainStep !== undefined) {
    const p = obj(m.plainStep, at, 'plainStep');
    int(p, 'ns', ['meta', 'plainStep'], 1, Number.MAX_SAFE_INTEGER);
    int(p, 'steps', ['meta', 'plainStep'], 1, INT32);
    optStr(p, 'stepOn', ['meta', 'plainStep']);
    for (const k of PLAIN_STEP_TIMES)
      if (p[k] !== undefined) int(p, k, ['meta', 'plainStep'], 0, Number.MAX_SAFE_INTEGER);
  }
  return m as unknown as TraceMeta;
}

export function readLane(b: TraceBuilder, l: unknown, i: number, count: number): void {
  const at = ['lanes', i];
  const lane = obj(l, ['lanes'], i);
  if (lane.id !== i) fail(at, 'id', `got ${describe(lane.id)}; expected ${i}: lanes are listed in id order`);
  oneOf(lane, 'kind', at, LANE_KINDS);
  str(lane, 'name', at);
  int(lane, 'device', at, 0, 255);
  optBool(lane, 'nonBlocking', at);
  optBool(lane, 'legacyDefault', at);
  optBool(lane, 'perThreadDefault', at);
  optInt(lane, 'priority', at, -INT32, INT32);
  if (lane.thread !== undefined) ref(lane.thread, at, 'thread', count, 'lane');
  optNum(lane, 'handle', at);
  const { id: _id, ...rest } = lane as unknown as Lane;
  b.lane(rest);
}

/** begin/end (or start/end): finite, not negative, in order. */
function span(o: Json, from: string, at: Where): [number, number] {
  const a = amount(o, from, at);
  const z = amount(o, 'end', at);
  check(endFault(from, a, z), at, 'end');
  return [a, z];
}

function readCall(b: TraceBuilder, x: unknown, i: number, refs: Refs): void {
  const at = ['calls', i];
  const c = obj(x, ['calls'], i);
  if (c.id !== undefined && c.id !== i)
    fail(at, 'id', `got ${describe(c.id)}; expected ${i}: calls are listed in id order`);
  const [begin, end] = span(c, 'begin', at);
  const blockedNs = optAmount(c, 'blockedNs', at);
  if (blockedNs !== undefined) check(blockedFault(blockedNs, begin, end), at, 'blockedNs');
  let source: Json | undefined;
  if (c.source !== undefined) {
    source = obj(c.source, at, 'source');
    // A scenario position is 1-based in both parts: a source with no position is left out.
    check(positionFault(source.line), [...at, 'source'], 'line');
    check(positionFault(source.column), [...at, 'source'], 'column');
  }
  b.call({
    lane: refs.lane(c, 'lane', at, THREAD),
    kind: oneOf(c, 'kind', at, CALL_KIND),
    name: optStr(c, 'name', at),
    begin,
    end,
    stream: c.stream === undefined ? undefined : refs.lane(c, 'stream', at, STREAM),
    event: optStr(c, 'event', at),
    event2: optStr(c, 'event2', at),
    blockedNs,
    releasedBy: releasedBy(c.releasedBy, at, refs),
    unblockNs: optAmount(c, 'unblockLatencyNs', at),
    answer: optOneOf(c, 'answer', at, ANSWER),
    status: optStr(c, 'status', at),
    value: optNum(c, 'valueMs', at),
    bytes: optAmount(c, 'bytes', at),
    step: optInt(c, 'step', at, 0, INT32),
    line: source?.line as number | undefined,
    column: source?.column as number | undefined,
    context: optStr(c, 'context', at),
    depth: optInt(c, 'depth', at, 0, 255),
    device: optInt(c, 'device', at, 0, 255),
    how: optOneOf<ReleaseHow>(c, 'how', at, HOW),
    site: c.site === undefined ? undefined : refs.site(c.site, at, 'site'),
  });
}

const PRECISIONS = set(['line', 'function']);

/** One of the top-level `sites`: where in the user's program calls were made. */
export function readSite(x: unknown, i: number): CallSite {
  const at = ['sites', i];
  const o = obj(x, ['sites'], i);
  const stack = list(o, 'stack', at);
  const site: CallSite = {
    frame: readFrame(o.frame, at, 'frame'),
    precision: oneOf(o, 'precision', at, PRECISIONS),
    stack: stack.map((f, j) => readFrame(f, [...at, 'stack'], j)),
  };
  if (o.caller !== undefined) site.caller = readFrame(o.caller, at, 'caller');
  if (o.deduced !== undefined) site.deduced = str(o, 'deduced', at);
  return site;
}

function readFrame(x: unknown, at: Where, key: string | number): SourceFrame {
  const f = obj(x, at, key);
  const where = [...at, key];
  return {
    file: str(f, 'file', where),
    line: int(f, 'line', where, 0, MAX_SOURCE_LINE),
    function: str(f, 'function', where),
  };
}

function releasedBy(rel: unknown, at: Where, refs: Refs): number {
  if (rel === undefined) return RELEASED_NONE;
  if (rel === null) return RELEASED_UNKNOWN;
  if (!Array.isArray(rel)) fail(at, 'releasedBy', `got ${describe(rel)}; expected null or an array of op ids`);
  for (let j = 0; j < rel.length; j++) refs.op(rel[j], [...at, 'releasedBy'], j);
  return rel.length ? (rel[0] as number) : RELEASED_NONE;
}

function readOp(b: TraceBuilder, x: unknown, i: number, refs: Refs): void {
  const at = ['ops', i];
  const o = obj(x, ['ops'], i);
  if (o.id !== undefined && o.id !== i)
    fail(at, 'id', `got ${describe(o.id)}; expected ${i}: ops are listed in id order`);
  const truth = o.truth;
  if (truth !== undefined) check(truthFault(truth), at, 'truth');
  const [start, end] = span(o, 'start', at);
  const id = b.op({
    lane: refs.lane(o, 'lane', at, DEVICE_QUEUE),
    kind: oneOf(o, 'kind', at, OP_KIND),
    name: optStr(o, 'name', at),
    start,
    end,
    call: o.call === undefined ? undefined : refs.call(o.call, at, 'call'),
    grid: optInt(o, 'grid', at, 0, UINT32),
    block: optInt(o, 'block', at, 0, UINT32),
    bytes: optAmount(o, 'bytes', at),
    copy: optOneOf(o, 'copy', at, COPY),
    hostMemory: optOneOf(o, 'hostMemory', at, MEMORY),
    event: optStr(o, 'event', at),
    truthStart: (truth as number[] | undefined)?.[0],
    truthEnd: (truth as number[] | undefined)?.[1],
  });
  for (const n of strings(o, 'reads', at) ?? []) b.access(id, n, false);
  for (const n of strings(o, 'writes', at) ?? []) b.access(id, n, true);
}

function readEdge(b: TraceBuilder, x: unknown, i: number, refs: Refs): void {
  const at = ['edges', i];
  const e = obj(x, ['edges'], i);
  const kind = oneOf<(typeof EDGE_KINDS)[number]>(e, 'kind', at, EDGE_KIND);
  const from = kind === 'launch' ? refs.call(e.from, at, 'from') : refs.op(e.from, at, 'from');
  const to = kind === 'release' ? refs.call(e.to, at, 'to') : refs.op(e.to, at, 'to');
  b.edge(kind, from, to);
}

/** One of the top-level `findings`, its call and op ids checked against those tables' sizes. */
export function readFinding(f: unknown, i: number, callCount: number, opCount: number): Finding {
  const at = ['findings', i];
  const o = obj(f, ['findings'], i);
  oneOf(o, 'severity', at, SEVERITIES);
  const rule = str(o, 'rule', at);
  str(o, 'message', at);
  const kind = optStr(o, 'kind', at);
  const ids = (key: string, count: number, what: string): number[] => {
    if (o[key] === undefined) return [];
    const v = list(o, key, at);
    for (let j = 0; j < v.length; j++) ref(v[j], [...at, key], j, count, what);
    return v as number[];
  };
  const calls = ids('calls', callCount, 'call');
  const ops = ids('ops', opCount, 'op');
  if (o.source !== undefined) {
    const s = obj(o.source, at, 'source');
    check(positionFault(s.line), [...at, 'source'], 'line');
    check(positionFault(s.column), [...at, 'source'], 'column');
  }
  optStr(o, 'fix', at);
  optAmount(o, 'savedNs', at);
  return { ...(o as unknown as Finding), kind: kind ?? rule, calls, ops };
}

const encoder = new TextEncoder();

/** Parses `.syncscope.json` text; `file` names it in errors, which give the line and column. */
export function parseTrace(text: string, file?: string): Trace {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new TraceFormatError([], `not valid JSON: ${(e as Error).message}`).locate(file);
  }
  const chunks = [encoder.encode(text)];
  checkTraceShape(chunks, file);
  try {
    return traceFromJson(v);
  } catch (e) {
    if (e instanceof TraceFormatError) e.locate(file, chunks);
    throw e;
  }
}
