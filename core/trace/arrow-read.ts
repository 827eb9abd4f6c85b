// Reads a `.syncscope` file (arrow-write.ts) straight into the Trace's typed columns: no object per
// row. Every reference is checked as the JSON reader checks it (arrow-check.ts), and a file that is
// cut short, corrupt or built to hurt gives `file: what is wrong; what would be valid`. The work
// is bounded by the file's size: row counts are checked against it before anything is allocated.
import { Data, DataType, RecordBatchReader, type RecordBatch, type Schema } from 'apache-arrow';
import { ImportError } from '../import/scan';
import { checkColumns } from './arrow-check';
import { checkArrowFraming, FrameError } from './arrow-frame';
import { COLUMNAR_VERSION, defaultOf, intRangeOf, isArrowStream, KEY, TABLES, type TableSpec } from './columnar';
import { traceFromJson } from './json-read';
import { TRACE_FORMAT, TRACE_VERSION, type CallSite, type Finding, type Trace, type TraceMeta } from './model';
import type { ColumnCtor } from './table';

const VALID =
  'a .syncscope file is Arrow IPC streams of lanes, calls, ops, edges and accesses, as syncscope writes them';

const bad = (detail: string): never => {
  throw new ImportError(detail);
};

/** Decodes a whole `.syncscope` file; `file` names it in errors. */
export function traceFromArrow(bytes: Uint8Array, file: string): Trace {
  try {
    return decode(bytes);
  } catch (e) {
    if (e instanceof ImportError) throw e.inFile(file);
    if (e instanceof FrameError) throw new ImportError(`${e.message}; ${VALID}`).inFile(file);
    // The Arrow library's own complaint about a broken stream, without its stack.
    throw new ImportError(
      `not a complete Arrow IPC stream (${String((e as Error)?.message ?? e).slice(0, 200)}); ${VALID}`,
    ).inFile(file);
  }
}

function decode(bytes: Uint8Array): Trace {
  if (!isArrowStream(bytes)) bad(`does not start with the Arrow IPC continuation marker; ${VALID}`);
  checkArrowFraming(bytes);
  const readers = RecordBatchReader.readAll(bytes);
  const first = readers.next();
  if (first.done) bad(`holds no Arrow stream; ${VALID}`);
  const lanesReader = first.value;
  const head = lanesReader.schema as Schema;
  const md = head.metadata;
  if (md.get(KEY.format) !== TRACE_FORMAT)
    bad(`the first stream's metadata lacks ${KEY.format}="${TRACE_FORMAT}"; this Arrow file is not a Syncscope trace`);
  if (md.get(KEY.version) !== String(COLUMNAR_VERSION))
    bad(
      `${KEY.version} is ${JSON.stringify(md.get(KEY.version))}; expected ${COLUMNAR_VERSION}, the version this build reads`,
    );
  if (md.get(KEY.table) !== 'lanes') bad(`the first stream is not the lanes table; ${VALID}`);
  const laneRows = readLanes([...lanesReader] as RecordBatch[], bytes.length);
  const meta = metaJson<TraceMeta>(md.get(KEY.meta), KEY.meta, 'an object');
  const findings = metaJson<Finding[]>(md.get(KEY.findings) ?? '[]', KEY.findings, 'an array');
  const sites = metaJson<CallSite[]>(md.get(KEY.sites) ?? '[]', KEY.sites, 'an array');
  if (!Array.isArray(findings)) bad(`${KEY.findings} is not an array; expected the findings as a JSON array`);
  if (!Array.isArray(sites)) bad(`${KEY.sites} is not an array; expected the call sites as a JSON array`);
  // The JSON reader checks the meta and the lanes; they are small.
  let base: Trace;
  try {
    base = traceFromJson({
      format: TRACE_FORMAT,
      version: TRACE_VERSION,
      meta,
      lanes: laneRows,
      calls: [],
      ops: [],
      edges: [],
    });
  } catch (e) {
    return bad(`in the meta or the lanes: ${(e as Error).message}`);
  }
  const trace: Trace = { ...base, findings, sites, strings: [''] };
  const state = { strings: undefined as string[] | undefined };
  for (const spec of TABLES) {
    const next = readers.next();
    if (next.done) bad(`ends before the ${spec.name} table; ${VALID}`);
    const name = (next.value.schema as Schema).metadata.get(KEY.table);
    if (name !== spec.name) bad(`found the ${JSON.stringify(name)} table where ${spec.name} was expected; ${VALID}`);
    (trace as unknown as Record<string, unknown>)[spec.name] = readTable(
      spec,
      [...next.value] as RecordBatch[],
      bytes.length,
      state,
    );
  }
  trace.strings = state.strings ?? [''];
  checkColumns(trace);
  return trace;
}

function metaJson<T>(text: string | undefined, key: string, what: string): T {
  if (text === undefined) return bad(`the metadata lacks ${key}; expected ${what} as JSON`);
  try {
    return JSON.parse(text) as T;
  } catch {
    return bad(`${key} is not valid JSON; expected ${what}`);
  }
}

function readLanes(batches: RecordBatch[], fileBytes: number): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const batch of batches) {
    if (!batch.numRows) continue; // a stream with no batches reads as one empty placeholder
    if (rows.length + batch.numRows > fileBytes) bad(`the lanes table declares more rows than the file can hold`);
    for (let i = 0; i < batch.numRows; i++) rows.push({});
    const base = rows.length - batch.numRows;
    for (const field of batch.schema.fields) {
      const column = batch.getChild(field.name)!;
      if (column.length !== batch.numRows)
        bad(`lanes column ${field.name} has ${column.length} rows; expected ${batch.numRows}, as the table has`);
      for (let i = 0; i < batch.numRows; i++) {
        const v: unknown = column.get(i);
        if (v !== null && v !== undefined) rows[base + i][field.name] = v;
      }
    }
  }
  return rows;
}

type Column = Float64Array | Int32Array | Uint32Array | Uint8Array;

function readTable(
  spec: TableSpec,
  batches: RecordBatch[],
  fileBytes: number,
  state: { strings?: string[] },
): Record<string, unknown> {
  let count = 0;
  for (const b of batches) count += b.numRows;
  // Every written row costs at least one byte (the kind or string index), so more rows than bytes is a lie.
  if (count > fileBytes)
    bad(`the ${spec.name} table declares ${count} rows, more than the file's ${fileBytes} bytes can hold`);
  const out: Record<string, unknown> = { count };
  for (const [name, ctor] of Object.entries(spec.schema)) {
    const col = new (ctor as ColumnCtor)(count);
    const d = defaultOf(spec, name);
    if (d !== 0) col.fill(d);
    out[name] = col;
  }
  let row = 0;
  for (const batch of batches) {
    if (!batch.numRows) continue; // a stream with no batches reads as one empty placeholder
    const seen = new Set<string>();
    const children = batch.data.children;
    batch.schema.fields.forEach((field, j) => {
      const name = field.name;
      const where = `${spec.name} column ${name}`;
      if (seen.has(name)) bad(`${where} is given twice; expected each column once`);
      seen.add(name);
      const dst = out[name] as Column | undefined;
      if (!dst || name === 'count') return; // a column this build does not know: skipped
      const data = children[j] as Data;
      if (!data || data.length !== batch.numRows || data.offset !== 0)
        bad(`${where} has ${data?.length ?? 0} rows in a batch of ${batch.numRows}; expected as many as the table`);
      if (spec.strings.has(name)) readStrings(where, data, dst, row, state);
      else if (spec.enums[name]) readEnum(where, data, dst, row, spec.enums[name]);
      else readNumbers(where, data, dst, row);
    });
    row += batch.numRows;
  }
  return out;
}

function indices(where: string, data: Data): ArrayLike<number> {
  const type = data.type as DataType;
  if (!DataType.isDictionary(type) || !DataType.isUtf8(type.dictionary) || !data.dictionary)
    bad(`${where} is ${String(type)}; expected a dictionary of strings`);
  if (data.nullCount > 0) bad(`${where} has nulls; expected a value in every row`);
  return values(where, data);
}

function values(where: string, data: Data): ArrayLike<number> {
  const v = data.values as ArrayLike<number> | undefined;
  const type = data.type as DataType;
  const idx = DataType.isDictionary(type) ? type.indices : type;
  const ok = (DataType.isInt(idx) && idx.bitWidth <= 32) || (DataType.isFloat(idx) && idx.precision !== 0);
  if (!ok || !v || typeof (v as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT !== 'number')
    bad(`${where} is ${String(type)}; expected integers of at most 32 bits or floats`);
  if (v!.length < data.length)
    bad(`${where} holds ${v!.length} values for ${data.length} rows; the file is cut short or corrupt`);
  return v!;
}

function readStrings(where: string, data: Data, dst: Column, row: number, state: { strings?: string[] }): void {
  const idx = indices(where, data);
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
  const idx = indices(where, data);
  const dict = data.dictionary!.toArray() as string[];
  const map = dict.map((s) => {
    const k = names.indexOf(s);
    return k >= 0
      ? k
      : bad(`${where}: unknown value ${JSON.stringify(s)}; expected one of ${names.filter(Boolean).join(', ')}`);
  });
  for (let i = 0; i < data.length; i++) {
    const k = map[idx[i]];
    if (k === undefined) bad(`${where}, row ${row + i}: index ${idx[i]}; expected one from 0 to ${map.length - 1}`);
    dst[row + i] = k;
  }
}

/** Numbers into a column of another width: checked against its range, since set() would wrap in silence. */
function readNumbers(where: string, data: Data, dst: Column, row: number): void {
  if (DataType.isDictionary(data.type)) bad(`${where} is a dictionary; expected numbers`);
  const src = values(where, data);
  const n = data.length;
  const isFloatDst = dst instanceof Float64Array;
  if (!isFloatDst) {
    const { min: lo, max: hi } = intRangeOf(dst)!;
    if (data.nullCount > 0) bad(`${where} has nulls; expected a value in every row`);
    const integral = DataType.isInt(data.type);
    const from = intRangeOf(src);
    // Integers of a type that the column's type holds (what syncscope writes) need no check per row.
    const fits = integral && from !== undefined && from.min >= lo && from.max <= hi;
    for (let i = 0; i < (fits ? 0 : n); i++) {
      const v = src[i];
      if (!(v >= lo && v <= hi) || (!integral && !Number.isInteger(v)))
        bad(`${where}, row ${row + i}: ${v}; expected an integer from ${lo} to ${hi}`);
    }
  }
  dst.set((src as Float64Array).subarray(0, n), row);
  if (data.nullCount > 0) {
    const bits = data.nullBitmap;
    if (!bits || bits.length < (n + 7) >> 3) bad(`${where}: the validity bitmap is cut short; the file is corrupt`);
    for (let i = 0; i < n; i++) if (!(bits![i >> 3] & (1 << (i & 7)))) dst[row + i] = NaN;
  }
}
