// Columnar storage: one typed array per field, so that millions of ops cost a few buffers instead
// of millions of objects, and travel to the webview as transferable ArrayBuffers.

export type ColumnCtor =
  Float64ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor | Uint8ArrayConstructor;

export type ColumnSchema = Record<string, ColumnCtor>;

export type Columns<S extends ColumnSchema> = { [K in keyof S]: InstanceType<S[K]> };

/** A finished table: `count` rows, each column exactly `count` long. */
export type Table<S extends ColumnSchema> = Columns<S> & { count: number };

/** The most of a column's room, as a fraction of it (1/8), that `finish` leaves unused rather than copy. */
const SLACK_KEPT = 8;

type Column = { length: number; slice(a: number, b: number): unknown; subarray(a: number, b: number): unknown };

/** Appends rows to growable columns; `finish()` trims them to size. */
export class TableBuilder<S extends ColumnSchema> {
  count = 0;
  private capacity: number;
  cols: Columns<S>;

  constructor(
    private readonly schema: S,
    initialCapacity = 1024,
  ) {
    this.capacity = Math.max(16, initialCapacity);
    this.cols = {} as Columns<S>;
    for (const key of Object.keys(schema) as (keyof S)[]) {
      this.cols[key] = new schema[key](this.capacity) as Columns<S>[keyof S];
    }
  }

  /** Reserves one row, every field 0, and returns its index; fill it through `cols`. */
  add(): number {
    if (this.count === this.capacity) this.grow(this.capacity * 2);
    return this.count++;
  }

  /**
   * Makes the empty table one of `count` rows held in `given`'s arrays, which become its columns
   * (a producer that filled them itself); the other columns are new, every field 0. The shortest
   * given array's length is the table's room.
   */
  adopt(count: number, given: Partial<Columns<S>>): void {
    if (this.count) throw new Error('TableBuilder.adopt: the table has rows already');
    let room = Object.keys(given).length ? Infinity : count;
    for (const col of Object.values(given) as Column[]) room = Math.min(room, col.length);
    if (room < count) throw new Error(`TableBuilder.adopt: columns of ${room} rows for ${count}`);
    for (const key of Object.keys(this.schema) as (keyof S)[])
      this.cols[key] = given[key] ?? (new this.schema[key](room) as Columns<S>[keyof S]);
    this.capacity = room;
    this.count = count;
  }

  private grow(capacity: number): void {
    for (const key of Object.keys(this.schema) as (keyof S)[]) {
      const next = new this.schema[key](capacity) as Columns<S>[keyof S];
      (next as unknown as { set(a: ArrayLike<number>): void }).set(this.cols[key] as unknown as ArrayLike<number>);
      this.cols[key] = next;
    }
    this.capacity = capacity;
  }

  finish(): Table<S> {
    const out = { count: this.count } as Table<S>;
    // Each column keeps a buffer of its own, transferable alone. One that is nearly full (a
    // producer that sized it up front from an upper bound) stays that buffer, viewed to size: a
    // copy would write every byte of a large trace once more, for little memory back. One with
    // more room left is copied to a right-sized buffer.
    const keep = this.capacity - this.count <= this.capacity / SLACK_KEPT;
    for (const key of Object.keys(this.schema) as (keyof S)[]) {
      const col = this.cols[key] as unknown as Column;
      out[key] = (
        col.length === this.count ? col : keep ? col.subarray(0, this.count) : col.slice(0, this.count)
      ) as Table<S>[keyof S];
    }
    return out;
  }
}

/** Builds a table directly from complete columns (for loading and for tests). */
export function tableFrom<S extends ColumnSchema>(
  schema: S,
  count: number,
  fill: (cols: Columns<S>) => void,
): Table<S> {
  const cols = {} as Columns<S>;
  for (const key of Object.keys(schema) as (keyof S)[]) cols[key] = new schema[key](count) as Columns<S>[keyof S];
  fill(cols);
  return Object.assign(cols, { count }) as Table<S>;
}

/** Interns strings so that columns can refer to them by index. Index 0 is always "". */
export class StringTable {
  readonly list: string[] = [''];
  private readonly ids = new Map<string, number>([['', 0]]);

  constructor(initial?: readonly string[]) {
    if (initial) for (const s of initial) this.id(s);
  }

  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  get(id: number): string {
    return this.list[id] ?? '';
  }
}
