// The trace as the extension posts it to a webview (core/protocol WireTrace): each column
// compressed as deflate-raw on libuv's thread pool, so that the extension host's own thread only
// gathers the results. The fastest level: what matters is the bytes that cross the window's socket
// and the time before the first frame, not the last byte saved.
import { constants, deflateRaw } from 'node:zlib';
import { promisify } from 'node:util';
import { packTrace, type WireTrace } from '../core/protocol';
import type { Trace } from '../core/trace/model';

const deflate = promisify(deflateRaw);
const made = new WeakMap<Trace, Promise<WireTrace>>();

/** `trace` compressed for posting; made once per trace, as a page that reloads is sent it again. */
export function wireTrace(trace: Trace): Promise<WireTrace> {
  let wire = made.get(trace);
  if (!wire) {
    wire = compress(trace);
    made.set(trace, wire);
    // A failed compression is tried again by the next post rather than remembered.
    wire.catch(() => made.delete(trace));
  }
  return wire;
}

/**
 * Columns compressed at once. libuv's pool (four threads unless UV_THREADPOOL_SIZE says otherwise)
 * also does the extension host's file reads: two are left to them.
 */
const AT_ONCE = 2;

async function compress(trace: Trace): Promise<WireTrace> {
  const packed = packTrace(trace, (bytes) => bytes);
  const columns = Object.values(packed.tables).flatMap((table) =>
    Object.keys(table.columns).map((key) => ({ columns: table.columns, key })),
  );
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let c = columns[next++]; c; c = columns[next++]) {
      const z = await deflate(c.columns[c.key], { level: constants.Z_BEST_SPEED });
      c.columns[c.key] = new Uint8Array(z.buffer, z.byteOffset, z.byteLength);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  return packed;
}

/** "123.4 MB of columns as 12.3 MB": a trace's columns and what they became on the wire. */
export function wireText(trace: Trace, wire: WireTrace): string {
  let raw = 0;
  for (const table of [trace.calls, trace.ops, trace.edges, trace.accesses])
    for (const c of Object.values(table)) if (ArrayBuffer.isView(c)) raw += c.byteLength;
  let sent = 0;
  for (const table of Object.values(wire.tables)) for (const b of Object.values(table.columns)) sent += b.byteLength;
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  return `${mb(raw)} of columns as ${mb(sent)}`;
}
