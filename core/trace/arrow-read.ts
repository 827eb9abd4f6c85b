// Reads a `.syncscope` file (arrow-write.ts) straight into the Trace's typed columns: no object per
// row. Its content goes through the same rules as the JSON form's (content-rules.ts): the meta,
// lanes, call sites and findings through the JSON reader's own functions, the columns through
// arrow-check.ts; so the same content gives the same error text. A file that is cut short, corrupt
// or built to hurt gives `file: what is wrong; what would be valid`, never the Arrow library's own
// words. The memory is bounded by the file's size: the structure is checked before the library
// decodes it (arrow-frame.ts), and each table's rows against the bytes its columns carry before the
// reader allocates them.
import { Data, DataType, RecordBatchReader, type RecordBatch, type Schema } from 'apache-arrow';
import { ImportError } from '../import/scan';
import { checkColumns } from './arrow-check';
import { checkArrowFraming, FrameError } from './arrow-frame';
import {
  COLUMNAR_VERSION,
  defaultOf,
  intRangeOf,
  isArrowStream,
  KEY,
  TABLES,
  type TableName,
  type TableSpec,
} from './columnar';
import { describe, intFault, oneOfFault } from './content-rules';
import {
  checkTraceShape,
  optionalList,
  readFinding,
  readLane,
  readMeta,
  readSite,
  TraceFormatError,
} from './json-read';
import { LANE_FIELDS, TRACE_FORMAT, TraceBuilder, type Trace } from './model';
import type { ColumnCtor } from './table';

const VALID =
  'a .syncscope file holds the tables lanes, calls, ops, edges and accesses, each an Arrow IPC stream, as syncscope writes them';
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];

/**
 * The most memory a table's columns may take, per byte its columns carry in the file. A row of
 * calls takes 101 bytes in memory and at least 8 in a file syncscope writes (its names and strings);
 * a file that carries less per row than 1/64 of what its rows take is refused before they are
 * allocated, so that reading a file of N bytes allocates about 64·N bytes at most.
 */
export const MEMORY_PER_FILE_BYTE = 64;

const bad = (detail: string): never => {
  throw new ImportError(detail);
};

/** Decodes a whole `.syncscope` file; `file` names it in errors. */
export function traceFromArrow(bytes: Uint8Array, file: string): Trace {
  try {
    return decode(bytes);
  } catch (e) {
    if (e instanceof ImportError) throw e.inFile(file);
    if (e instanceof TraceFormatError) throw new ImportError(`${place(e)}: ${e.detail}`).inFile(file);
    if (e instanceof FrameError) throw new ImportError(`${e.message}; ${VALID}`).inFile(file);
    throw e;
  }
}

/** Where a content fault lies: a table's row and column, or the JSON path in the metadata. */
function place(e: TraceFormatError): string {
  const [table, row, column] = e.segments;
  if (typeof row !== 'number' || !(table === 'lanes' || TABLES.some((t) => t.name === table))) return e.path;
  return `${table} row ${row}${column === undefined ? '' : `, ${column}`}`;
}

/**
 * Runs a step of the Arrow library over the `table` stream. The structure was checked before, so a
 * failure here is a corruption no check names: it is told in plain words, never the library's.
 */
function library<T>(table: string, step: () => T): T {
  try {
    return step();
  } catch (e) {
    if (e instanceof ImportError) throw e;
    return bad(`the Arrow data of its ${table} table cannot be decoded; the file is corrupt`);
  }
}

type Streams = IterableIterator<RecordBatchReader>;

/** The `index`th stream, which must hold `table`, and its batches. */
function nextTable(streams: Streams, index: number, table: string): { schema: Schema; batches: RecordBatch[] } {
  const next = library(table, () => streams.next());
  const ordinal = ORDINALS[index];
  if (next.done) bad(`not a Syncscope trace file: its ${ordinal} table (${table}) is missing; ${VALID}`);
  const schema = next.value.schema as Schema;
  const md = schema.metadata;
  if (index === 0) checkHead(md);
  const name = md.get(KEY.table);
  if (name !== table) {
    const found = name === undefined ? 'names no table' : `is ${describe(name)}`;
    bad(`not a Syncscope trace file: its ${ordinal} table ${found}; expected ${table}; ${VALID}`);
  }
  return { schema, batches: library(table, () => [...next.value] as RecordBatch[]) };
}

/** The first stream's metadata says what the file is. */
function checkHead(md: Map<string, string>): void {
  if (md.get(KEY.format) !== TRACE_FORMAT)
    bad(`the first stream's metadata lacks ${KEY.format}="${TRACE_FORMAT}"; this Arrow file is not a Syncscope trace`);
  const version = md.get(KEY.version);
  if (version === undefined) bad(`the first stream's metadata lacks ${KEY.version}; expected ${COLUMNAR_VERSION}`);
  if (version !== String(COLUMNAR_VERSION))
    bad(`${KEY.version} is ${describe(version)}; expected ${COLUMNAR_VERSION}, the version this build reads`);
}

function decode(bytes: Uint8Array): Trace {
  if (!isArrowStream(bytes)) bad(`does not start with the Arrow IPC continuation marker; ${VALID}`);
  checkArrowFraming(bytes);
  const streams = library('lanes', () => RecordBatchReader.readAll(bytes));
  const lanes = nextTable(streams, 0, 'lanes');
  const md = lanes.schema.metadata;
  const meta = readMeta(metaJson(md.get(KEY.meta), 'meta', 'an object'));
  const b = new TraceBuilder();
  readLanes(lanes.batches, b);
  const sitesJson = metaJson(md.get(KEY.sites) ?? '[]', 'sites', 'an array');
  const findingsJson = metaJson(md.get(KEY.findings) ?? '[]', 'findings', 'an array');
  const state = { strings: undefined as string[] | undefined };
  const tables = {} as Record<TableName, Record<string, unknown>>;
  TABLES.forEach((spec, k) => {
    tables[spec.name] = readTable(spec, nextTable(streams, k + 1, spec.name).batches, state);
  });
  const trace = { ...b.finish(meta), ...tables, strings: state.strings ?? [''] } as unknown as Trace;
  trace.sites = optionalList(sitesJson, 'sites').map(readSite);
  const findings = optionalList(findingsJson, 'findings');
  trace.findings = findings.map((f, i) => readFinding(f, i, trace.calls.count, trace.ops.count));
  checkColumns(trace);
  return trace;
}

const encoder = new TextEncoder();

/**
 * A metadata value holding JSON (`syncscope.meta`, `.sites`, `.findings`), parsed, then checked for
 * nesting as the JSON form checks it there, counted from the same depth.
 */
function metaJson(text: string | undefined, key: 'meta' | 'sites' | 'findings', what: string): unknown {
  if (text === undefined) return bad(`the metadata lacks syncscope.${key}; expected ${what} as JSON`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return bad(`syncscope.${key} is not valid JSON; expected ${what}`);
  }
  try {
    checkTraceShape([encoder.encode(`{"${key}":`), encoder.encode(text), encoder.encode('}')]);
  } catch (e) {
    // The JSON form places it at its line and column; here the key names it.
    if (e instanceof TraceFormatError) throw new TraceFormatError([key], e.detail);
    throw e;
  }
  return value;
}

/** Each lane is checked as it is read, so that a file of lanes that are not lanes fails at the first. */
function readLanes(batches: RecordBatch[], b: TraceBuilder): void {
  let count = 0;
  for (const batch of batches) count += batch.numRows;
  for (const batch of batches) {
    // Columns of no lane field are left out, as the JSON form would keep no such value.
    const fields = batch.schema.fields.flatMap((f, j) =>
      (LANE_FIELDS as readonly string[]).includes(f.name) ? [[f.name, batch.getChildAt(j)!] as const] : [],
    );
    for (let i = 0; i < batch.numRows; i++) {
      const lane: Record<string, unknown> = {};
      for (const [name, column] of fields) {
        const v: unknown = column.get(i);
        if (v !== null && v !== undefined) lane[name] = v;
      }
      readLane(b, lane, b.lanes.length, count);
    }
  }
}

type Column = Float64Array | Int32Array | Uint32Array | Uint8Array;

/** The bytes a row of `spec` takes in memory. */
const rowBytes = (spec: TableSpec): number =>
  Object.values(spec.schema).reduce((n, ctor: ColumnCtor) => n + ctor.BYTES_PER_ELEMENT, 0);

function readTable(spec: TableSpec, batches: RecordBatch[], state: { strings?: string[] }): Record<string, unknown> {
  // First the columns' types and the bytes they carry, then the budget, and only then the columns.
  let count = 0;
  let carried = 0;
  for (const batch of batches) {
    count += batch.numRows;
    eachColumn(spec, batch, (name, where, data) => {
      carried += batch.numRows * (valuesOf(spec, name, where, data) as Column).BYTES_PER_ELEMENT;
    });
  }
  const perRow = rowBytes(spec);
  if (count * perRow > MEMORY_PER_FILE_BYTE * carried)
    bad(
      `the ${spec.name} table declares ${count} rows but its columns carry ${carried} bytes, too few for them: ` +
        `a row takes ${perRow} bytes in memory, and a file must carry at least 1 byte for every ` +
        `${MEMORY_PER_FILE_BYTE} the reader allocates; the file is corrupt or built to exhaust memory`,
    );
  const out: Record<string, unknown> = { count };
  for (const [name, ctor] of Object.entries(spec.schema)) {
    const col = new (ctor as ColumnCtor)(count);
    const d = defaultOf(spec, name);
    if (d !== 0) col.fill(d);
    out[name] = col;
  }
  let row = 0;
  for (const batch of batches) {
    eachColumn(spec, batch, (name, where, data) => {
      const dst = out[name] as Column;
      if (spec.strings.has(name)) readStrings(where, data, dst, row, state);
      else if (spec.enums[name]) readEnum(where, data, dst, row, spec.enums[name]);
      else readNumbers(where, data, dst, row);
    });
    row += batch.numRows;
  }
  return out;
}

/** Each column of `batch` that this build knows, once; a column it does not know is skipped. */
function eachColumn(
  spec: TableSpec,
  batch: RecordBatch,
  visit: (name: string, where: string, data: Data) => void,
): void {
  if (!batch.numRows) return; // a stream with no batches reads as one empty placeholder
  const seen = new Set<string>();
  const children = batch.data.children;
  batch.schema.fields.forEach((field, j) => {
    const name = field.name;
    const where = `${spec.name} column ${name}`;
    if (seen.has(name)) bad(`${where} is given twice; expected each column once`);
    seen.add(name);
    if (name !== 'count' && Object.hasOwn(spec.schema, name)) visit(name, where, children[j] as Data);
  });
}

/** A column's values (or indices), once its type is one its column can be read from. */
function valuesOf(spec: TableSpec, name: string, where: string, data: Data): ArrayLike<number> {
  const type = data.type as DataType;
  if (spec.strings.has(name) || spec.enums[name]) {
    if (!DataType.isDictionary(type) || !DataType.isUtf8(type.dictionary) || !data.dictionary)
      bad(`${where} is ${String(type)}; expected a dictionary of strings`);
    if (data.nullCount > 0) bad(`${where} has nulls; expected a value in every row`);
  } else if (DataType.isDictionary(type)) bad(`${where} is a dictionary; expected numbers`);
  const v = data.values as ArrayLike<number> | undefined;
  const idx = DataType.isDictionary(type) ? type.indices : type;
  const ok = (DataType.isInt(idx) && idx.bitWidth <= 32) || (DataType.isFloat(idx) && idx.precision !== 0);
  if (!ok || !v || typeof (v as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT !== 'number')
    bad(`${where} is ${String(type)}; expected integers of at most 32 bits or floats`);
  return v!;
}

function readStrings(where: string, data: Data, dst: Column, row: number, state: { strings?: string[] }): void {
  const idx = data.values as ArrayLike<number>;
  const dict = data.dictionary!;
  if (!state.strings) state.strings = dict.toArray() as string[];
  else if (dict.length !== state.strings.length)
    bad(
      `${where} has a dictionary of ${dict.length} strings; expected the trace's ${state.strings.length}, as in the other columns`,
    );
  const n = state.strings.length;
  for (let i = 0; i < data.length; i++) {
    const v = idx[i];
    if (!(v >= 0 && v < n)) bad(`${where}, row ${row + i}: string ${v}; expected a string id from 0 to ${n - 1}`);
    dst[row + i] = v;
  }
}

function readEnum(where: string, data: Data, dst: Column, row: number, names: readonly string[]): void {
  const idx = data.values as ArrayLike<number>;
  const dict = data.dictionary!.toArray() as string[];
  const map = dict.map((s) => {
    const fault = oneOfFault(s, names);
    return fault ? bad(`${where}: ${fault}`) : names.indexOf(s);
  });
  for (let i = 0; i < data.length; i++) {
    const k = map[idx[i]];
    if (k === undefined) bad(`${where}, row ${row + i}: index ${idx[i]}; expected one from 0 to ${map.length - 1}`);
    dst[row + i] = k;
  }
}

/** Numbers into a column of another width: checked against its range, since set() would wrap in silence. */
function readNumbers(where: string, data: Data, dst: Column, row: number): void {
  const src = data.values as ArrayLike<number>;
  const n = data.length;
  if (!(dst instanceof Float64Array)) {
    const { min: lo, max: hi } = intRangeOf(dst)!;
    if (data.nullCount > 0) bad(`${where} has nulls; expected a value in every row`);
    const from = intRangeOf(src);
    // Integers of a type that the column's type holds (what syncscope writes) need no check per row.
    const fits = from !== undefined && from.min >= lo && from.max <= hi;
    for (let i = 0; i < (fits ? 0 : n); i++) {
      const fault = intFault(src[i], lo, hi);
      if (fault) bad(`${where}, row ${row + i}: ${fault}`);
    }
  }
  dst.set((src as Float64Array).subarray(0, n), row);
  if (data.nullCount > 0) {
    const bits = data.nullBitmap!;
    for (let i = 0; i < n; i++) if (!(bits[i >> 3] & (1 << (i & 7)))) dst[row + i] = NaN;
  }
}
