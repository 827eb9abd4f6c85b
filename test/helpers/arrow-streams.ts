// A .syncscope file taken apart into its Arrow IPC streams and put together again, for tests and
// fuzz inputs that replace one table with a hostile one. The Arrow library writes each stream again
// byte for byte as syncscope wrote it (a test checks this), so only the replaced table differs.
import { makeData, RecordBatch, RecordBatchReader, RecordBatchStreamWriter, Schema, Struct } from 'apache-arrow';

export interface Stream {
  schema: Schema;
  batches: RecordBatch[];
}

/** A file's streams as the Arrow library reads them. */
export function streamsOf(bytes: Uint8Array): Stream[] {
  const out: Stream[] = [];
  for (const reader of RecordBatchReader.readAll(bytes)) {
    const batches = [...reader] as RecordBatch[];
    out.push({ schema: reader.schema as Schema, batches });
  }
  return out;
}

export const streamBytes = (batches: RecordBatch[]): Uint8Array =>
  RecordBatchStreamWriter.writeAll(batches).toUint8Array(true);

/** The file `bytes` with its stream `index` (from 0: the calls table is 1) replaced by `stream`. */
export function withStream(bytes: Uint8Array, index: number, stream: Uint8Array): Uint8Array {
  const streams = streamsOf(bytes).map((s) => streamBytes(s.batches));
  streams.splice(index, 1, stream); // past the last stream: one more
  return Buffer.concat(streams);
}

/** A `table` of `rows` rows and no columns: all it costs in a file is its metadata (and `padding` bytes of it). */
export function tableWithoutColumns(table: string, rows: number, padding = 0): Uint8Array {
  const meta = new Map([['syncscope.table', table]]);
  if (padding) meta.set('padding', 'x'.repeat(padding));
  const schema = new Schema([], meta);
  return streamBytes([new RecordBatch(schema, makeData({ type: new Struct([]), length: rows, children: [] }))]);
}

/** A stream's first message, its schema: a schema message has no body, so it ends with its metadata. */
export const schemaMessage = (stream: Uint8Array): Uint8Array =>
  stream.subarray(0, 8 + Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength).readInt32LE(4));
