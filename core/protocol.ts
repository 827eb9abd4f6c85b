// The one message protocol between the extension (or the standalone page) and the timeline
// webview. Both sides import this module. A Trace's columns are typed arrays, posted as whole
// buffers rather than an object per op, compressed (WireTrace).
import type { Overview } from './overview/types';
import { ACCESS_COLUMNS, CALL_COLUMNS, EDGE_COLUMNS, OP_COLUMNS } from './trace/model';
import type { CallSite, Finding, Lane, Trace, TraceMeta } from './trace/model';
import type { ColumnSchema, Columns, Table } from './trace/table';

/**
 * "Simulate this fix" on findings; "Open as Scenario" in the toolbar; `openSource`: an editor opens
 * the user's files, so the overview's file:line are links (without it, text).
 */
export type Offer = 'simulateFix' | 'openScenario' | 'openSource';

/** What the host side sends to the webview. */
export type ToWebview =
  | {
      type: 'trace';
      trace: Trace;
      title: string;
      /** Where the trace came from, for the header. */
      origin?: string;
      /** What the host does for this trace beyond showing it: the page offers those buttons. */
      offers?: Offer[];
      /** The time range to show first (before and after of a fix share one); else the whole trace. */
      range?: [number, number];
      /** What to fix first (docs/timeline.md, "The overview"): the page opens on it. Absent: the timeline alone. */
      overview?: Overview;
    }
  /** The shown trace's overview (core/overview/build.ts), made after the trace was sent: its predictions take longer. */
  | { type: 'overview'; overview: Overview }
  | { type: 'select'; call?: number; op?: number; reveal?: boolean }
  /** Show this time range: a linked timeline's (the before and after of a fix), whose view this one follows. */
  | { type: 'showRange'; range: [number, number] }
  | { type: 'status'; text: string; busy: boolean }
  | { type: 'error'; message: string };

type TraceMessage = Extract<ToWebview, { type: 'trace' }>;

/** The trace message as the extension posts it: the page unpacks its trace and takes it as `trace`. */
export type WireTraceMessage = Omit<TraceMessage, 'type' | 'trace'> & { type: 'wireTrace'; trace: WireTrace };

/** What the extension posts to the webview: its traces as WireTrace. */
export type PostedToWebview = Exclude<ToWebview, TraceMessage> | WireTraceMessage;

/** What the webview sends back. */
export type FromWebview =
  | { type: 'ready' }
  /** Jump to the scenario line that made a call. */
  | { type: 'revealSource'; line: number; column: number }
  /** Open a file of the user's program (an imported call's site) at a 1-based line (0: its top). */
  | { type: 'openSource'; file: string; line: number }
  | { type: 'selected'; call?: number; op?: number }
  /** The time range now in view, after a pan, a zoom or a reveal (never after a showRange), for a linked timeline. */
  | { type: 'viewed'; range: [number, number] }
  /** Simulate the fix of the finding at this index of the trace's findings. */
  | { type: 'simulateFix'; finding: number }
  /** Open what this timeline shows as an editable scenario. */
  | { type: 'openScenario' }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };

export const SCHEMAS = { calls: CALL_COLUMNS, ops: OP_COLUMNS, edges: EDGE_COLUMNS, accesses: ACCESS_COLUMNS } as const;
export type TableName = keyof typeof SCHEMAS;

/**
 * A Trace with every column as one value `C` made of its bytes: base64 text for embedding in a page,
 * compressed bytes for posting to a webview (WireTrace), so that a large trace is a few long values
 * rather than one JSON object per op. Byte order is the platform's (little endian everywhere this
 * runs).
 */
export interface PackedTrace<C = string> {
  meta: TraceMeta;
  lanes: Lane[];
  strings: string[];
  findings: Finding[];
  sites: CallSite[];
  tables: Record<TableName, { count: number; columns: Record<string, C> }>;
}

/**
 * A trace as the extension posts it to the webview: each column's bytes compressed as deflate-raw.
 * A webview's message crosses a socket in a remote window (SSH, a container, the browser), where a
 * trace's columns of a gigabyte would hold every other message behind them; compressed, they are a
 * tenth of that or less.
 */
export type WireTrace = PackedTrace<Uint8Array>;

/** The byte length of each column of a table of `count` rows. */
export const columnBytes = (name: TableName, key: string, count: number): number =>
  (SCHEMAS[name] as ColumnSchema)[key].BYTES_PER_ELEMENT * count;

export function packTrace<C>(t: Trace, encode: (bytes: Uint8Array) => C): PackedTrace<C> {
  const tables = {} as PackedTrace<C>['tables'];
  for (const name of Object.keys(SCHEMAS) as TableName[]) {
    const table = t[name] as unknown as Record<string, ArrayBufferView> & { count: number };
    const columns: Record<string, C> = {};
    for (const key of Object.keys(SCHEMAS[name])) {
      const v = table[key];
      columns[key] = encode(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    }
    tables[name] = { count: table.count, columns };
  }
  return { meta: t.meta, lanes: t.lanes, strings: t.strings, findings: t.findings, sites: t.sites, tables };
}

/**
 * The Trace of a packed one. A column whose decoded bytes are a whole buffer of the column's size
 * becomes the column as it is; other bytes are copied into a new one.
 */
export function unpackTrace<C>(p: PackedTrace<C>, decode: (packed: C) => Uint8Array): Trace {
  const table = <S extends ColumnSchema>(schema: S, name: TableName): Table<S> => {
    const packed = p.tables?.[name];
    if (!packed) throw new Error(`packed trace lacks table ${name}`);
    const cols = {} as Columns<S>;
    for (const key of Object.keys(schema) as (keyof S & string)[]) {
      const value = packed.columns[key];
      if (value === undefined) throw new Error(`packed trace lacks column ${key}`);
      const bytes = decode(value);
      const size = schema[key].BYTES_PER_ELEMENT * packed.count;
      if (bytes.byteLength !== size)
        throw new Error(`packed column ${key} has ${bytes.byteLength} bytes, expected ${size}`);
      const whole = bytes.byteOffset === 0 && bytes.buffer.byteLength === size && bytes.buffer instanceof ArrayBuffer;
      const col = whole ? new schema[key](bytes.buffer as ArrayBuffer) : new schema[key](packed.count);
      if (!whole) new Uint8Array(col.buffer).set(bytes);
      cols[key] = col as Columns<S>[keyof S & string];
    }
    return Object.assign(cols, { count: packed.count }) as Table<S>;
  };
  return {
    meta: p.meta,
    lanes: p.lanes,
    strings: p.strings,
    findings: p.findings,
    sites: p.sites ?? [],
    calls: table(CALL_COLUMNS, 'calls'),
    ops: table(OP_COLUMNS, 'ops'),
    edges: table(EDGE_COLUMNS, 'edges'),
    accesses: table(ACCESS_COLUMNS, 'accesses'),
  };
}
