// Writes a Trace as a `.syncscope` file: Apache Arrow IPC streams, one per table (lanes, calls,
// ops, edges, accesses), one after another. Each column goes out in the narrowest type that holds
// its values (any Arrow reader widens them again); a column holding only its default value is left
// out; strings and names are dictionaries. Chunks are views of the trace's own columns wherever the
// type allows, so the file never exists as one buffer. See docs/trace-file.md.
import {
  AsyncByteQueue,
  Bool,
  Data,
  Dictionary,
  Field,
  Float64,
  Int16,
  Int32,
  Int8,
  makeData,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Uint16,
  Uint32,
  Uint8,
  Utf8,
  Vector,
  vectorFromArray,
  type DataType,
} from 'apache-arrow';
import {
  BATCH_ROWS,
  COLUMNAR_VERSION,
  defaultOf,
  INT_WIDTHS,
  IntWidth,
  KEY,
  narrowestInt,
  TABLES,
  tableOf,
  type TableSpec,
} from './columnar';
import { LANE_FIELDS, TRACE_FORMAT, type Trace } from './model';

type Numbers = ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> };

const INT_TYPES: Record<IntWidth, () => DataType> = {
  Int8: () => new Int8(),
  Uint8: () => new Uint8(),
  Int16: () => new Int16(),
  Uint16: () => new Uint16(),
  Int32: () => new Int32(),
  Uint32: () => new Uint32(),
};

/** How one column goes to the file. */
interface Plan {
  name: string;
  type: DataType;
  nullable: boolean;
  /** One batch's data for rows [a, b). */
  slice(a: number, b: number): Data;
}

/** The byte chunks of the whole file, in order. `writeId`: the write's id, kept in the metadata. */
export function* traceArrowChunks(t: Trace, writeId?: string): Generator<Uint8Array> {
  yield* lanesStream(t, writeId);
  const dictionary = vectorFromArray(t.strings, new Utf8());
  for (const spec of TABLES) yield* tableStream(t, spec, dictionary);
}

function* lanesStream(t: Trace, writeId: string | undefined): Generator<Uint8Array> {
  const fields: Field[] = [];
  const children: Data[] = [];
  for (const key of LANE_FIELDS) {
    const values = t.lanes.map((l) => (l as unknown as Record<string, unknown>)[key] ?? null);
    const kind = values.find((v) => v !== null);
    const type: DataType =
      typeof kind === 'string' ? new Utf8() : typeof kind === 'boolean' ? new Bool() : new Float64();
    const vector = vectorFromArray(values as never[], type);
    fields.push(new Field(key, type, true));
    children.push(vector.data[0]);
  }
  const metadata = new Map([
    [KEY.format, TRACE_FORMAT],
    [KEY.version, String(COLUMNAR_VERSION)],
    [KEY.table, 'lanes'],
    [KEY.meta, JSON.stringify(t.meta)],
    [KEY.findings, JSON.stringify(t.findings)],
    [KEY.sites, JSON.stringify(t.sites)],
    ...(writeId === undefined ? [] : [[KEY.writeId, writeId] as const]),
  ]);
  const schema = new Schema(fields, metadata);
  yield* stream(schema, [
    new RecordBatch(schema, makeData({ type: new Struct(fields), length: t.lanes.length, children })),
  ]);
}

function* tableStream(t: Trace, spec: TableSpec, strings: Vector<Utf8>): Generator<Uint8Array> {
  const table = tableOf(t, spec.name);
  const plans: Plan[] = [];
  // All string columns of a stream share dictionary id 0, so the strings are written once per table.
  const stringIndex = INT_TYPES[narrowestInt(-1, t.strings.length)!]() as Int8 | Int16 | Int32;
  const stringType = new Dictionary(new Utf8(), stringIndex, 0);
  let nextId = 1;
  for (const name of Object.keys(spec.schema)) {
    const col = table[name] as Numbers;
    if (spec.strings.has(name)) plans.push(dictionaryPlan(name, col, stringType, strings));
    else if (spec.enums[name]) {
      const names = vectorFromArray(spec.enums[name] as string[], new Utf8());
      plans.push(dictionaryPlan(name, col, new Dictionary(new Utf8(), new Int8(), nextId++), names));
    } else {
      const plan = numberPlan(name, col, table.count, defaultOf(spec, name));
      if (plan) plans.push(plan);
    }
  }
  const fields = plans.map((p) => new Field(p.name, p.type, p.nullable));
  const schema = new Schema(fields, new Map([[KEY.table, spec.name]]));
  const struct = new Struct(fields);
  // An empty table still gets one batch, of no rows: a stream of a schema alone is read by the
  // Arrow library as part of the stream after it, which would then seem to be missing.
  function* batches(): Generator<RecordBatch> {
    for (let a = 0; a < Math.max(table.count, 1); a += BATCH_ROWS) {
      const b = Math.min(table.count, a + BATCH_ROWS);
      const children = plans.map((p) => p.slice(a, b));
      yield new RecordBatch(schema, makeData({ type: struct, length: b - a, children }));
    }
  }
  yield* stream(schema, batches());
}

function dictionaryPlan(name: string, col: Numbers, type: Dictionary, dictionary: Vector): Plan {
  const Indices = type.indices.ArrayType as unknown as new (n: number) => Int8Array;
  return {
    name,
    type,
    nullable: false,
    slice: (a, b) => {
      const data = new Indices(b - a);
      data.set(col.subarray(a, b));
      return makeData({ type, length: b - a, data, dictionary });
    },
  };
}

/** The narrowest type for a number column; undefined when it holds only its default. */
function numberPlan(name: string, col: Numbers, count: number, dflt: number): Plan | undefined {
  const { min, max, integral, nulls, onlyDefault } = isIntegerArray(col)
    ? intRange(col, count, dflt)
    : floatRange(col, count, dflt);
  if (onlyDefault) return undefined;
  const width = integral && min <= max ? narrowestInt(min, max) : integral && min > max ? 'Int8' : undefined;
  const type = width ? INT_TYPES[width]() : new Float64();
  const Values = width ? INT_WIDTHS[width].array : Float64Array;
  const sameType = col.constructor === Values;
  return {
    name,
    type,
    nullable: nulls,
    slice: (a, b) => {
      const view = col.subarray(a, b);
      let data: ArrayLike<number>;
      if (sameType) data = view;
      else {
        const copy = new Values(b - a);
        copy.set(view);
        data = copy;
      }
      return makeData({ type, length: b - a, data, nullBitmap: nulls ? validity(view) : undefined } as never);
    },
  };
}

interface Range {
  min: number;
  max: number;
  integral: boolean;
  nulls: boolean;
  onlyDefault: boolean;
}

function floatRange(col: ArrayLike<number>, count: number, dflt: number): Range {
  let min = Infinity;
  let max = -Infinity;
  let integral = true;
  let nulls = false;
  let onlyDefault = true;
  const defaultIsNaN = Number.isNaN(dflt);
  for (let i = 0; i < count; i++) {
    const v = col[i];
    if (v !== v) {
      nulls = true;
      if (!defaultIsNaN) onlyDefault = false;
      continue;
    }
    if (v !== dflt) onlyDefault = false;
    if (v < min) min = v;
    if (v > max) max = v;
    if (integral && !Number.isInteger(v)) integral = false;
  }
  return { min, max, integral, nulls, onlyDefault };
}

const isIntegerArray = (col: Numbers): boolean =>
  col instanceof Int32Array || col instanceof Uint32Array || col instanceof Uint8Array;

/** An integer column holds no NaN and no fractions: only its range and whether it is all default. */
function intRange(col: Numbers, count: number, dflt: number): Range {
  // A loop that reads one element type runs faster than one that sees several: int32 and uint32
  // columns share the int32 loop, bytes have one of their own.
  const [min, max] =
    col instanceof Uint8Array
      ? byteRange(col, count)
      : int32Range(col instanceof Int32Array ? col : asInt32(col), count, col instanceof Uint32Array);
  const onlyDefault = count === 0 || (min === dflt && max === dflt);
  return { min, max, integral: true, nulls: false, onlyDefault };
}

const asInt32 = (col: Numbers): Int32Array => {
  const c = col as unknown as Uint32Array;
  return new Int32Array(c.buffer, c.byteOffset, c.length);
};

/**
 * The range of an int32 column, or of a uint32 one read as int32 (`unsigned`): that reads a value
 * of 2^31 and above as negative, and such a column needs all 32 bits whatever its other values.
 */
function int32Range(col: Int32Array, count: number, unsigned: boolean): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < count; i++) {
    const v = col[i];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return unsigned && min < 0 ? [0, 2 ** 32 - 1] : [min, max];
}

/** The range of a byte column, from which of the 256 values occur. */
function byteRange(col: Uint8Array, count: number): [number, number] {
  const seen = new Uint8Array(256);
  for (let i = 0; i < count; i++) seen[col[i]] = 1;
  const min = seen.indexOf(1);
  return min < 0 ? [Infinity, -Infinity] : [min, seen.lastIndexOf(1)];
}

/** Arrow's validity bitmap: bit i set where value i is present (not NaN). */
function validity(values: ArrayLike<number>): Uint8Array {
  const bits = new Uint8Array((values.length + 7) >> 3);
  for (let i = 0; i < values.length; i++) if (values[i] === values[i]) bits[i >> 3] |= 1 << (i & 7);
  return bits;
}

/** Collects what the IPC writer emits, instead of queueing it for an async reader. */
class Chunks extends AsyncByteQueue {
  taken: Uint8Array[] = [];
  override write(value: Uint8Array): void {
    if (value.byteLength) this.taken.push(value);
  }
}

function* stream(schema: Schema, batches: Iterable<RecordBatch>): Generator<Uint8Array> {
  const sink = new Chunks();
  const writer = new RecordBatchStreamWriter({ autoDestroy: false });
  writer.reset(sink as unknown as never, schema);
  const drain = function* () {
    const out = sink.taken;
    sink.taken = [];
    yield* out;
  };
  yield* drain();
  for (const batch of batches) {
    writer.write(batch);
    yield* drain();
  }
  writer.finish();
  yield* drain();
}
