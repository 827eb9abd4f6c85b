// The Parquet form of a trace, for querying many traces together (DuckDB on one machine, Spark on a
// fleet): one Parquet file per table (lanes, calls, ops, edges, accesses), which node/trace-parquet.ts
// puts in a directory, as Spark and DuckDB lay out a dataset. Strings and names are resolved
// (Parquet dictionary-encodes them itself), absent values are nulls, and every row carries `trace`
// (the trace's name), `writeId` (the id of the write that made the file, the same in every table of
// one write) and `id` (its row index), so tables of many traces join on (trace, writeId, id) and rows
// of two writes under one name never match. See docs/trace-file.md for a query.
import { ByteWriter, ParquetWriter, schemaFromColumnData, type ColumnSource } from 'hyparquet-writer';
import { defaultOf, KEY, TABLES, tableOf, type TableSpec } from './columnar';
import { LANE_FIELDS } from './model';
import { TRACE_FORMAT, type Trace } from './model';

/**
 * Rows per Parquet row group. Each group's columns are built as plain arrays (strings resolved) and
 * encoded before the next is built, so writing needs memory for one group, not for a whole table.
 */
export const ROW_GROUP_ROWS = 1 << 17;

type KeyValue = { key: string; value: string };

/** What every row of one write carries: the trace's name and the write's id. */
export interface ParquetIds {
  trace: string;
  writeId: string;
}

/** The tables, in the order they are written: `${name}.parquet` each. */
export const PARQUET_TABLES: readonly string[] = ['lanes', ...TABLES.map((t) => t.name)];

/** Each table's file name and its bytes, in chunks of about one row group, one table at a time. */
export function* traceParquetFiles(
  trace: Trace,
  ids: ParquetIds,
  groupRows = ROW_GROUP_ROWS,
): Generator<{ file: string; chunks: Iterable<Uint8Array> }> {
  const kv = (table: string): KeyValue[] => [
    { key: KEY.format, value: TRACE_FORMAT },
    { key: KEY.table, value: table },
    { key: KEY.writeId, value: ids.writeId },
  ];
  const lanes = (): ColumnSource[] => {
    const out: ColumnSource[] = idColumns(ids, trace.lanes.length);
    for (const key of LANE_FIELDS) {
      const data = trace.lanes.map((l) => (l as unknown as Record<string, unknown>)[key] ?? null);
      const sample = data.find((v) => v !== null);
      const type = typeof sample === 'string' ? 'STRING' : typeof sample === 'boolean' ? 'BOOLEAN' : 'DOUBLE';
      out.push({ name: key, data, type, nullable: true });
    }
    return out;
  };
  yield {
    file: 'lanes.parquet',
    chunks: parquetChunks(trace.lanes.length, lanes, [
      ...kv('lanes'),
      { key: KEY.meta, value: JSON.stringify(trace.meta) },
      { key: KEY.findings, value: JSON.stringify(trace.findings) },
      { key: KEY.sites, value: JSON.stringify(trace.sites) },
    ]),
  };
  for (const spec of TABLES)
    yield {
      file: `${spec.name}.parquet`,
      chunks: parquetChunks(
        tableOf(trace, spec.name).count,
        (a, b) => tableColumns(trace, spec, ids, a, b),
        kv(spec.name),
        groupRows,
      ),
    };
}

/** One Parquet file, a row group at a time: `columns(a, b)` builds rows [a, b) of every column. */
function* parquetChunks(
  count: number,
  columns: (a: number, b: number) => ColumnSource[],
  kvMetadata: KeyValue[],
  groupRows = ROW_GROUP_ROWS,
): Generator<Uint8Array> {
  const writer = new ByteWriter();
  // What has been encoded so far leaves the writer's buffer; its offset keeps counting the file.
  const take = (): Uint8Array => {
    const bytes = new Uint8Array(writer.buffer.slice(0, writer.index));
    writer.index = 0;
    return bytes;
  };
  const pq = new ParquetWriter({ writer, schema: schemaFromColumnData({ columnData: columns(0, 0) }), kvMetadata });
  for (let a = 0; a < count; a += groupRows) {
    const b = Math.min(count, a + groupRows);
    void pq.write({ columnData: columns(a, b), rowGroupSize: b - a });
    yield take();
  }
  void pq.finish();
  yield take();
}

const constant = (name: string, value: string, count: number): ColumnSource => ({
  name,
  data: new Array<string>(count).fill(value),
  type: 'STRING',
});

const idColumns = (ids: ParquetIds, count: number): ColumnSource[] => [
  constant('trace', ids.trace, count),
  constant('writeId', ids.writeId, count),
];

/** Rows [a, b) of a table's columns, with strings and names resolved and absent values null. */
function tableColumns(t: Trace, spec: TableSpec, ids: ParquetIds, a: number, b: number): ColumnSource[] {
  const table = tableOf(t, spec.name);
  const n = b - a;
  const rowIds = new Int32Array(n);
  for (let i = 0; i < n; i++) rowIds[i] = a + i;
  const out: ColumnSource[] = [...idColumns(ids, n), { name: 'id', data: rowIds, type: 'INT32' }];
  for (const [name, ctor] of Object.entries(spec.schema)) {
    const col = table[name];
    const names = spec.enums[name];
    if (spec.strings.has(name) || names) {
      const list = names ?? t.strings;
      out.push({ name, data: Array.from({ length: n }, (_, i) => list[col[a + i]] ?? ''), type: 'STRING' });
    } else if (ctor === Float64Array) {
      const nullable = Number.isNaN(defaultOf(spec, name));
      const values = (col as Float64Array).subarray(a, b);
      const data = nullable ? Array.from(values, (v) => (v === v ? v : null)) : values;
      out.push({ name, data, type: 'DOUBLE', nullable });
    } else if (ctor === Uint32Array) {
      out.push({ name, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(col[a + i])), type: 'INT64' });
    } else out.push({ name, data: Int32Array.from({ length: n }, (_, i) => col[a + i]), type: 'INT32' });
  }
  return out;
}
