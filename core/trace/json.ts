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

/** Names as JSON string literals, quoted once. */
const quoted = (names: readonly string[]): string[] => names.map((n) => JSON.stringify(n));
const CALL_KIND_TEXT = quoted(CALL_KINDS);
const OP_KIND_TEXT = quoted(OP_KINDS);
const EDGE_KIND_TEXT = quoted(EDGE_KINDS);
const ANSWER_TEXT = quoted(ANSWERS);
const HOW_TEXT = quoted(RELEASE_HOW);
const COPY_TEXT = quoted(COPY_KINDS);
const MEMORY_TEXT = quoted(HOST_MEMORY);

/** A number as JSON.stringify writes it: not finite is null. */
const num = (v: number): string => (Number.isFinite(v) ? '' + v : 'null');

/**
 * A trace's rows as `*.syncscope.json` text (also the `args` of the Chrome export's slices), each
 * written straight from the columns: every string of the trace is quoted and escaped once, so a row
 * needs neither an object nor JSON.stringify. The text is what JSON.stringify gives for the row's
 * object, with its keys in the order below.
 */
export class RowText {
  private readonly strings: string[];
  private readonly access: Map<number, { r: number[]; w: number[] }>;

  constructor(private readonly t: Trace) {
    this.strings = quoted(t.strings);
    this.access = accessesByOp(t);
  }

  private str(id: number): string {
    return this.strings[id] ?? '""';
  }

  call(i: number): string {
    const c = this.t.calls;
    let s =
      `{"id":${i},"lane":${c.lane[i]},"kind":${CALL_KIND_TEXT[c.kind[i]]},"name":${this.str(c.name[i])},` +
      `"begin":${num(c.begin[i])},"end":${num(c.end[i])}`;
    if (c.stream[i] >= 0) s += `,"stream":${c.stream[i]}`;
    if (c.event[i]) s += `,"event":${this.str(c.event[i])}`;
    if (c.event2[i]) s += `,"event2":${this.str(c.event2[i])}`;
    if (c.blockedNs[i]) s += `,"blockedNs":${num(c.blockedNs[i])}`;
    const r = c.releasedBy[i];
    if (r !== RELEASED_NONE) s += r === RELEASED_UNKNOWN ? ',"releasedBy":null' : `,"releasedBy":[${r}]`;
    if (!Number.isNaN(c.unblockNs[i])) s += `,"unblockLatencyNs":${num(c.unblockNs[i])}`;
    if (c.answer[i]) s += `,"answer":${ANSWER_TEXT[c.answer[i]]}`;
    if (c.status[i]) s += `,"status":${this.str(c.status[i])}`;
    if (!Number.isNaN(c.value[i])) s += `,"valueMs":${num(c.value[i])}`;
    if (c.bytes[i]) s += `,"bytes":${num(c.bytes[i])}`;
    if (c.step[i] >= 0) s += `,"step":${c.step[i]}`;
    if (c.line[i]) s += `,"source":{"line":${c.line[i]},"column":${c.column[i]}}`;
    if (c.context[i]) s += `,"context":${this.str(c.context[i])}`;
    if (c.depth[i]) s += `,"depth":${c.depth[i]}`;
    if (c.device[i]) s += `,"device":${c.device[i]}`;
    if (c.how[i]) s += `,"how":${HOW_TEXT[c.how[i]]}`;
    if (c.site[i]) s += `,"site":${c.site[i] - 1}`;
    return s + '}';
  }

  op(i: number): string {
    const p = this.t.ops;
    let s =
      `{"id":${i},"lane":${p.lane[i]},"kind":${OP_KIND_TEXT[p.kind[i]]},"name":${this.str(p.name[i])},` +
      `"start":${num(p.start[i])},"end":${num(p.end[i])}`;
    if (p.call[i] >= 0) s += `,"call":${p.call[i]}`;
    if (p.grid[i]) s += `,"grid":${p.grid[i]}`;
    if (p.block[i]) s += `,"block":${p.block[i]}`;
    if (p.bytes[i]) s += `,"bytes":${num(p.bytes[i])}`;
    if (p.copy[i]) s += `,"copy":${COPY_TEXT[p.copy[i]]}`;
    if (p.hostMemory[i]) s += `,"hostMemory":${MEMORY_TEXT[p.hostMemory[i]]}`;
    if (p.event[i]) s += `,"event":${this.str(p.event[i])}`;
    if (!Number.isNaN(p.truthStart[i])) s += `,"truth":[${num(p.truthStart[i])},${num(p.truthEnd[i])}]`;
    const a = this.access.get(i);
    if (a?.r.length) s += `,"reads":${this.list(a.r)}`;
    if (a?.w.length) s += `,"writes":${this.list(a.w)}`;
    return s + '}';
  }

  edge(i: number): string {
    const e = this.t.edges;
    return `{"kind":${EDGE_KIND_TEXT[e.kind[i]]},"from":${e.from[i]},"to":${e.to[i]}}`;
  }

  private list(ids: readonly number[]): string {
    return `[${ids.map((id) => this.str(id)).join(',')}]`;
  }
}

/** A lane's row, its fields in LANE_FIELDS order. */
export function laneJson(l: Lane): Json {
  const o: Json = {};
  for (const k of LANE_FIELDS) if (l[k] !== undefined) o[k] = l[k];
  return o;
}

/** Each op's buffers read and written, as string ids, in the order of the accesses table. */
function accessesByOp(t: Trace): Map<number, { r: number[]; w: number[] }> {
  const m = new Map<number, { r: number[]; w: number[] }>();
  const a = t.accesses;
  for (let i = 0; i < a.count; i++) {
    let e = m.get(a.op[i]);
    if (!e) m.set(a.op[i], (e = { r: [], w: [] }));
    (a.write[i] ? e.w : e.r).push(a.buffer[i]);
  }
  return m;
}

/**
 * Serializes in chunks of about a thousand rows, so that a trace far larger than V8's largest
 * string can still be written: the caller streams the chunks to a file.
 */
export function* traceJsonChunks(t: Trace): Generator<string> {
  const text = new RowText(t);
  yield `{"format":"${TRACE_FORMAT}","version":${TRACE_VERSION},\n"meta":${JSON.stringify(t.meta)},\n`;
  yield `"lanes":${JSON.stringify(t.lanes.map(laneJson))},\n`;
  yield* rows('calls', t.calls.count, (i) => text.call(i));
  yield* rows('ops', t.ops.count, (i) => text.op(i));
  yield* rows('edges', t.edges.count, (i) => text.edge(i));
  if (t.sites.length) yield `"sites":${JSON.stringify(t.sites)},\n`;
  yield `"findings":${JSON.stringify(t.findings)}}\n`;
}

function* rows(key: string, count: number, row: (i: number) => string): Generator<string> {
  yield `"${key}":[`;
  let buf: string[] = [];
  for (let i = 0; i < count; i++) {
    buf.push((i ? ',\n' : '\n') + row(i));
    if (buf.length === 1000) {
      yield buf.join('');
      buf = [];
    }
  }
  yield buf.join('') + '],\n';
}

export const traceToJson = (t: Trace): string => [...traceJsonChunks(t)].join('');
