// Reads Chrome trace-event JSON (`{"traceEvents":[...], ...}` or a bare `[...]`) in chunks, without
// ever holding the whole text: a byte scanner finds where each event object ends, and each run of
// complete events is handed to JSON.parse as one small array. Memory stays proportional to one
// chunk plus what the caller keeps, so files beyond V8's largest string (512 MB) load too.
// The ES module entry: the UMD one does not bundle (see core/scenario/jsonc.ts).
import { printParseErrorCode, visit } from 'jsonc-parser/lib/esm/main.js';
import type { ParseErrorCode } from 'jsonc-parser/lib/esm/main.js';

export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    detail: string,
    readonly offset?: number,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(
      offset === undefined ? detail : `${detail} at byte ${offset}` + (line ? ` (line ${line}, column ${column})` : ''),
    );
  }
}

export interface EventScanner {
  push(chunk: string | Uint8Array): void;
  /** Checks that the document ended properly; returns the root object without its events. */
  finish(): Record<string, unknown>;
  readonly bytes: number;
  readonly events: number;
}

const enum Mode {
  Start,
  Root,
  Between,
  Event,
  Done,
}
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  LF = 0x0a,
  COMMA = 0x2c;
const STRING = 1,
  NEWLINE = 2,
  OPEN = 3,
  CLOSE = 4;
/** What each byte means to the event scanner; 0 for the bytes it passes over. */
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = STRING;
CLASS[LF] = NEWLINE;
CLASS[0x7b] = CLASS[0x5b] = OPEN;
CLASS[0x7d] = CLASS[0x5d] = CLOSE;
const isSpace = (c: number) => c === 0x20 || c === LF || c === 0x0d || c === 0x09;

/** UTF-8 bytes to text, for hosts with a decoder of their own (see ImportOptions). */
export type Utf8Decoder = (bytes: Uint8Array) => string;

const EVENTS = ['traceEvents'];

/**
 * `onEvents` gets each run of parsed events in file order, with the key of their array;
 * `onProgress` the bytes consumed so far. `decode` turns runs of whole events into text: it never
 * sees a character cut in two. `keys`: the root's arrays of objects that are streamed as events.
 */
export function createEventScanner(
  onEvents: (events: unknown[], key: string) => void,
  onProgress?: (bytes: number) => void,
  decode: Utf8Decoder = (bytes) => decoder.decode(bytes),
  keys: readonly string[] = EVENTS,
): EventScanner {
  return new Scanner(onEvents, onProgress, decode, keys);
}

/**
 * The scanner's state lives in fields, so that each mode's handling is a method of its own; the
 * per-byte loop in `scan` only dispatches on the mode, and allocates nothing per byte or event.
 */
class Scanner implements EventScanner {
  private buf: Uint8Array = new Uint8Array(0);
  private stopAfterEvent = false;
  private offset = 0; // absolute byte offset of buf[0]
  private pos = 0; // scan position in buf
  private mode = Mode.Start;
  private depth = 0;
  private eventsDepth = -1;
  private inString = false;
  private escaped = false;
  private needComma = false;
  private keyText: string | undefined; // the root-level string being read, while it may be one of `keys`
  private key = 0; // index in `keys` of the last key read, then of the array being read
  private keyState = 0; // 1: read one of `keys`, 2: and its ':'
  private lines = 0; // newlines before buf[pos]
  events = 0;
  /** `events` when the current array opened: an empty array is one with none since then. */
  private eventsAtOpen = 0;
  private readonly rest: { bytes: Uint8Array; offset: number }[] = [];
  private lastNlBeforeBuf = -1; // absolute offset of the last newline before buf[0]

  // The state of one scan of buf (one call of `scan`).
  private runFrom = -1; // first complete event of this push not yet parsed
  private runTo = -1;
  private starts: number[] = [];
  private eventStart = -1;
  private rootFrom = -1;
  private bulkFailed = false;

  constructor(
    private readonly onEvents: (events: unknown[], key: string) => void,
    private readonly onProgress: ((bytes: number) => void) | undefined,
    private readonly decode: Utf8Decoder,
    private readonly keys: readonly string[],
  ) {}

  push(chunk: string | Uint8Array): void {
    // A plain view: copying from a Uint8Array subclass (Node's Buffer) takes V8's slow path.
    const bytes =
      typeof chunk === 'string'
        ? encoder.encode(chunk)
        : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!bytes.length) return;
    if (this.buf.length) {
      // An event is open. Finish it on a copy of the chunk's first bytes, then scan the rest of
      // the chunk where it lies: a whole chunk is never copied unless one event outgrows that.
      const head = Math.min(bytes.length, 1 << 16);
      this.buf = concat(this.buf, bytes.subarray(0, head));
      this.stopAfterEvent = true;
      this.scan();
      this.stopAfterEvent = false;
      if (this.buf.length && this.mode === Mode.Event) this.buf = concat(this.buf, bytes.subarray(head));
      else this.buf = bytes.subarray(head - this.buf.length);
    } else this.buf = bytes;
    this.scan();
    this.onProgress?.(this.offset + this.buf.length);
  }

  finish(): Record<string, unknown> {
    const end = this.offset + this.buf.length;
    const { mode, keys } = this;
    if (mode === Mode.Start) throw new ImportError('empty file: expected a JSON trace', end);
    if (mode !== Mode.Done) {
      const [line, column] = this.where(end);
      const inside = mode === Mode.Root ? 'the trace object' : 'the traceEvents array';
      throw new ImportError(
        `truncated: the text ends inside ${inside}, after ${this.events} complete events,`,
        end,
        line,
        column,
      );
    }
    if (this.eventsDepth < 0)
      throw new ImportError(
        `no ${keys.map((k) => `"${k}"`).join(' or ')} array` +
          (keys === EVENTS ? ': this is not a Chrome or PyTorch trace' : ''),
        0,
      );
    return this.parseRest();
  }

  get bytes(): number {
    return this.offset + this.buf.length;
  }

  /** 1-based line and byte column of an offset between buf[0] and buf[pos]. */
  private where(abs: number): [number, number] {
    const { buf, offset } = this;
    let line = this.lines;
    for (let i = this.pos - 1; i >= abs - offset; i--) if (buf[i] === LF) line--;
    const before = abs > offset ? buf.lastIndexOf(LF, abs - offset - 1) : -1;
    return [line + 1, abs - (before >= 0 ? offset + before : this.lastNlBeforeBuf)];
  }

  private fail(detail: string, abs: number): never {
    const [line, column] = this.where(abs);
    throw new ImportError(detail, abs, line, column);
  }

  /** Scans buf from pos: each byte goes to the handler of the mode the scanner is in. */
  private scan(): void {
    const b = this.buf;
    const n = b.length;
    this.runFrom = -1;
    this.runTo = -1;
    this.starts = [];
    this.eventStart = -1;
    this.rootFrom = this.mode === Mode.Root ? this.pos : -1;
    this.bulkFailed = this.stopAfterEvent;
    let i = this.pos;
    // An event left open by the previous chunk starts at buf[0].
    if (this.mode === Mode.Event) {
      this.eventStart = 0;
      this.starts.push(this.offset);
    }
    for (; i < n; i++) {
      if (this.mode === Mode.Event && !this.inString) {
        i = this.eventBody(b, i, n);
        if (i >= n) break;
        this.eventEnded(i);
        if (this.stopAfterEvent) {
          i++;
          break;
        }
        continue;
      }
      const c = b[i];
      if (this.inString) this.stringByte(c);
      else if (c === LF) this.lines++;
      else if (isSpace(c)) continue;
      else if (this.mode === Mode.Between) i = this.between(b, i, n, c);
      else if (this.mode === Mode.Start) this.start(c, i);
      else if (this.mode === Mode.Done) this.fail('unexpected text after the end of the trace', this.offset + i);
      else this.root(b, c, i);
    }
    this.scanned(b, i, n);
  }

  /**
   * Mode.Event, the hot loop: inside an event only quotes, brackets and newlines matter. Returns
   * the index of the `}` that closes the event, or n when the event goes on past the chunk.
   */
  private eventBody(b: Uint8Array, i: number, n: number): number {
    let d = this.depth;
    const until = this.eventsDepth;
    let lines = 0;
    for (; i < n; i++) {
      const k = CLASS[b[i]];
      if (k === 0) continue;
      if (k === STRING) {
        let j = i + 1;
        for (; j < n; j++) {
          const x = b[j];
          if (x === QUOTE) break;
          if (x === BACKSLASH) j++;
        }
        if (j >= n) {
          this.inString = true;
          this.escaped = j > n; // the chunk ended on a backslash
          break;
        }
        i = j;
      } else if (k === NEWLINE) lines++;
      else if (k === OPEN) d++;
      else if (--d === until) break;
    }
    this.depth = d;
    this.lines += lines;
    return this.inString ? n : i;
  }

  /** The event that began at eventStart ended at b[i]: it joins the run to parse. */
  private eventEnded(i: number): void {
    this.mode = Mode.Between;
    this.needComma = true;
    if (this.runFrom < 0) this.runFrom = this.eventStart;
    this.runTo = i + 1;
  }

  /** A byte inside a string outside the events; a root-level key is collected while it may be one of `keys`. */
  private stringByte(c: number): void {
    if (this.escaped) this.escaped = false;
    else if (c === BACKSLASH) this.escaped = true;
    else if (c === QUOTE) {
      this.inString = false;
      if (this.mode === Mode.Root && this.depth === 1) {
        this.key = this.keyText === undefined ? -1 : this.keys.indexOf(this.keyText);
        this.keyState = this.key >= 0 ? 1 : 0;
      }
      this.keyText = undefined;
      return;
    }
    // Keys are plain ASCII: an escape or a long string is none of them.
    const { keyText } = this;
    if (keyText !== undefined)
      this.keyText = c === BACKSLASH || keyText.length > 64 ? undefined : keyText + String.fromCharCode(c);
  }

  /** Mode.Between: in an events array, between events. Returns the index of the last byte it consumed. */
  private between(b: Uint8Array, i: number, n: number, c: number): number {
    if (c === 0x7b && !this.needComma) {
      // After a wrong guess the exact scanner reads the rest of the chunk.
      const bulk = this.bulkFailed || n - i < BULK_MIN ? -1 : bulkEnd(b, i, Math.min(n, i + BULK_WINDOW));
      const parsed = bulk > 0 ? this.parseBulk(i, bulk + 1) : undefined;
      if (bulk > 0 && !parsed) this.bulkFailed = true;
      if (parsed) {
        this.bulkParsed(i, parsed);
        return bulk;
      }
      this.mode = Mode.Event;
      this.depth++;
      this.eventStart = i;
      this.starts.push(this.offset + i);
    } else if (c === COMMA && this.needComma) this.needComma = false;
    else if (
      c === 0x5d &&
      (this.needComma || (this.starts.length + this.events === this.eventsAtOpen && this.runFrom < 0))
    ) {
      this.flushRun(i);
      this.depth--;
      this.mode = this.depth === 0 ? Mode.Done : Mode.Root; // a bare array ends the document
      this.rootFrom = i;
    } else
      this.fail(
        this.needComma ? "expected ',' or ']' after a trace event" : 'expected a trace event object',
        this.offset + i,
      );
    return i;
  }

  /** Events parsed in bulk at b[i]: the run found byte by byte before them goes first, to keep file order. */
  private bulkParsed(i: number, parsed: { list: unknown[]; text: string }): void {
    this.flushRun(i);
    this.events += parsed.list.length;
    this.onEvents(parsed.list, this.keys[this.key]);
    const text = parsed.text;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) this.lines++;
    this.needComma = true;
  }

  /** Parses the run of events found byte by byte, if any, before what lies at b[i]. */
  private flushRun(i: number): void {
    this.pos = i; // where() counts lines back from pos
    if (this.runFrom >= 0) this.parseRun(this.runFrom, this.runTo, this.starts);
    this.runFrom = -1;
    this.starts = [];
  }

  /** Mode.Start: the first byte that is not space decides between a bare array and a root object. */
  private start(c: number, i: number): void {
    if (c === 0x5b) {
      // A bare array of events (Chrome's "JSON Array Format").
      this.mode = Mode.Between;
      this.depth = 1;
      this.eventsDepth = 1;
      this.eventsAtOpen = this.events;
      return;
    }
    if (c === 0xef || c === 0xbb || c === 0xbf) return; // a UTF-8 byte order mark
    if (c !== 0x7b) this.fail('expected a JSON object or array of trace events', this.offset + i);
    this.mode = Mode.Root;
    this.rootFrom = i;
    this.depth = 1;
  }

  /** Mode.Root: the small part of the document around the events, kept as text. */
  private root(b: Uint8Array, c: number, i: number): void {
    const { depth } = this;
    if (c === QUOTE) {
      this.inString = true;
      this.keyText = depth === 1 ? '' : undefined;
      return;
    }
    if (depth === 1 && c === 0x3a && this.keyState === 1) {
      this.keyState = 2;
      return;
    }
    if (c === 0x5b && depth === 1 && this.keyState === 2) {
      this.rest.push({ bytes: b.slice(this.rootFrom, i + 1), offset: this.offset + this.rootFrom });
      this.mode = Mode.Between;
      this.depth = 2;
      this.eventsDepth = 2;
      this.eventsAtOpen = this.events;
      this.needComma = false;
      this.keyState = 0;
      return;
    }
    this.keyState = 0;
    if (c === 0x7b || c === 0x5b) this.depth++;
    else if ((c === 0x7d || c === 0x5d) && --this.depth === 0) {
      this.rest.push({ bytes: b.slice(this.rootFrom, i + 1), offset: this.offset + this.rootFrom });
      this.rootFrom = -1;
      this.mode = Mode.Done;
    }
  }

  /** After a scan stopped at b[i]: parses the last run and keeps only what is still open, the current event or nothing. */
  private scanned(b: Uint8Array, i: number, n: number): void {
    this.pos = i;
    if (this.runFrom >= 0)
      this.parseRun(this.runFrom, this.runTo, this.mode === Mode.Event ? this.starts.slice(0, -1) : this.starts);
    if (this.mode === Mode.Root && this.rootFrom >= 0)
      this.rest.push({ bytes: b.slice(this.rootFrom, n), offset: this.offset + this.rootFrom });
    const keep = i < n ? i : this.mode === Mode.Event ? this.eventStart : n;
    if (keep > 0) {
      const nl = this.buf.lastIndexOf(LF, keep - 1);
      if (nl >= 0) this.lastNlBeforeBuf = this.offset + nl;
      this.buf = this.buf.subarray(keep);
      this.offset += keep;
      this.pos -= keep;
    }
  }

  /** JSON.parse of one run of events; on failure, finds the exact byte that is wrong. */
  private parseRun(from: number, to: number, starts: number[]): void {
    const { buf, offset } = this;
    const text = this.decode(buf.subarray(from, to));
    let list: unknown[];
    try {
      list = JSON.parse('[' + text + ']') as unknown[];
    } catch {
      for (let k = 0; k < starts.length; k++) {
        const s = starts[k] - offset;
        const e = k + 1 < starts.length ? starts[k + 1] - offset : to;
        const piece = buf.subarray(s, e);
        const bad = firstJsonError(decoder.decode(piece).replace(/[\s,]*$/, ''));
        if (bad)
          this.fail(
            `malformed trace event #${this.events + k}: ${bad.message}`,
            starts[k] + byteLength(decoder.decode(piece).slice(0, bad.offset)),
          );
      }
      return this.fail('malformed trace events', offset + from);
    }
    this.events += list.length;
    this.onEvents(list, this.keys[this.key]);
  }

  /**
   * The fast path: the events of up to BULK_WINDOW bytes, cut at the last `}` that looks like the
   * end of an event (see `bulkEnd`) and parsed as one array, without a byte-by-byte scan. A successful parse proves the
   * cut right: `[` + text from an event's `{` + `]` is valid JSON only when the text ends where an
   * event ends, since a cut inside an event leaves its `{` open (a `]` closes only an array, and
   * inside a string it leaves the string open). A wrong guess, a malformed or a non-object event
   * give undefined, and the exact scanner takes over.
   */
  private parseBulk(from: number, to: number): { list: unknown[]; text: string } | undefined {
    const text = this.decode(this.buf.subarray(from, to));
    let list: unknown[];
    try {
      list = JSON.parse('[' + text + ']') as unknown[];
    } catch {
      return undefined;
    }
    for (const e of list) if (typeof e !== 'object' || e === null || Array.isArray(e)) return undefined;
    return { list, text };
  }

  private parseRest(): Record<string, unknown> {
    const { rest } = this;
    if (this.eventsDepth === 1) return {};
    const size = rest.reduce((s, r) => s + r.bytes.length, 0);
    const all = new Uint8Array(size);
    let at = 0;
    for (const r of rest) {
      all.set(r.bytes, at);
      at += r.bytes.length;
    }
    // The events array was cut out between its brackets, so the root parses as `"traceEvents":[]`.
    const text = decoder.decode(all);
    const bad = firstJsonError(text);
    if (bad) {
      let byte = byteLength(text.slice(0, bad.offset));
      let part = rest[0];
      for (part of rest) {
        if (byte < part.bytes.length || part === rest[rest.length - 1]) break;
        byte -= part.bytes.length;
      }
      throw new ImportError(`malformed trace: ${bad.message}`, part.offset + byte);
    }
    return JSON.parse(text) as Record<string, unknown>;
  }
}

/** Smaller runs are left to the exact scanner: a wrong guess costs little there. */
const BULK_MIN = 1 << 14;

/**
 * Bytes parsed at once, whatever the size of the chunk. Small texts and the few hundred events
 * parsed from each stay in V8's young generation and die there cheaply; with 1 MiB (texts in
 * fresh large-object pages, events promoted to the old generation) the import took 1.4 times as long.
 */
const BULK_WINDOW = 1 << 15;

/** The last `}` in b[from, to) that is followed by `,{` or `]`, as an event's end is; -1 if none is near `to`. */
function bulkEnd(b: Uint8Array, from: number, to: number): number {
  let e = to;
  for (let tries = 0; tries < 64; tries++) {
    e = b.lastIndexOf(0x7d, e - 1);
    if (e <= from) return -1;
    let j = e + 1;
    while (j < b.length && isSpace(b[j])) j++;
    if (b[j] === 0x5d) return e;
    if (b[j] !== COMMA) continue;
    j++;
    while (j < b.length && isSpace(b[j])) j++;
    if (b[j] === 0x7b) return e;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function byteLength(s: string): number {
  return encoder.encode(s).length;
}

/** The first syntax error of strict JSON text, with its character offset; undefined if valid. */
export function firstJsonError(text: string): { offset: number; message: string } | undefined {
  let found: { offset: number; message: string } | undefined;
  visit(
    text,
    {
      onError(error: ParseErrorCode, offset: number) {
        found ??= { offset, message: describeError(printParseErrorCode(error)) };
      },
      onComment(offset: number) {
        found ??= { offset, message: 'comments are not JSON' };
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  if (!found && text.trim()) {
    try {
      JSON.parse(text);
    } catch (e) {
      return { offset: 0, message: (e as Error).message };
    }
  }
  return found;
}

const describeError = (code: string): string =>
  code
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/^invalid symbol$/, 'unexpected character');
