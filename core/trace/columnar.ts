// What the columnar trace file (`*.syncscope`, Apache Arrow IPC) holds and how each column of the
// in-memory Trace maps onto it. Shared by the writer (arrow-write.ts), the reader (arrow-read.ts)
// and the Parquet form, so a column added to CALL_COLUMNS / OP_COLUMNS / ... travels with no change here.
import {
  ACCESS_COLUMNS,
  ANSWERS,
  CALL_COLUMNS,
  CALL_KINDS,
  COPY_KINDS,
  EDGE_COLUMNS,
  EDGE_KINDS,
  HOST_MEMORY,
  OP_COLUMNS,
  OP_KINDS,
  RELEASE_HOW,
  type Trace,
} from './model';
import type { ColumnSchema } from './table';

export type TableName = 'calls' | 'ops' | 'edges' | 'accesses';

export interface TableSpec {
  name: TableName;
  schema: ColumnSchema;
  /** Columns that hold string ids: written as Arrow dictionaries over the trace's strings. */
  strings: ReadonlySet<string>;
  /** Columns that index a fixed list of names: written as dictionaries over those names. */
  enums: Readonly<Record<string, readonly string[]>>;
  /** A column's value where a producer gave none, when not 0: a column holding only that is left out. */
  defaults: Readonly<Record<string, number>>;
}

export const TABLES: readonly TableSpec[] = [
  {
    name: 'calls',
    schema: CALL_COLUMNS,
    strings: new Set(['name', 'event', 'event2', 'status', 'context']),
    enums: { kind: CALL_KINDS, answer: ANSWERS, how: RELEASE_HOW },
    defaults: { stream: -1, releasedBy: -1, unblockNs: NaN, value: NaN, step: -1 },
  },
  {
    name: 'ops',
    schema: OP_COLUMNS,
    strings: new Set(['name', 'event']),
    enums: { kind: OP_KINDS, copy: COPY_KINDS, hostMemory: HOST_MEMORY },
    defaults: { call: -1, truthStart: NaN, truthEnd: NaN },
  },
  { name: 'edges', schema: EDGE_COLUMNS, strings: new Set(), enums: { kind: EDGE_KINDS }, defaults: {} },
  { name: 'accesses', schema: ACCESS_COLUMNS, strings: new Set(['buffer']), enums: {}, defaults: {} },
];

export const defaultOf = (spec: TableSpec, column: string): number => spec.defaults[column] ?? 0;

/** Schema metadata keys. The first stream (lanes) carries the trace-wide ones. */
export const KEY = {
  format: 'syncscope.format',
  version: 'syncscope.version',
  table: 'syncscope.table',
  meta: 'syncscope.meta',
  findings: 'syncscope.findings',
  sites: 'syncscope.sites',
  /** The id of the write that made the file, shared by the outputs of one command. */
  writeId: 'syncscope.writeId',
} as const;

/** Version of the columnar layout (independent of the JSON form's version). */
export const COLUMNAR_VERSION = 1;

/** Rows per record batch: bounded chunks for the writer, and for any reader that streams. */
export const BATCH_ROWS = 1 << 16;

/** An IPC stream starts with the continuation marker 0xFFFFFFFF; JSON and gzip never do. */
export const isArrowStream = (head: Uint8Array): boolean =>
  head.length >= 4 && head[0] === 0xff && head[1] === 0xff && head[2] === 0xff && head[3] === 0xff;

export const tableOf = (t: Trace, name: TableName): { count: number } & Record<string, ArrayLike<number>> =>
  t[name] as unknown as { count: number } & Record<string, ArrayLike<number>>;

/** Each integer width's typed array and the values it holds, narrowest first. */
export const INT_WIDTHS = {
  Int8: { array: Int8Array, min: -(2 ** 7), max: 2 ** 7 - 1 },
  Uint8: { array: Uint8Array, min: 0, max: 2 ** 8 - 1 },
  Int16: { array: Int16Array, min: -(2 ** 15), max: 2 ** 15 - 1 },
  Uint16: { array: Uint16Array, min: 0, max: 2 ** 16 - 1 },
  Int32: { array: Int32Array, min: -(2 ** 31), max: 2 ** 31 - 1 },
  Uint32: { array: Uint32Array, min: 0, max: 2 ** 32 - 1 },
} as const;
export type IntWidth = keyof typeof INT_WIDTHS;

/** The narrowest integer type that holds [min, max], or undefined when none of 32 bits does. */
export const narrowestInt = (min: number, max: number): IntWidth | undefined =>
  (Object.keys(INT_WIDTHS) as IntWidth[]).find((w) => min >= INT_WIDTHS[w].min && max <= INT_WIDTHS[w].max);

/** The values an integer typed array can hold; undefined for floats. */
export const intRangeOf = (a: ArrayLike<number>): { min: number; max: number } | undefined =>
  Object.values(INT_WIDTHS).find((w) => a instanceof w.array);
