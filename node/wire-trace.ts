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

async function compress(trace: Trace): Promise<WireTrace> {
  const pending: Promise<void>[] = [];
  const packed = packTrace(trace, (bytes) => bytes);
  for (const table of Object.values(packed.tables))
    for (const [key, bytes] of Object.entries(table.columns))
      pending.push(
        deflate(bytes, { level: constants.Z_BEST_SPEED }).then((z) => {
          table.columns[key] = new Uint8Array(z.buffer, z.byteOffset, z.byteLength);
        }),
      );
  await Promise.all(pending);
  return packed;
}
