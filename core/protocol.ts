// The one message protocol between the extension (or the standalone page) and the timeline
// webview. Both sides import this module. A Trace is posted as it is: its columns are typed
// arrays, which structured clone copies as buffers (and `transferables` lets a worker hand over).
import type { Trace } from './trace/model';

/** What the host side sends to the webview. */
export type ToWebview =
  | { type: 'trace'; trace: Trace; title: string; /** Where the trace came from, for the header. */ origin?: string }
  | { type: 'select'; call?: number; op?: number; reveal?: boolean }
  | { type: 'status'; text: string; busy: boolean }
  | { type: 'error'; message: string };

/** What the webview sends back. */
export type FromWebview =
  | { type: 'ready' }
  /** Jump to the scenario line that made a call. */
  | { type: 'revealSource'; line: number; column: number }
  | { type: 'selected'; call?: number; op?: number }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };

/** The buffers of every column of a trace, for postMessage's transfer list. */
export function transferables(trace: Trace): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const table of [trace.calls, trace.ops, trace.edges, trace.accesses]) {
    for (const v of Object.values(table)) {
      if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer && !out.includes(v.buffer)) out.push(v.buffer);
    }
  }
  return out;
}
