// Reads Chrome trace-event JSON (`{"traceEvents":[...], ...}` or a bare `[...]`) in chunks, without
// ever holding the whole text: a byte scanner finds where each event object ends, and each run of
// complete events is handed to JSON.parse as one small array. Memory stays proportional to one
// chunk plus what the caller keeps, so files beyond V8's largest string (512 MB) load too.
// The ES module entry: the UMD one does not bundle (see core/scenario/jsonc.ts).
import { printParseErrorCode, visit } from 'jsonc-parser/lib/esm/main.js';
import type { ParseErrorCode } from 'jsonc-parser/lib/esm/main.js';
import { MAX_NESTING, tooDeep } from '../scenario/nesting';
import type { Piece } from '../trace/json-position';

/**
 * A trace that cannot be read. Where the text has a position the message reads
 * `line:column: what is wrong; what would be valid`, and `inFile` puts the file's name in front
 * (`file:line:column: ...`); binary input without lines names the byte instead.
 */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    readonly detail: string,
    readonly offset?: number,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(ImportError.text(detail, offset, line, column));
  }

  /** Names the file the error is in, once. */
  inFile(file: string): this {
    if (!this.message.startsWith(file + ':'))
      this.message = this.line ? `${file}:${this.message}` : `${file}: ${this.message}`;
    return this;
  }

  private static text(detail: string, offset?: number, line?: number, column?: number): string {
    if (line) return `${line}:${column}: ${detail}`;
    return offset === undefined ? detail : `${detail} at byte ${offset}`;
  }
}

/**
 * The largest trace event, and the largest text around the events array, that the scanner holds:
 * real events are a few hundred bytes, and a bound keeps a hostile file from costing gigabytes.
 */
export const MAX_EVENT_BYTES = 64 << 20;

export interface EventScanner {
  push(chunk: string | Uint8Array): void;
  /** Checks that the document ended properly; returns the root object without its events. */
  finish(): Record<string, unknown>;
  /**
   * The text around the events arrays, in the pieces it was kept in, each with its offset in the
   * document: together they read as the root with each events array empty. None for a bare array.
   */
  readonly rootText: readonly Piece[];
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
const EMPTY = new Uint8Array(0);
const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  LF = 0x0a,
  COMMA = 0x2c;
const STRING = 1,
  OPEN = 3,
  CLOSE = 4;
/** What each byte means to the event scanner; 0 for the bytes it passes over. */
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = STRING;
CLASS[0x7b] = CLASS[0x5b] = OPEN;
CLASS[0x7d] = CLASS[0x5d] = CLOSE;
const isSpace = (c: number) => c === 0x20 || c === LF || c === 0x0d || c === 0x09;

/** UTF-8 bytes to text, for hosts with a decoder of their own (see ImportOptions). */
export type Utf8Decoder = (bytes: Uint8Array) => string;

const EVENTS = ['traceEvents'];
const MIB = `${MAX_EVENT_BYTES / (1 << 20)} MiB`;

/**
 * Bytes at a known place in the file, with what is needed to turn an absolute offset in them into
 * a line and column: the newlines before them, and the offset of the last one.
 */
interface Span extends Piece {
  linesBefore: number;
  lastNlBefore: number;
}

/** 1-based line and byte column of an absolute offset inside (or just past) a span. */
function locate(s: Span, abs: number): [number, number] {
  const upto = Math.max(0, Math.min(abs - s.at, s.bytes.length));
  const [lines, lastNl] = countLines(s.bytes, upto);
  return [s.linesBefore + lines + 1, abs - (lastNl >= 0 ? s.at + lastNl : s.lastNlBefore)];
}

/** Newlines in bytes[0, upto), and the index of the last one (-1 if none). */
function countLines(bytes: Uint8Array, upto: number): [number, number] {
  let lines = 0;
  let last = -1;
  for (let at = bytes.indexOf(LF); at >= 0 && at < upto; at = bytes.indexOf(LF, at + 1)) {
    lines++;
    last = at;
  }
  return [lines, last];
}

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
 * Each chunk is scanned where it lies and let go at its end. An event that goes on past its chunk
 * is kept as a list of pieces and joined once, when it ends, so that the cost stays linear in the
 * size of the file however large the event. Newlines are counted once, as each chunk is read (in
 * the text of each run parsed at once, in the bytes elsewhere), and an error's line and column are
 * worked out only when there is an error.
 */
class Scanner implements EventScanner {
  private buf: Uint8Array = EMPTY;
  private offset = 0; // absolute byte offset of buf[0]
  private linesBefore = 0; // newlines before buf[0]
  private lastNlBefore = -1; // absolute offset of the last newline before buf[0]
  private mode = Mode.Start;
  private depth = 0;
  private eventsDepth = -1;
  private inString = false;
  private escaped = false;
  private needComma = false;
  private keyText: string | undefined; // the root-level string being read, while it may be one of `keys`
  private key = 0; // index in `keys` of the last key read, then of the array being read
  private keyState = 0; // 1: read one of `keys`, 2: and its ':'
  events = 0;
  /** `events` when the current array opened: an empty array is one with none since then. */
  private eventsAtOpen = 0;
  private readonly rest: Span[] = [];
  private restBytes = 0;
  /** The pieces of an event begun in an earlier chunk, and where it began. */
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private heldStart: Omit<Span, 'bytes'> = { at: 0, linesBefore: 0, lastNlBefore: -1 };
  /** The joined event being parsed, for positions inside it. */
  private joined: Span | undefined;

  // The state of one scan of buf (one call of `scan`).
  private runFrom = -1; // first complete event of this push not yet parsed
  private runTo = -1;
  private starts: number[] = [];
  private eventStart = -1;
  private rootFrom = -1;
  private bulkFailed = false;
  // The newlines of buf[0, counted): how many, and the index of the last.
  private counted = 0;
  private chunkLines = 0;
  private chunkLastNl = -1;

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
    this.buf = bytes;
    this.counted = 0;
    this.chunkLines = 0;
    this.chunkLastNl = -1;
    this.scan();
    this.countLinesTo(bytes.length);
    this.linesBefore += this.chunkLines;
    if (this.chunkLastNl >= 0) this.lastNlBefore = this.offset + this.chunkLastNl;
    this.offset += bytes.length;
    this.buf = EMPTY;
    this.onProgress?.(this.offset);
  }

  finish(): Record<string, unknown> {
    const end = this.offset;
    const { mode, keys } = this;
    if (mode === Mode.Start)
      throw new ImportError(
        'the file is empty or only white space; expected a JSON trace: an object with "traceEvents", or an array of events',
      );
    if (mode !== Mode.Done) {
      const inside = mode === Mode.Root ? 'the trace object' : 'the traceEvents array';
      this.fail(
        `truncated: the text ends inside ${inside}, after ${this.events} complete events; ` +
          'a trace ends with the brackets that close it',
        end,
      );
    }
    if (this.eventsDepth < 0)
      throw new ImportError(
        `no ${keys.map((k) => `"${k}"`).join(' or ')} array` +
          (keys === EVENTS
            ? '; a Chrome or PyTorch trace is an object with "traceEvents": [...], or an array of events'
            : ''),
      );
    return this.parseRest();
  }

  get bytes(): number {
    return this.offset + this.buf.length;
  }

  get rootText(): readonly Span[] {
    return this.rest;
  }

  /** 1-based line and byte column of an offset in the current chunk, or in the event being joined. */
  private where(abs: number): [number, number] {
    if (this.joined && abs < this.offset) return locate(this.joined, abs);
    return locate(this.current(), abs);
  }

  private current(): Span {
    return { bytes: this.buf, at: this.offset, linesBefore: this.linesBefore, lastNlBefore: this.lastNlBefore };
  }

  private fail(detail: string, abs: number): never {
    const [line, column] = this.where(abs);
    throw new ImportError(detail, abs, line, column);
  }

  /** Scans buf: each byte goes to the handler of the mode the scanner is in. */
  private scan(): void {
    const b = this.buf;
    const n = b.length;
    this.runFrom = -1;
    this.runTo = -1;
    this.starts = [];
    this.eventStart = -1; // an event left open by the previous chunk is in `held`
    this.rootFrom = this.mode === Mode.Root ? 0 : -1;
    this.bulkFailed = false;
    let i = 0;
    for (; i < n; i++) {
      if (this.mode === Mode.Event) {
        i = this.eventBody(b, i, n);
        if (i >= n) break;
        this.eventEnded(i);
        continue;
      }
      const c = b[i];
      if (this.inString) this.stringByte(c);
      else if (isSpace(c)) continue;
      else if (this.mode === Mode.Between) i = this.between(b, i, n, c);
      else if (this.mode === Mode.Start) this.start(c, i);
      else if (this.mode === Mode.Done)
        this.fail('unexpected text after the end of the trace; only white space may follow it', this.offset + i);
      else this.root(b, c, i);
    }
    this.scanned(b, n);
  }

  /**
   * Mode.Event, the hot loop: inside an event only quotes and brackets matter. Returns the index of
   * the `}` that closes the event, or n when the event goes on past the chunk.
   */
  private eventBody(b: Uint8Array, i: number, n: number): number {
    if (this.inString) {
      // A string left open by the previous chunk, maybe just after a backslash.
      let j = this.escaped ? i + 1 : i;
      for (; j < n; j++) {
        const x = b[j];
        if (x === QUOTE) break;
        if (x === BACKSLASH) j++;
      }
      if (j >= n) {
        this.escaped = j > n;
        return n;
      }
      this.inString = false;
      this.escaped = false;
      i = j + 1;
    }
    let d = this.depth;
    const until = this.eventsDepth;
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
      } else if (k === OPEN) d++;
      else if (--d === until) break;
    }
    this.depth = d;
    return this.inString ? n : i;
  }

  /** The event that began at eventStart (or in `held`) ended at b[i]: it joins the run to parse. */
  private eventEnded(i: number): void {
    this.mode = Mode.Between;
    this.needComma = true;
    if (this.heldBytes) {
      this.parseHeld(i + 1);
      return;
    }
    if (i + 1 - this.eventStart > MAX_EVENT_BYTES)
      this.tooLarge(this.events + this.starts.length - 1, this.offset + this.eventStart);
    if (this.runFrom < 0) this.runFrom = this.eventStart;
    this.runTo = i + 1;
  }

  /** Trace event #index, which begins at `abs`, is over the size limit. */
  private tooLarge(index: number, abs: number): never {
    this.fail(`trace event #${index} is larger than ${MIB}; ` + `a trace event must be smaller than ${MIB}`, abs);
  }

  /** The event kept in pieces ends at buf[end - 1]: joined once, and parsed on its own. */
  private parseHeld(end: number): void {
    const size = this.heldBytes + end;
    if (size > MAX_EVENT_BYTES) this.tooLarge(this.events, this.heldStart.at);
    const all = new Uint8Array(size);
    let at = 0;
    for (const piece of this.held) {
      all.set(piece, at);
      at += piece.length;
    }
    all.set(this.buf.subarray(0, end), at);
    this.held = [];
    this.heldBytes = 0;
    this.joined = { bytes: all, ...this.heldStart };
    this.parseRun(this.joined, 0, size, [this.heldStart.at]);
    this.joined = undefined;
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
        this.flushRun();
        this.events += parsed.length;
        this.onEvents(parsed, this.keys[this.key]);
        this.needComma = true;
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
      this.flushRun();
      this.depth--;
      this.mode = this.depth === 0 ? Mode.Done : Mode.Root; // a bare array ends the document
      this.rootFrom = i;
    } else
      this.fail(
        this.needComma
          ? "unexpected text after a trace event; expected ',' or ']'"
          : "unexpected text in the events array; expected a trace event object '{...}'",
        this.offset + i,
      );
    return i;
  }

  /** Parses the run of events found byte by byte, if any, before what comes next. */
  private flushRun(): void {
    if (this.runFrom >= 0) this.parseRun(this.current(), this.runFrom, this.runTo, this.starts);
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
    if (c !== 0x7b)
      this.fail(
        'this is not a JSON trace; expected a JSON object with "traceEvents", or an array of trace events',
        this.offset + i,
      );
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
      this.keepRoot(b, i + 1);
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
      this.keepRoot(b, i + 1);
      this.mode = Mode.Done;
    }
  }

  /** Keeps b[rootFrom, to), a piece of the text around the events, with its place in the file. */
  private keepRoot(b: Uint8Array, to: number): void {
    const from = this.rootFrom;
    this.rootFrom = -1;
    if (to <= from) return;
    this.restBytes += to - from;
    if (this.restBytes > MAX_EVENT_BYTES)
      this.fail(
        `the text around the traceEvents array is larger than ${MIB}; ` +
          `a trace's fields besides its events must be smaller than ${MIB}`,
        this.offset + from,
      );
    this.rest.push({ bytes: b.slice(from, to), ...this.placeOf(from) });
  }

  /** At the end of a chunk: parses the last run, and keeps what is still open, the text around the events or an event. */
  private scanned(b: Uint8Array, n: number): void {
    if (this.runFrom >= 0)
      this.parseRun(
        this.current(),
        this.runFrom,
        this.runTo,
        this.mode === Mode.Event && this.eventStart >= 0 ? this.starts.slice(0, -1) : this.starts,
      );
    this.runFrom = -1;
    if (this.mode === Mode.Root && this.rootFrom >= 0) this.keepRoot(b, n);
    if (this.mode !== Mode.Event) return;
    const from = Math.max(this.eventStart, 0);
    if (this.heldBytes + n - from > MAX_EVENT_BYTES)
      this.tooLarge(this.events, this.heldBytes ? this.heldStart.at : this.offset + from);
    if (!this.heldBytes) this.heldStart = this.placeOf(from);
    // A copy: the caller may reuse the chunk's memory once push returns.
    this.held.push(b.slice(from, n));
    this.heldBytes += n - from;
  }

  /** JSON.parse of one run of events in `s`; on failure, finds the exact byte that is wrong. */
  private parseRun(s: Span, from: number, to: number, starts: number[]): void {
    const { bytes, at } = s;
    const text = this.decode(bytes.subarray(from, to));
    let list: unknown[];
    try {
      list = JSON.parse('[' + text + ']') as unknown[];
    } catch {
      for (let k = 0; k < starts.length; k++) {
        const a = starts[k] - at;
        const e = k + 1 < starts.length ? starts[k + 1] - at : to;
        const piece = decoder.decode(bytes.subarray(a, e));
        const bad = firstJsonError(piece.replace(/[\s,]*$/, ''));
        if (bad)
          this.fail(
            `malformed trace event #${this.events + k}: ${bad.message}; a trace event is a strict JSON object`,
            starts[k] + byteLength(piece.slice(0, bad.offset)),
          );
      }
      return this.fail('malformed trace events; trace events are strict JSON objects', at + from);
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
  private parseBulk(from: number, to: number): unknown[] | undefined {
    const text = this.decode(this.buf.subarray(from, to));
    let list: unknown[];
    try {
      list = JSON.parse('[' + text + ']') as unknown[];
    } catch {
      return undefined;
    }
    for (const e of list) if (typeof e !== 'object' || e === null || Array.isArray(e)) return undefined;
    this.countLinesTo(from);
    this.countLinesIn(text, to);
    return list;
  }

  /** Where buf[i] lies in the document: its offset, and the newlines before it. */
  private placeOf(i: number): Omit<Span, 'bytes'> {
    // Counted on from where the count got to; a place before it (never, in file order) is counted afresh.
    if (i >= this.counted) this.countLinesTo(i);
    const [lines, last] = i === this.counted ? [this.chunkLines, this.chunkLastNl] : countLines(this.buf, i);
    return {
      at: this.offset + i,
      linesBefore: this.linesBefore + lines,
      lastNlBefore: last >= 0 ? this.offset + last : this.lastNlBefore,
    };
  }

  /** Counts the newlines of buf[counted, to) from its bytes. */
  private countLinesTo(to: number): void {
    const b = this.buf;
    for (let at = b.indexOf(LF, this.counted); at >= 0 && at < to; at = b.indexOf(LF, at + 1)) {
      this.chunkLines++;
      this.chunkLastNl = at;
    }
    this.counted = to;
  }

  /**
   * Counts the newlines of buf[counted, to) from `text`, its decoded form: searching a string is
   * far cheaper per line than searching bytes, and a newline is one byte and one character in UTF-8.
   */
  private countLinesIn(text: string, to: number): void {
    let lines = 0;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
    if (lines) {
      this.chunkLines += lines;
      this.chunkLastNl = this.buf.lastIndexOf(LF, to - 1);
    }
    this.counted = to;
  }

  private parseRest(): Record<string, unknown> {
    const { rest } = this;
    if (this.eventsDepth === 1) return {};
    const all = new Uint8Array(this.restBytes);
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
      const [line, column] = locate(part, part.at + byte);
      throw new ImportError(`malformed trace: ${bad.message}; a trace is strict JSON`, part.at + byte, line, column);
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

function byteLength(s: string): number {
  return encoder.encode(s).length;
}

/** The first syntax error of strict JSON text, with its character offset; undefined if valid. */
export function firstJsonError(text: string): { offset: number; message: string } | undefined {
  // The visitor recurses once per level: a deep document must be refused before it walks it.
  const deep = tooDeep(text);
  if (deep >= 0)
    return { offset: deep, message: `nested deeper than ${MAX_NESTING} levels; expected at most ${MAX_NESTING}` };
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
