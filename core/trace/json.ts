// The on-disk form of a Trace (`*.syncscope.json`): JSON with one object per call, op and edge,
// documented by media/schema/trace.schema.json. Loading (json-read.ts) validates and says exactly where it failed.
import {
  RELEASE_HOW,
  ANSWERS,
  CALL_KINDS,
  COPY_KINDS,
  EDGE_KINDS,
  HOST_MEMORY,
  Lane,
  LANE_FIELDS,
  OP_KINDS,
  RELEASED_NONE,
  RELEASED_UNKNOWN,
  Trace,
  TRACE_FORMAT,
  TRACE_VERSION,
  str,
} from './model';

export {
  MAX_NESTING,
  ROW_TABLES,
  TraceFormatError,
  TraceRowReader,
  checkTraceShape,
  parseTrace,
  traceFromJson,
} from './json-read';

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
  if (c.how[i]) o.how = RELEASE_HOW[c.how[i]];
  if (c.site[i]) o.site = c.site[i] - 1;
  return o;
}

/** A lane's row, its fields in LANE_FIELDS order. */
export function laneJson(l: Lane): Json {
  const o: Json = {};
  for (const k of LANE_FIELDS) if (l[k] !== undefined) o[k] = l[k];
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
  yield `"lanes":${JSON.stringify(t.lanes.map(laneJson))},\n`;
  yield* rows('calls', t.calls.count, (i) => callJson(t, i));
  yield* rows('ops', t.ops.count, (i) => opJson(t, i, access.get(i)));
  yield* rows('edges', t.edges.count, (i) => ({
    kind: EDGE_KINDS[t.edges.kind[i]],
    from: t.edges.from[i],
    to: t.edges.to[i],
  }));
  if (t.sites.length) yield `"sites":${JSON.stringify(t.sites)},\n`;
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
