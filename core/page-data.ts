// The standalone page's embedded trace as JSON chunks: the same text as
// `JSON.stringify({ title, trace: packTrace(trace), overview })` with every "<" escaped, but never one
// string, so a trace of any size that loads can be written. Each column's base64 is cut at a multiple
// of three bytes, where base64 of the pieces joins into base64 of the whole. The overview is small
// (a few lines, findings and iterations) and goes as one chunk.
import type { Overview } from './overview/types';
import { SCHEMAS } from './protocol';
import type { Trace } from './trace/model';

/** Bytes of a column encoded per chunk: a multiple of 3. */
const COLUMN_SLICE = 3 << 20;
/** Items of an array (strings, lanes, findings, sites) stringified per chunk. */
const ITEMS = 4096;

// JSON cannot hold "<" outside strings; inside them "\u003c" reads the same, and cannot close the data block.
const escapeLt = (json: string): string => json.replace(/</g, '\\u003c');
const json = (v: unknown): string => escapeLt(JSON.stringify(v) ?? 'null');

/** The embedded-data JSON for `trace` and its overview, in chunks; `toBase64` as for packTrace. */
export function* pageDataChunks(
  trace: Trace,
  title: string,
  toBase64: (bytes: Uint8Array) => string,
  overview?: Overview,
): Generator<string> {
  yield `{"title":${json(title)},"trace":{"meta":${json(trace.meta)},"lanes":`;
  yield* arrayChunks(trace.lanes);
  yield ',"strings":';
  yield* arrayChunks(trace.strings);
  yield ',"findings":';
  yield* arrayChunks(trace.findings);
  yield ',"sites":';
  yield* arrayChunks(trace.sites);
  yield ',"tables":{';
  let firstTable = true;
  for (const name of Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[]) {
    const table = trace[name] as unknown as Record<string, ArrayBufferView> & { count: number };
    yield `${firstTable ? '' : ','}${json(name)}:{"count":${json(table.count)},"columns":{`;
    firstTable = false;
    let firstColumn = true;
    for (const key of Object.keys(SCHEMAS[name])) {
      const v = table[key];
      const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      yield `${firstColumn ? '' : ','}${json(key)}:"`;
      firstColumn = false;
      // base64 holds no character JSON escapes.
      for (let i = 0; i < bytes.length; i += COLUMN_SLICE) yield toBase64(bytes.subarray(i, i + COLUMN_SLICE));
      yield '"';
    }
    yield '}}';
  }
  yield '}}';
  if (overview) yield `,"overview":${json(overview)}`;
  yield '}';
}

function* arrayChunks(items: readonly unknown[]): Generator<string> {
  yield '[';
  for (let i = 0; i < items.length; i += ITEMS) {
    const part = items.slice(i, i + ITEMS).map(json);
    yield (i ? ',' : '') + part.join(',');
  }
  yield ']';
}
