// The on-disk form of a Trace (`*.syncscope.json`): JSON with one object per call, op and edge,
// documented by media/schema/trace.schema.json. Loading validates and says exactly where it failed.
import {
  ANSWERS,
  CALL_KINDS,
  COPY_KINDS,
  EDGE_KINDS,
  Finding,
  HOST_MEMORY,
  Lane,
  OP_KINDS,
  RELEASED_NONE,
  RELEASED_UNKNOWN,
  Trace,
  TraceBuilder,
  TraceMeta,
  TRACE_FORMAT,
  TRACE_VERSION,
  str,
} from './model';

export class TraceFormatError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'TraceFormatError';
  }
}

type Json = Record<string, unknown>;

/** One call as its `*.syncscope.json` row (also the args of the Chrome export's slices). */
export function callJson(t: Trace, i: number): Json {
  const c = t.calls;
  const o: Json = {
    id: i,
    lane: c.lane[i],
    kind: CALL_KINDS[c.kind[i]],
    name: str(t, c.name[i]),
    begin: c.begin[i],
    end: c.end[i],
  };
  if (c.stream[i] >= 0) o.stream = c.stream[i];
  if (c.event[i]) o.event = str(t, c.event[i]);
  if (c.event2[i]) o.event2 = str(t, c.event2[i]);
  if (c.blockedNs[i]) o.blockedNs = c.blockedNs[i];
  const r = c.releasedBy[i];
  if (r !== RELEASED_NONE) o.releasedBy = r === RELEASED_UNKNOWN ? null : [r];
  if (!Number.isNaN(c.unblockNs[i])) o.unblockLatencyNs = c.unblockNs[i];
  if (c.answer[i]) o.answer = ANSWERS[c.answer[i]];
  if (c.status[i]) o.status = str(t, c.status[i]);
  if (!Number.isNaN(c.value[i])) o.valueMs = c.value[i];
  if (c.bytes[i]) o.bytes = c.bytes[i];
  if (c.step[i] >= 0) o.step = c.step[i];
  if (c.line[i]) o.source = { line: c.line[i], column: c.column[i] };
  if (c.context[i]) o.context = str(t, c.context[i]);
  if (c.depth[i]) o.depth = c.depth[i];
  if (c.device[i]) o.device = c.device[i];
  return o;
}

/** One op as its `*.syncscope.json` row; `access` from accessesByOp. */
export function opJson(t: Trace, i: number, access: { r: string[]; w: string[] } | undefined): Json {
  const p = t.ops;
  const o: Json = {
    id: i,
    lane: p.lane[i],
    kind: OP_KINDS[p.kind[i]],
    name: str(t, p.name[i]),
    start: p.start[i],
    end: p.end[i],
  };
  if (p.call[i] >= 0) o.call = p.call[i];
  if (p.grid[i]) o.grid = p.grid[i];
  if (p.block[i]) o.block = p.block[i];
  if (p.bytes[i]) o.bytes = p.bytes[i];
  if (p.copy[i]) o.copy = COPY_KINDS[p.copy[i]];
  if (p.hostMemory[i]) o.hostMemory = HOST_MEMORY[p.hostMemory[i]];
  if (p.event[i]) o.event = str(t, p.event[i]);
  if (!Number.isNaN(p.truthStart[i])) o.truth = [p.truthStart[i], p.truthEnd[i]];
  if (access?.r.length) o.reads = access.r;
  if (access?.w.length) o.writes = access.w;
  return o;
}

export function accessesByOp(t: Trace): Map<number, { r: string[]; w: string[] }> {
  const m = new Map<number, { r: string[]; w: string[] }>();
  const a = t.accesses;
  for (let i = 0; i < a.count; i++) {
    let e = m.get(a.op[i]);
    if (!e) m.set(a.op[i], (e = { r: [], w: [] }));
    (a.write[i] ? e.w : e.r).push(str(t, a.buffer[i]));
  }
  return m;
}

/**
 * Serializes in chunks of about a thousand rows, so that a trace far larger than V8's largest
 * string can still be written: the caller streams the chunks to a file.
 */
export function* traceJsonChunks(t: Trace): Generator<string> {
  const access = accessesByOp(t);
  yield `{"format":"${TRACE_FORMAT}","version":${TRACE_VERSION},\n"meta":${JSON.stringify(t.meta)},\n`;
  yield `"lanes":${JSON.stringify(t.lanes)},\n`;
  yield* rows('calls', t.calls.count, (i) => callJson(t, i));
  yield* rows('ops', t.ops.count, (i) => opJson(t, i, access.get(i)));
  yield* rows('edges', t.edges.count, (i) => ({
    kind: EDGE_KINDS[t.edges.kind[i]],
    from: t.edges.from[i],
    to: t.edges.to[i],
  }));
  yield `"findings":${JSON.stringify(t.findings)}}\n`;
}

function* rows(key: string, count: number, row: (i: number) => Json): Generator<string> {
  yield `"${key}":[`;
  let buf: string[] = [];
  for (let i = 0; i < count; i++) {
    buf.push((i ? ',\n' : '\n') + JSON.stringify(row(i)));
    if (buf.length === 1000) {
      yield buf.join('');
      buf = [];
    }
  }
  yield buf.join('') + '],\n';
}

export const traceToJson = (t: Trace): string => [...traceJsonChunks(t)].join('');

// ---- Loading ----------------------------------------------------------------------------------

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function need<T>(ok: boolean, path: string, detail: string, v: T): T {
  if (!ok) throw new TraceFormatError(path, detail);
  return v;
}
const num = (o: Json, k: string, path: string): number =>
  need(
    typeof o[k] === 'number' && Number.isFinite(o[k]),
    `${path}.${k}`,
    `expected a number, got ${describe(o[k])}`,
    o[k] as number,
  );
const optNum = (o: Json, k: string, path: string): number | undefined =>
  o[k] === undefined ? undefined : num(o, k, path);
const optStr = (o: Json, k: string, path: string): string | undefined =>
  o[k] === undefined
    ? undefined
    : need(typeof o[k] === 'string', `${path}.${k}`, `expected a string, got ${describe(o[k])}`, o[k] as string);
function oneOf<T extends string>(o: Json, k: string, path: string, list: readonly T[]): T {
  const v = o[k];
  return need(
    typeof v === 'string' && (list as readonly string[]).includes(v),
    `${path}.${k}`,
    `expected one of ${list.filter(Boolean).join(', ')}; got ${describe(v)}`,
    v as T,
  );
}
function optOneOf<T extends string>(o: Json, k: string, path: string, list: readonly T[]): T | undefined {
  return o[k] === undefined ? undefined : oneOf(o, k, path, list);
}
function index(o: Json, k: string, path: string, count: number, what: string): number {
  const v = o[k];
  return need(
    Number.isInteger(v) && (v as number) >= 0 && (v as number) < count,
    `${path}.${k}`,
    `expected ${what} id from 0 to ${count - 1}, got ${describe(v)}`,
    v as number,
  );
}
function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  return s.length > 40 ? s.slice(0, 37) + '...' : s;
}
function list(o: Json, k: string, path: string): unknown[] {
  return need(Array.isArray(o[k]), `${path}.${k}`, `expected an array, got ${describe(o[k])}`, o[k] as unknown[]);
}

/** Validates a parsed `.syncscope.json` value and builds the columnar Trace. */
export function traceFromJson(v: unknown): Trace {
  const root = need(isObj(v), '$', 'expected a JSON object', v as Json);
  need(root.format === TRACE_FORMAT, '$.format', `expected "${TRACE_FORMAT}"; this is not a Syncscope trace`, 0);
  need(
    root.version === TRACE_VERSION,
    '$.version',
    `expected ${TRACE_VERSION}, got ${describe(root.version)}; this build reads version ${TRACE_VERSION}`,
    0,
  );
  const meta = need(isObj(root.meta), '$.meta', 'expected an object', root.meta as unknown as TraceMeta);
  oneOf(meta as unknown as Json, 'source', '$.meta', ['simulator', 'gpu', 'pytorch', 'chrome', 'capture']);
  num(meta as unknown as Json, 'alignmentErrorNs', '$.meta');

  const b = new TraceBuilder();
  list(root, 'lanes', '$').forEach((l, i) => readLane(b, l, i));
  const calls = list(root, 'calls', '$');
  const ops = list(root, 'ops', '$');
  calls.forEach((x, i) => readCall(b, x, i, ops.length));
  ops.forEach((x, i) => readOp(b, x, i, calls.length));
  list(root, 'edges', '$').forEach((x, i) => readEdge(b, x, i, calls.length, ops.length));
  const findings = root.findings === undefined ? [] : list(root, 'findings', '$');
  findings.forEach((f, i) => readFinding(b, f, i));
  return b.finish(meta);
}

function readLane(b: TraceBuilder, l: unknown, i: number): void {
  const p = `$.lanes[${i}]`;
  const lane = need(isObj(l), p, 'expected an object', l as Json);
  need(lane.id === i, `${p}.id`, `expected ${i}: lanes are listed in id order`, 0);
  oneOf(lane, 'kind', p, ['thread', 'stream', 'copyEngine']);
  need(typeof lane.name === 'string', `${p}.name`, 'expected a string', 0);
  num(lane, 'device', p);
  const { id: _id, ...rest } = lane as unknown as Lane;
  b.lane(rest);
}

function readCall(b: TraceBuilder, x: unknown, i: number, opCount: number): void {
  const laneCount = b.lanes.length;
  const p = `$.calls[${i}]`;
  const c = need(isObj(x), p, 'expected an object', x as Json);
  need(c.id === undefined || c.id === i, `${p}.id`, `expected ${i}: calls are listed in id order`, 0);
  const rel = c.releasedBy;
  let releasedBy = RELEASED_NONE;
  if (rel === null) releasedBy = RELEASED_UNKNOWN;
  else if (rel !== undefined) {
    need(
      Array.isArray(rel) && rel.every((r) => Number.isInteger(r) && r >= 0 && r < opCount),
      `${p}.releasedBy`,
      `expected null or an array of op ids below ${opCount}, got ${describe(rel)}`,
      0,
    );
    releasedBy = (rel as number[]).length ? (rel as number[])[0] : RELEASED_NONE;
  }
  const src = c.source as Json | undefined;
  b.call({
    lane: index(c, 'lane', p, laneCount, 'a lane'),
    kind: oneOf(c, 'kind', p, CALL_KINDS),
    name: optStr(c, 'name', p),
    begin: num(c, 'begin', p),
    end: num(c, 'end', p),
    stream: c.stream === undefined ? undefined : index(c, 'stream', p, laneCount, 'a lane'),
    event: optStr(c, 'event', p),
    event2: optStr(c, 'event2', p),
    blockedNs: optNum(c, 'blockedNs', p),
    releasedBy,
    unblockNs: optNum(c, 'unblockLatencyNs', p),
    answer: optOneOf(c, 'answer', p, ANSWERS),
    status: optStr(c, 'status', p),
    value: optNum(c, 'valueMs', p),
    bytes: optNum(c, 'bytes', p),
    step: optNum(c, 'step', p),
    line: src && isObj(src) ? num(src, 'line', `${p}.source`) : undefined,
    column: src && isObj(src) ? num(src, 'column', `${p}.source`) : undefined,
    context: optStr(c, 'context', p),
    depth: optNum(c, 'depth', p),
    device: optNum(c, 'device', p),
  });
  need(b.calls.cols.end[i] >= b.calls.cols.begin[i], `${p}.end`, 'must not be before begin', 0);
}

function readOp(b: TraceBuilder, x: unknown, i: number, callCount: number): void {
  const laneCount = b.lanes.length;
  const p = `$.ops[${i}]`;
  const o = need(isObj(x), p, 'expected an object', x as Json);
  need(o.id === undefined || o.id === i, `${p}.id`, `expected ${i}: ops are listed in id order`, 0);
  const truth = o.truth as number[] | undefined;
  if (truth !== undefined)
    need(
      Array.isArray(truth) && truth.length === 2 && truth.every((n) => typeof n === 'number'),
      `${p}.truth`,
      'expected [start, end]',
      0,
    );
  const id = b.op({
    lane: index(o, 'lane', p, laneCount, 'a lane'),
    kind: oneOf(o, 'kind', p, OP_KINDS),
    name: optStr(o, 'name', p),
    start: num(o, 'start', p),
    end: num(o, 'end', p),
    call: o.call === undefined ? undefined : index(o, 'call', p, callCount, 'a call'),
    grid: optNum(o, 'grid', p),
    block: optNum(o, 'block', p),
    bytes: optNum(o, 'bytes', p),
    copy: optOneOf(o, 'copy', p, COPY_KINDS),
    hostMemory: optOneOf(o, 'hostMemory', p, HOST_MEMORY),
    event: optStr(o, 'event', p),
    truthStart: truth?.[0],
    truthEnd: truth?.[1],
  });
  need(b.ops.cols.end[id] >= b.ops.cols.start[id], `${p}.end`, 'must not be before start', 0);
  for (const [key, write] of [
    ['reads', false],
    ['writes', true],
  ] as const) {
    if (o[key] === undefined) continue;
    const names = list(o, key, p);
    names.forEach((n, j) => need(typeof n === 'string', `${p}.${key}[${j}]`, 'expected a buffer name', 0));
    for (const n of names as string[]) b.access(id, n, write);
  }
}

function readEdge(b: TraceBuilder, x: unknown, i: number, callCount: number, opCount: number): void {
  const p = `$.edges[${i}]`;
  const e = need(isObj(x), p, 'expected an object', x as Json);
  const kind = oneOf(e, 'kind', p, EDGE_KINDS);
  const fromCount = kind === 'launch' ? callCount : opCount;
  const toCount = kind === 'release' ? callCount : opCount;
  b.edge(
    kind,
    index(e, 'from', p, fromCount, kind === 'launch' ? 'a call' : 'an op'),
    index(e, 'to', p, toCount, kind === 'release' ? 'a call' : 'an op'),
  );
}

function readFinding(b: TraceBuilder, f: unknown, i: number): void {
  const p = `$.findings[${i}]`;
  const o = need(isObj(f), p, 'expected an object', f as Json);
  oneOf(o, 'severity', p, ['error', 'warning', 'info']);
  need(typeof o.rule === 'string' && typeof o.message === 'string', p, 'expected rule and message strings', 0);
  const finding = o as unknown as Finding;
  b.findings.push({
    ...finding,
    kind: finding.kind ?? finding.rule,
    calls: finding.calls ?? [],
    ops: finding.ops ?? [],
  });
}

/** Parses `.syncscope.json` text; JSON syntax errors name the offset, line and column. */
export function parseTrace(text: string): Trace {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new TraceFormatError('$', `not valid JSON: ${(e as Error).message}`);
  }
  return traceFromJson(v);
}
