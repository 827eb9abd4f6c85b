// Checks an Arrow IPC stream's framing before the Arrow library decodes it: the library trusts the
// counts in each message's metadata (fields, buffers, rows) and would loop or allocate by them, so a
// hostile file could exhaust memory. Here every count is bounded by the bytes that carry it, with a
// minimal FlatBuffers walk over the few tables involved (Message, Schema, Field, RecordBatch).
const SCHEMA = 1;
const DICTIONARY_BATCH = 2;
const RECORD_BATCH = 3;
const MAX_FIELD_DEPTH = 32;

/** A fault in the framing; the caller names the file and adds what would be valid. */
export class FrameError extends Error {}

class Table {
  constructor(
    private readonly v: DataView,
    readonly pos: number,
    private readonly end: number,
  ) {
    if (pos < 0 || pos + 4 > end) throw new FrameError('a metadata table lies outside its message');
  }
  private field(slot: number): number {
    const vt = this.pos - this.v.getInt32(this.pos, true);
    if (vt < 0 || vt + 4 > this.end) throw new FrameError('a metadata table has no valid vtable');
    const size = this.v.getUint16(vt, true);
    if (vt + size > this.end) throw new FrameError('a metadata vtable lies outside its message');
    const at = 4 + slot * 2;
    return at + 2 <= size ? this.v.getUint16(vt + at, true) : 0;
  }
  u8(slot: number): number {
    const o = this.field(slot);
    return o ? this.v.getUint8(this.pos + o) : 0;
  }
  i64(slot: number): number {
    const o = this.field(slot);
    return o ? Number(this.v.getBigInt64(this.pos + o, true)) : 0;
  }
  table(slot: number): Table | undefined {
    const o = this.field(slot);
    return o ? new Table(this.v, this.pos + o + this.v.getUint32(this.pos + o, true), this.end) : undefined;
  }
  /** A vector's start and length, checked to fit in the message. */
  vector(slot: number, elementBytes: number): { start: number; length: number } {
    const o = this.field(slot);
    if (!o) return { start: 0, length: 0 };
    const at = this.pos + o + this.v.getUint32(this.pos + o, true);
    if (at + 4 > this.end) throw new FrameError('a metadata vector lies outside its message');
    const length = this.v.getUint32(at, true);
    if (at + 4 + length * elementBytes > this.end)
      throw new FrameError(`a metadata vector of ${length} entries is longer than its message`);
    return { start: at + 4, length };
  }
  tables(slot: number): Table[] {
    const { start, length } = this.vector(slot, 4);
    const out: Table[] = [];
    for (let i = 0; i < length; i++)
      out.push(new Table(this.v, start + i * 4 + this.v.getUint32(start + i * 4, true), this.end));
    return out;
  }
}

/** Walks every message of every stream in `bytes`; throws FrameError at the first fault. */
export function checkArrowFraming(bytes: Uint8Array): void {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const total = bytes.length;
  let at = 0;
  while (at < total) {
    if (at + 8 > total) throw new FrameError(`cut short at byte ${at}, inside a message's length`);
    if (v.getUint32(at, true) !== 0xffffffff) throw new FrameError(`no message starts at byte ${at}`);
    const metaLength = v.getInt32(at + 4, true);
    at += 8;
    if (metaLength === 0) continue; // end of one stream; another may follow
    if (metaLength < 0 || at + metaLength > total)
      throw new FrameError(
        `a message at byte ${at - 8} declares ${metaLength} bytes of metadata, past the end of the file`,
      );
    const end = at + metaLength;
    const message = new Table(v, at + v.getUint32(at, true), end);
    const body = message.i64(3);
    if (!(body >= 0 && end + body <= total))
      throw new FrameError(`a message at byte ${at - 8} declares a body of ${body} bytes, past the end of the file`);
    message.vector(4, 4);
    const type = message.u8(1);
    const header = message.table(2);
    if (type === SCHEMA && header) {
      header.vector(2, 4);
      header.vector(3, 8);
    }
    if (type === SCHEMA && header) checkFields(header.tables(1), 0, { left: metaLength >> 2 });
    else if (type === RECORD_BATCH && header) checkBatch(v, header, body, total);
    else if (type === DICTIONARY_BATCH && header) {
      const data = header.table(1);
      if (data) checkBatch(v, data, body, total);
    } else throw new FrameError(`a message at byte ${at - 8} is neither a schema nor a batch`);
    at = end + body;
  }
}

/** `budget`: fields left to visit; a field costs at least 4 bytes of metadata, so more means tables that point back. */
function checkFields(fields: Table[], depth: number, budget: { left: number }): void {
  if (depth > MAX_FIELD_DEPTH) throw new FrameError(`fields nest deeper than ${MAX_FIELD_DEPTH} levels`);
  for (const f of fields) {
    if (--budget.left < 0) throw new FrameError('the schema has more fields than its bytes can hold');
    f.vector(6, 4);
    checkFields(f.tables(5), depth + 1, budget);
  }
}

function checkBatch(v: DataView, batch: Table, body: number, total: number): void {
  const rows = batch.i64(0);
  if (!(rows >= 0 && rows <= total))
    throw new FrameError(`a batch declares ${rows} rows, more than the file's bytes can hold`);
  if (batch.table(3)) throw new FrameError('a batch is compressed; expected uncompressed buffers');
  const nodes = batch.vector(1, 16);
  for (let i = 0; i < nodes.length; i++) {
    const n = Number(v.getBigInt64(nodes.start + i * 16, true));
    if (!(n >= 0 && n <= rows)) throw new FrameError(`a column declares ${n} rows in a batch of ${rows}`);
  }
  const buffers = batch.vector(2, 16);
  for (let i = 0; i < buffers.length; i++) {
    const offset = Number(v.getBigInt64(buffers.start + i * 16, true));
    const length = Number(v.getBigInt64(buffers.start + i * 16 + 8, true));
    if (!(offset >= 0 && length >= 0 && offset + length <= body))
      throw new FrameError(`a buffer at ${offset} of ${length} bytes lies outside its batch's body of ${body}`);
  }
  batch.vector(4, 8);
}
