// The one message protocol between the extension (or the standalone page) and the timeline
// webview. Both sides import this module. A Trace is posted as it is: its columns are typed
// arrays, which structured clone copies as whole buffers rather than an object per op.
import type { Overview } from './overview/types';
import { ACCESS_COLUMNS, CALL_COLUMNS, EDGE_COLUMNS, OP_COLUMNS } from './trace/model';
import type { CallSite, Finding, Lane, Trace, TraceMeta } from './trace/model';
import { tableFrom, type ColumnSchema, type Table } from './trace/table';

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
type TableName = keyof typeof SCHEMAS;

/**
 * A Trace for embedding in a page: every column as base64 of its bytes, so that a large trace is
 * a few long strings rather than one JSON object per op. Byte order is the platform's (little
 * endian everywhere this runs).
 */
export interface PackedTrace {
  meta: TraceMeta;
  lanes: Lane[];
  strings: string[];
  findings: Finding[];
  sites: CallSite[];
  tables: Record<TableName, { count: number; columns: Record<string, string> }>;
}

export function packTrace(t: Trace, toBase64: (bytes: Uint8Array) => string): PackedTrace {
  const tables = {} as PackedTrace['tables'];
  for (const name of Object.keys(SCHEMAS) as TableName[]) {
    const table = t[name] as unknown as Record<string, ArrayBufferView> & { count: number };
    const columns: Record<string, string> = {};
    for (const key of Object.keys(SCHEMAS[name])) {
      const v = table[key];
      columns[key] = toBase64(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    }
    tables[name] = { count: table.count, columns };
  }
  return { meta: t.meta, lanes: t.lanes, strings: t.strings, findings: t.findings, sites: t.sites, tables };
}

export function unpackTrace(p: PackedTrace, fromBase64: (text: string) => Uint8Array): Trace {
  const table = <S extends ColumnSchema>(schema: S, packed: PackedTrace['tables'][TableName]): Table<S> =>
    tableFrom(schema, packed.count, (cols) => {
      for (const key of Object.keys(schema) as (keyof S & string)[]) {
        const text = packed.columns[key];
        if (text === undefined) throw new Error(`packed trace lacks column ${key}`);
        const bytes = fromBase64(text);
        if (bytes.byteLength !== cols[key].byteLength)
          throw new Error(`packed column ${key} has ${bytes.byteLength} bytes, expected ${cols[key].byteLength}`);
        new Uint8Array(cols[key].buffer).set(bytes);
      }
    });
  return {
    meta: p.meta,
    lanes: p.lanes,
    strings: p.strings,
    findings: p.findings,
    sites: p.sites ?? [],
    calls: table(CALL_COLUMNS, p.tables.calls),
    ops: table(OP_COLUMNS, p.tables.ops),
    edges: table(EDGE_COLUMNS, p.tables.edges),
    accesses: table(ACCESS_COLUMNS, p.tables.accesses),
  };
}
