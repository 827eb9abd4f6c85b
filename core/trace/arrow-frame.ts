// Checks an Arrow IPC file's structure before the Arrow library decodes any of it. The library
// trusts every count and offset in a message's metadata: it would read past them, fail with its
// own words, or allocate by them, so a file cut short, corrupt or built to hurt could leak engine
// errors or exhaust memory. A minimal FlatBuffers walk over the tables the library reads checks:
// - each stream is a schema, then batches, then its end marker;
// - each column is flat and of a type a .syncscope file uses: integers, floats, strings, booleans,
//   or a dictionary of those;
// - each batch gives every column of its schema, as many rows as it declares, in aligned buffers
//   long enough for those rows, and string offsets that stay inside their data;
// - each dictionary a batch uses was given before it.
// So every row a batch declares is carried by bytes of the file.
import { KEY } from './columnar';

const SCHEMA = 1;
const DICTIONARY_BATCH = 2;
const RECORD_BATCH = 3;
/** Arrow metadata version V4 (Arrow 0.8): earlier versions lay buffers out otherwise. */
const V4 = 3;
const INT32 = 2 ** 31 - 1;

/** A fault in the structure; the caller names the file and adds what would be valid. */
export class FrameError extends Error {}

/** How a column's values lie in its buffers after the validity bitmap. */
type Layout = { kind: 'fixed'; width: number } | { kind: 'bits' } | { kind: 'utf8' };

interface Column {
  name: string;
  layout: Layout;
  /** The id of the dictionary whose entries the column's values index. */
  dictionary?: number;
}

interface Stream {
  /** The table it holds, as errors name it: `calls table`, or `second table` when it names none. */
  table: string;
  columns: Column[];
  /** Each dictionary's layout, from the first column that uses it, as the library takes it. */
  dictionaries: Map<number, Layout>;
  given: Set<number>;
}

class Table {
  constructor(
    private readonly v: DataView,
    readonly pos: number,
    private readonly start: number,
    private readonly end: number,
  ) {
    if (pos < start || pos + 4 > end) throw new FrameError('a metadata table lies outside its message');
  }
  /** Where a field of `bytes` bytes lies, or 0 when it is absent. */
  private field(slot: number, bytes: number): number {
    const vt = this.pos - this.v.getInt32(this.pos, true);
    if (vt < this.start || vt + 4 > this.end) throw new FrameError('a metadata table has no valid vtable');
    // Read as the library reads them: signed, and an entry that starts inside the vtable counts.
    const size = this.v.getInt16(vt, true);
    const at = 4 + slot * 2;
    if (at >= size) return 0;
    if (vt + at + 2 > this.end) throw new FrameError('a metadata vtable lies outside its message');
    const offset = this.v.getInt16(vt + at, true);
    if (offset < 0 || this.pos + offset + bytes > this.end)
      throw new FrameError('a metadata field lies outside its message');
    return offset && this.pos + offset;
  }
  u8(slot: number): number {
    const p = this.field(slot, 1);
    return p ? this.v.getUint8(p) : 0;
  }
  i16(slot: number): number {
    const p = this.field(slot, 2);
    return p ? this.v.getInt16(p, true) : 0;
  }
  i32(slot: number): number {
    const p = this.field(slot, 4);
    return p ? this.v.getInt32(p, true) : 0;
  }
  i64(slot: number): number {
    const p = this.field(slot, 8);
    return p ? Number(this.v.getBigInt64(p, true)) : 0;
  }
  table(slot: number): Table | undefined {
    const p = this.field(slot, 4);
    return p ? new Table(this.v, p + this.v.getUint32(p, true), this.start, this.end) : undefined;
  }
  /** A vector's start and length, checked to fit in the message. */
  vector(slot: number, elementBytes: number): { start: number; length: number } {
    const p = this.field(slot, 4);
    if (!p) return { start: 0, length: 0 };
    const at = p + this.v.getUint32(p, true);
    if (at + 4 > this.end) throw new FrameError('a metadata vector lies outside its message');
    const length = this.v.getUint32(at, true);
    if (at + 4 + length * elementBytes > this.end)
      throw new FrameError(`a metadata vector of ${length} entries is longer than its message`);
    return { start: at + 4, length };
  }
  string(slot: number): string | undefined {
    if (!this.field(slot, 4)) return undefined;
    const { start, length } = this.vector(slot, 1);
    return decoder.decode(new Uint8Array(this.v.buffer, this.v.byteOffset + start, length));
  }
  tables(slot: number): Table[] {
    const { start, length } = this.vector(slot, 4);
    const out: Table[] = [];
    for (let i = 0; i < length; i++)
      out.push(new Table(this.v, start + i * 4 + this.v.getUint32(start + i * 4, true), this.start, this.end));
    return out;
  }
  /** A custom_metadata vector of KeyValue tables, as a map. */
  keyValues(slot: number): Map<string, string | undefined> {
    const out = new Map<string, string | undefined>();
    for (const kv of this.tables(slot)) {
      const key = kv.string(0);
      const value = kv.string(1);
      if (key !== undefined) out.set(key, value);
    }
    return out;
  }
}

const decoder = new TextDecoder();
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];

/** A name from the file as a message shows it: as is when plain, else quoted and cut short. */
const label = (s: string): string => (/^[\w.-]{1,40}$/.test(s) ? s : JSON.stringify(s.slice(0, 40)));

/** Walks every message of every stream in `bytes`; throws FrameError at the first fault. */
export function checkArrowFraming(bytes: Uint8Array): void {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const total = bytes.length;
  let stream: Stream | undefined;
  let streams = 0;
  let at = 0;
  while (at < total) {
    if (at + 8 > total) throw new FrameError(`cut short at byte ${at}, inside a message's length`);
    if (v.getUint32(at, true) !== 0xffffffff) throw new FrameError(`no message starts at byte ${at}`);
    const metaLength = v.getInt32(at + 4, true);
    const start = at + 8;
    if (metaLength === 0) {
      // The end of one stream; another may follow. The library stops reading at one that ends nothing.
      if (!stream) throw new FrameError(`an end-of-stream marker at byte ${at} ends no stream`);
      stream = undefined;
      at = start;
      continue;
    }
    if (metaLength < 4 || start + metaLength > total)
      throw new FrameError(
        `a message at byte ${at} declares ${metaLength} bytes of metadata, past the end of the file`,
      );
    const end = start + metaLength;
    const message = new Table(v, start + v.getUint32(start, true), start, end);
    if (message.i16(0) < V4) throw new FrameError(`a message at byte ${at} is of an Arrow version before 0.8`);
    const body = message.i64(3);
    if (!(body >= 0 && end + body <= total))
      throw new FrameError(`a message at byte ${at} declares a body of ${body} bytes, past the end of the file`);
    message.keyValues(4);
    const type = message.u8(1);
    const header = message.table(2);
    if (type === SCHEMA && header) {
      if (stream) throw new FrameError(`the ${stream.table} has a second schema, at byte ${at}`);
      stream = readSchema(header, ++streams);
    } else if ((type === RECORD_BATCH || type === DICTIONARY_BATCH) && header) {
      if (!stream) throw new FrameError(`a batch at byte ${at} comes before any schema`);
      const region = { v, start: end, length: body };
      if (type === RECORD_BATCH) checkBatch(stream, stream.columns, header, region);
      else checkDictionary(stream, header, region);
    } else throw new FrameError(`a message at byte ${at} is neither a schema nor a batch`);
    at = end + body;
  }
  if (stream) throw new FrameError(`the file ends inside the ${stream.table}, before its end-of-stream marker`);
}

function readSchema(schema: Table, ordinal: number): Stream {
  if (schema.i16(0) !== 0) throw new FrameError('a schema is big-endian; expected little-endian');
  schema.vector(3, 8);
  const name = schema.keyValues(2).get(KEY.table);
  const stream: Stream = {
    table: `${name === undefined ? (ORDINALS[ordinal - 1] ?? `${ordinal}th`) : label(name)} table`,
    columns: [],
    dictionaries: new Map(),
    given: new Set(),
  };
  for (const field of schema.tables(1)) stream.columns.push(readField(field, stream));
  return stream;
}

function readField(field: Table, stream: Stream): Column {
  const raw = field.string(0);
  if (raw === undefined) throw new FrameError(`a column of the ${stream.table} has no name`);
  const name = `the ${stream.table}'s column ${label(raw)}`;
  if (field.vector(5, 4).length) throw new FrameError(`${name} nests other columns; expected flat columns`);
  field.keyValues(6);
  const layout = layoutOf(field.u8(2), field.table(3), name);
  const dictionary = field.table(4);
  if (!dictionary) return { name, layout };
  const id = dictionary.i64(0);
  if (!(Number.isInteger(id) && id >= 0 && id <= INT32))
    throw new FrameError(`${name} uses dictionary ${id}; expected an id from 0 to ${INT32}`);
  const index = dictionary.table(1);
  // The library takes an index type left out as 32-bit.
  const width = index ? intWidth(index, name) : 4;
  if (!stream.dictionaries.has(id)) stream.dictionaries.set(id, layout);
  return { name, layout: { kind: 'fixed', width }, dictionary: id };
}

const INT = 2;
const FLOAT = 3;
const UTF8 = 5;
const BOOL = 6;
const FLOAT_WIDTHS = [2, 4, 8];

function layoutOf(type: number, details: Table | undefined, name: string): Layout {
  if (type === UTF8) return { kind: 'utf8' };
  if (type === BOOL) return { kind: 'bits' };
  if (type === INT && details) return { kind: 'fixed', width: intWidth(details, name) };
  const precision = type === FLOAT && details ? details.i16(0) : -1;
  if (FLOAT_WIDTHS[precision]) return { kind: 'fixed', width: FLOAT_WIDTHS[precision] };
  throw new FrameError(
    `${name} is of Arrow type ${type}, which a .syncscope file does not use; expected integers, floats, strings or booleans`,
  );
}

function intWidth(int: Table, name: string): number {
  const bits = int.i32(0);
  if (bits !== 8 && bits !== 16 && bits !== 32 && bits !== 64)
    throw new FrameError(`${name} holds integers of ${bits} bits; expected 8, 16, 32 or 64`);
  return bits / 8;
}

/** A batch's body: `length` bytes from `start` in the file. */
interface Body {
  v: DataView;
  start: number;
  length: number;
}

function checkDictionary(stream: Stream, batch: Table, body: Body): void {
  const id = batch.i64(0);
  const layout = stream.dictionaries.get(id);
  if (!layout) throw new FrameError(`the ${stream.table} gives dictionary ${id}, which none of its columns uses`);
  const data = batch.table(1);
  if (!data) throw new FrameError(`the ${stream.table} gives dictionary ${id} without its data`);
  checkBatch(stream, [{ name: `the ${stream.table}'s dictionary ${id}`, layout }], data, body);
  stream.given.add(id);
}

/** The rows of a batch of `columns`, each column's node and buffers, before anything is allocated by them. */
function checkBatch(stream: Stream, columns: Column[], batch: Table, body: Body): void {
  const { v } = body;
  const rows = batch.i64(0);
  const where = `a batch of the ${stream.table}`;
  if (!(Number.isSafeInteger(rows) && rows >= 0)) throw new FrameError(`${where} declares ${rows} rows`);
  if (batch.table(3)) throw new FrameError(`${where} is compressed; expected uncompressed buffers`);
  const variadic = batch.vector(4, 8);
  for (let i = 0; i < variadic.length; i++)
    if (v.getBigInt64(variadic.start + i * 8, true) !== 0n)
      throw new FrameError(`${where} declares variadic buffers, which no column of a .syncscope file has`);
  const nodes = batch.vector(1, 16);
  const buffers = batch.vector(2, 16);
  // Checked first: the library would allocate every column for rows that no bytes carry.
  if (rows > 0 && nodes.length === 0) throw new FrameError(`${where} declares ${rows} rows but holds no columns`);
  if (nodes.length !== columns.length)
    throw new FrameError(`${where} holds ${nodes.length} columns; its schema has ${columns.length}`);
  const needed = columns.reduce((n, c) => n + (c.layout.kind === 'utf8' ? 3 : 2), 0);
  if (buffers.length !== needed)
    throw new FrameError(`${where} holds ${buffers.length} buffers; its ${columns.length} columns take ${needed}`);
  // Every region, read or not: the library decodes them all.
  const regions = Array.from({ length: buffers.length }, (_, k) => regionAt(buffers.start + k * 16, body));
  let b = 0;
  columns.forEach((column, i) => {
    const n = Number(v.getBigInt64(nodes.start + i * 16, true));
    const nulls = Number(v.getBigInt64(nodes.start + i * 16 + 8, true));
    if (n !== rows) throw new FrameError(`${column.name} holds ${n} rows in a batch of ${rows}`);
    if (!(nulls >= 0 && nulls <= n)) throw new FrameError(`${column.name} declares ${nulls} nulls in ${n} rows`);
    if (column.dictionary !== undefined && !stream.given.has(column.dictionary))
      throw new FrameError(`${column.name} uses dictionary ${column.dictionary} before the file gives it`);
    const buffer = (k: number) => regions[b + k];
    if (nulls > 0) needBytes(column.name, n, 'validity bits', buffer(0), Math.ceil(n / 8));
    const { layout } = column;
    if (layout.kind === 'fixed') needBytes(column.name, n, 'values', buffer(1), n * layout.width);
    else if (layout.kind === 'bits') needBytes(column.name, n, 'values', buffer(1), Math.ceil(n / 8));
    else checkStrings(column.name, n, buffer(1), buffer(2), body);
    b += layout.kind === 'utf8' ? 3 : 2;
  });
}

interface Region {
  /** From the start of the file. */
  at: number;
  length: number;
}

function regionAt(entry: number, body: Body): Region {
  const offset = Number(body.v.getBigInt64(entry, true));
  const length = Number(body.v.getBigInt64(entry + 8, true));
  if (!(offset >= 0 && length >= 0 && offset + length <= body.length))
    throw new FrameError(`a buffer at ${offset} of ${length} bytes lies outside its batch's body of ${body.length}`);
  // Arrow aligns every buffer to 8 bytes; the library views them as typed arrays, which must be aligned.
  if (offset % 8) throw new FrameError(`a buffer at ${offset} of its batch's body is not aligned to 8 bytes`);
  return { at: body.start + offset, length };
}

function needBytes(column: string, rows: number, what: string, buffer: Region, bytes: number): void {
  if (buffer.length < bytes)
    throw new FrameError(
      `${column} declares ${rows} rows, whose ${what} take ${bytes} bytes, but its buffer holds ${buffer.length}`,
    );
}

/** Strings: n + 1 offsets that never decrease, from 0 or more to at most the data's length. */
function checkStrings(column: string, n: number, offsets: Region, data: Region, body: Body): void {
  if (n === 0) return;
  needBytes(column, n, 'string offsets', offsets, (n + 1) * 4);
  let last = 0;
  for (let i = 0; i <= n; i++) {
    const o = body.v.getInt32(offsets.at + i * 4, true);
    if (o < last || o > data.length)
      throw new FrameError(`${column}: string ${i} ends at ${o}, outside its ${data.length} bytes of text`);
    last = o;
  }
}
