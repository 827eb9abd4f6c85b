// The Parquet form of a trace, for querying many traces together (DuckDB on one machine, Spark on a
// fleet): one Parquet file per table (lanes, calls, ops, edges, accesses), which node/trace-parquet.ts
// puts in a directory, as Spark and DuckDB lay out a dataset. Strings and names are resolved
// (Parquet dictionary-encodes them itself), absent values are nulls, and every row carries `trace`
// (the trace's name) and `id` (its row index), so tables of many traces join on (trace, id).
// See docs/trace-file.md for a query.
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import { defaultOf, KEY, LANE_FIELDS, TABLES, tableOf, type TableSpec } from './columnar';
import { TRACE_FORMAT, type Trace } from './model';

/** Each table's file name and bytes, one at a time. */
export function* traceParquetFiles(trace: Trace, name: string): Generator<{ file: string; bytes: Uint8Array }> {
  const kv = (table: string) => [
    { key: KEY.format, value: TRACE_FORMAT },
    { key: KEY.table, value: table },
  ];
  const lanes: ColumnSource[] = [constant('trace', name, trace.lanes.length)];
  for (const key of LANE_FIELDS) {
    const data = trace.lanes.map((l) => (l as unknown as Record<string, unknown>)[key] ?? null);
    const sample = data.find((v) => v !== null);
    const type = typeof sample === 'string' ? 'STRING' : typeof sample === 'boolean' ? 'BOOLEAN' : 'DOUBLE';
    lanes.push({ name: key, data, type, nullable: true });
  }
  yield encode('lanes.parquet', lanes, [
    ...kv('lanes'),
    { key: KEY.meta, value: JSON.stringify(trace.meta) },
    { key: KEY.findings, value: JSON.stringify(trace.findings) },
    { key: KEY.sites, value: JSON.stringify(trace.sites) },
  ]);
  for (const spec of TABLES) yield encode(`${spec.name}.parquet`, tableColumns(trace, spec, name), kv(spec.name));
}

const encode = (file: string, columnData: ColumnSource[], kvMetadata: { key: string; value: string }[]) => ({
  file,
  bytes: new Uint8Array(parquetWriteBuffer({ columnData, kvMetadata })),
});

const constant = (name: string, value: string, count: number): ColumnSource => ({
  name,
  data: new Array<string>(count).fill(value),
  type: 'STRING',
});

function tableColumns(t: Trace, spec: TableSpec, traceName: string): ColumnSource[] {
  const table = tableOf(t, spec.name);
  const n = table.count;
  const ids = new Int32Array(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  const out: ColumnSource[] = [constant('trace', traceName, n), { name: 'id', data: ids, type: 'INT32' }];
  for (const [name, ctor] of Object.entries(spec.schema)) {
    const col = table[name];
    const names = spec.enums[name];
    if (spec.strings.has(name) || names) {
      const list = names ?? t.strings;
      out.push({ name, data: Array.from({ length: n }, (_, i) => list[col[i]] ?? ''), type: 'STRING' });
    } else if (ctor === Float64Array) {
      const nullable = Number.isNaN(defaultOf(spec, name));
      const data = nullable ? Array.from({ length: n }, (_, i) => (col[i] === col[i] ? col[i] : null)) : col;
      out.push({ name, data: data as ColumnSource['data'], type: 'DOUBLE', nullable });
    } else if (ctor === Uint32Array) {
      out.push({ name, data: BigInt64Array.from(col as Uint32Array, (v) => BigInt(v)), type: 'INT64' });
    } else out.push({ name, data: Int32Array.from(col as ArrayLike<number>), type: 'INT32' });
  }
  return out;
}
