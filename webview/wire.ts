// The page's side of the trace as the extension posts it (core/protocol WireTrace): each column
// inflated by the browser's DecompressionStream straight into a buffer of its size, which becomes
// the column. Messages are taken in the order they came: those after a trace wait until it is
// unpacked.
import {
  columnBytes,
  SCHEMAS,
  unpackTrace,
  type PostedToWebview,
  type TableName,
  type ToWebview,
} from '../core/protocol';
import type { Trace } from '../core/trace/model';

/** Inflates deflate-raw `bytes` into a new buffer of exactly `size` bytes, or throws. */
async function inflate(bytes: Uint8Array, size: number): Promise<Uint8Array> {
  const out = new Uint8Array(size);
  const reader = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream('deflate-raw'))
    .getReader();
  let at = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    if (at + r.value.byteLength > size) {
      await reader.cancel();
      throw new Error(`a column inflates past its ${size} bytes`);
    }
    out.set(r.value, at);
    at += r.value.byteLength;
  }
  if (at !== size) throw new Error(`a column inflates to ${at} bytes, expected ${size}`);
  return out;
}

/** The Trace of a posted one. */
export async function unwireTrace(wire: PostedToWebview & { type: 'wireTrace' }): Promise<Trace> {
  const tables = wire.trace.tables;
  const inflated = new Map<Uint8Array, Uint8Array>();
  const pending: Promise<void>[] = [];
  // The schema's columns only: one the posted trace lacks is unpackTrace's error to give.
  for (const name of Object.keys(SCHEMAS) as TableName[])
    for (const key of Object.keys(SCHEMAS[name])) {
      const bytes = tables[name]?.columns[key];
      if (bytes)
        pending.push(
          inflate(bytes, columnBytes(name, key, tables[name].count)).then((b) => void inflated.set(bytes, b)),
        );
    }
  await Promise.all(pending);
  return unpackTrace(wire.trace, (bytes) => inflated.get(bytes) ?? bytes);
}

/**
 * Hands each message to `deliver` in the order `take` was called with them, a posted trace once
 * unpacked. A trace that cannot be unpacked is delivered as an error.
 */
export function orderedInbox(
  deliver: (m: ToWebview) => void,
  /** Told once per posted trace how long it took: where a large trace's time goes, said in the host's log. */
  log: (message: string) => void = () => undefined,
): (m: PostedToWebview | ToWebview) => void {
  let last: Promise<void> = Promise.resolve();
  const take = async (m: PostedToWebview | ToWebview): Promise<void> => {
    if (m.type !== 'wireTrace') return deliver(m);
    const started = performance.now();
    const trace = await unwireTrace(m);
    const inflated = performance.now();
    deliver({ ...m, type: 'trace', trace });
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    log(
      `took "${m.title}": its columns inflated in ${s(inflated - started)}, laid out in ${s(performance.now() - inflated)}`,
    );
  };
  return (m) => {
    last = last
      .then(() => take(m))
      .catch((e: unknown) => deliver({ type: 'error', message: `Cannot read the trace: ${(e as Error).message}` }));
  };
}
