// Reads Chrome trace-event JSON (`{"traceEvents":[...], ...}` or a bare `[...]`) in chunks, without
// ever holding the whole text: a byte scanner finds where each event object ends, and each run of
// complete events is handed to JSON.parse as one small array. Memory stays proportional to one
// chunk plus what the caller keeps, so files beyond V8's largest string (512 MB) load too.
// The ES module entry: the UMD one does not bundle (see core/scenario/jsonc.ts).
import { printParseErrorCode, visit } from 'jsonc-parser/lib/esm/main.js';
import type { ParseErrorCode } from 'jsonc-parser/lib/esm/main.js';

export class ImportError extends Error {
  override name = 'ImportError';
  constructor(detail: string, readonly offset?: number, readonly line?: number, readonly column?: number) {
    super(offset === undefined ? detail : `${detail} at byte ${offset}` + (line ? ` (line ${line}, column ${column})` : ''));
  }
}

export interface EventScanner {
  push(chunk: string | Uint8Array): void;
  /** Checks that the document ended properly; returns the root object without its events. */
  finish(): Record<string, unknown>;
  readonly bytes: number;
  readonly events: number;
}

const enum Mode { Start, Root, Between, Event, Done }
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const QUOTE = 0x22, BACKSLASH = 0x5c, LF = 0x0a, COMMA = 0x2c;
const STRING = 1, NEWLINE = 2, OPEN = 3, CLOSE = 4;
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
export function createEventScanner(onEvents: (events: unknown[], key: string) => void, onProgress?: (bytes: number) => void,
  decode: Utf8Decoder = (bytes) => decoder.decode(bytes), keys: readonly string[] = EVENTS): EventScanner {
  let buf: Uint8Array = new Uint8Array(0);
  let stopAfterEvent = false;
  let offset = 0; // absolute byte offset of buf[0]
  let pos = 0; // scan position in buf
  let mode = Mode.Start;
  let depth = 0;
  let eventsDepth = -1;
  let inString = false;
  let escaped = false;
  let needComma = false;
  let keyText: string | undefined; // the root-level string being read, while it may be one of `keys`
  let key = 0; // index in `keys` of the last key read, then of the array being read
  let keyState = 0; // 1: read one of `keys`, 2: and its ':'
  let lines = 0; // newlines before buf[pos]
  let events = 0;
  /** `events` when the current array opened: an empty array is one with none since then. */
  let eventsAtOpen = 0;
  const rest: { bytes: Uint8Array; offset: number }[] = [];

  let lastNlBeforeBuf = -1; // absolute offset of the last newline before buf[0]
  /** 1-based line and byte column of an offset between buf[0] and buf[pos]. */
  const where = (abs: number): [number, number] => {
    let line = lines;
    for (let i = pos - 1; i >= abs - offset; i--) if (buf[i] === LF) line--;
    const before = abs > offset ? buf.lastIndexOf(LF, abs - offset - 1) : -1;
    return [line + 1, abs - (before >= 0 ? offset + before : lastNlBeforeBuf)];
  };
  const fail = (detail: string, abs: number): never => {
    const [line, column] = where(abs);
    throw new ImportError(detail, abs, line, column);
  };

  /** JSON.parse of one run of events; on failure, finds the exact byte that is wrong. */
  function parseRun(from: number, to: number, starts: number[]): void {
    const text = decode(buf.subarray(from, to));
    let list: unknown[];
    try {
      list = JSON.parse('[' + text + ']') as unknown[];
    } catch {
      for (let k = 0; k < starts.length; k++) {
        const s = starts[k] - offset;
        const e = k + 1 < starts.length ? starts[k + 1] - offset : to;
        const piece = buf.subarray(s, e);
        const bad = firstJsonError(decoder.decode(piece).replace(/[\s,]*$/, ''));
        if (bad) fail(`malformed trace event #${events + k}: ${bad.message}`, starts[k] + byteLength(decoder.decode(piece).slice(0, bad.offset)));
      }
      return fail('malformed trace events', offset + from);
    }
    events += list.length;
    onEvents(list, keys[key]);
  }

  /**
   * The fast path: the events of up to BULK_WINDOW bytes, cut at the last `}` that looks like the
   * end of an event (see `bulkEnd`) and parsed as one array, without a byte-by-byte scan. A successful parse proves the
   * cut right: `[` + text from an event's `{` + `]` is valid JSON only when the text ends where an
   * event ends, since a cut inside an event leaves its `{` open (a `]` closes only an array, and
   * inside a string it leaves the string open). A wrong guess, a malformed or a non-object event
   * give undefined, and the exact scanner takes over.
   */
  function parseBulk(from: number, to: number): { list: unknown[]; text: string } | undefined {
    const text = decode(buf.subarray(from, to));
    let list: unknown[];
    try {
      list = JSON.parse('[' + text + ']') as unknown[];
    } catch {
      return undefined;
    }
    for (const e of list) if (typeof e !== 'object' || e === null || Array.isArray(e)) return undefined;
    return { list, text };
  }

  function scan(): void {
    const b = buf;
    const n = b.length;
    let runFrom = -1; // first complete event of this push not yet parsed
    let runTo = -1;
    let starts: number[] = [];
    let eventStart = -1;
    let rootFrom = mode === Mode.Root ? pos : -1;
    let bulkFailed = stopAfterEvent;
    let i = pos;
    // An event left open by the previous chunk starts at buf[0].
    if (mode === Mode.Event) {
      eventStart = 0;
      starts.push(offset);
    }
    for (; i < n; i++) {
      if (mode === Mode.Event && !inString) {
        // The hot loop: inside an event only quotes, brackets and newlines matter.
        let d = depth;
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
              inString = true;
              escaped = j > n; // the chunk ended on a backslash
              break;
            }
            i = j;
          } else if (k === NEWLINE) lines++;
          else if (k === OPEN) d++;
          else if (--d === eventsDepth) break;
        }
        depth = d;
        if (inString || i >= n) {
          i = n;
          break;
        }
        mode = Mode.Between;
        needComma = true;
        if (runFrom < 0) runFrom = eventStart;
        runTo = i + 1;
        if (stopAfterEvent) {
          i++;
          break;
        }
        continue;
      }
      const c = b[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (mode === Mode.Root && depth === 1) {
            key = keyText === undefined ? -1 : keys.indexOf(keyText);
            keyState = key >= 0 ? 1 : 0;
          }
          keyText = undefined;
          continue;
        }
        // Keys are plain ASCII: an escape or a long string is none of them.
        if (keyText !== undefined) keyText = c === BACKSLASH || keyText.length > 64 ? undefined : keyText + String.fromCharCode(c);
        continue;
      }
      if (c === LF) {
        lines++;
        continue;
      }
      if (isSpace(c)) continue;
      if (mode === Mode.Between) {
        if (c === 0x7b && !needComma) {
          // After a wrong guess the exact scanner reads the rest of the chunk.
          const bulk = bulkFailed || n - i < BULK_MIN ? -1 : bulkEnd(b, i, Math.min(n, i + BULK_WINDOW));
          const parsed = bulk > 0 ? parseBulk(i, bulk + 1) : undefined;
          if (bulk > 0 && !parsed) bulkFailed = true;
          if (parsed) {
            // Events in file order: the run found byte by byte before this one goes first.
            pos = i; // where() counts lines back from pos
            if (runFrom >= 0) parseRun(runFrom, runTo, starts);
            runFrom = -1;
            starts = [];
            events += parsed.list.length;
            onEvents(parsed.list, keys[key]);
            const text = parsed.text;
            for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
            i = bulk;
            needComma = true;
            continue;
          }
          mode = Mode.Event;
          depth++;
          eventStart = i;
          starts.push(offset + i);
        } else if (c === COMMA && needComma) needComma = false;
        else if (c === 0x5d && (needComma || starts.length + events === eventsAtOpen && runFrom < 0)) {
          pos = i;
          if (runFrom >= 0) parseRun(runFrom, runTo, starts);
          runFrom = -1;
          starts = [];
          depth--;
          mode = depth === 0 ? Mode.Done : Mode.Root; // a bare array ends the document
          rootFrom = i;
        } else fail(needComma ? "expected ',' or ']' after a trace event" : 'expected a trace event object', offset + i);
        continue;
      }
      if (mode === Mode.Start) {
        if (c === 0x5b) {
          // A bare array of events (Chrome's "JSON Array Format").
          mode = Mode.Between;
          depth = 1;
          eventsDepth = 1;
          eventsAtOpen = events;
          continue;
        }
        if (c === 0xef || c === 0xbb || c === 0xbf) continue; // a UTF-8 byte order mark
        if (c !== 0x7b) fail('expected a JSON object or array of trace events', offset + i);
        mode = Mode.Root;
        rootFrom = i;
        depth = 1;
        continue;
      }
      if (mode === Mode.Done) fail('unexpected text after the end of the trace', offset + i);
      // Mode.Root: the small part of the document around the events, kept as text.
      if (c === QUOTE) {
        inString = true;
        keyText = depth === 1 ? '' : undefined;
        continue;
      }
      if (depth === 1 && c === 0x3a && keyState === 1) {
        keyState = 2;
        continue;
      }
      if (c === 0x5b && depth === 1 && keyState === 2) {
        rest.push({ bytes: b.slice(rootFrom, i + 1), offset: offset + rootFrom });
        mode = Mode.Between;
        depth = 2;
        eventsDepth = 2;
        eventsAtOpen = events;
        needComma = false;
        keyState = 0;
        continue;
      }
      keyState = 0;
      if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) {
          rest.push({ bytes: b.slice(rootFrom, i + 1), offset: offset + rootFrom });
          rootFrom = -1;
          mode = Mode.Done;
        }
      }
    }
    pos = i;
    if (runFrom >= 0) parseRun(runFrom, runTo, mode === Mode.Event ? starts.slice(0, -1) : starts);
    // Keep only what is still open: the current event, or nothing.
    if (mode === Mode.Root && rootFrom >= 0) rest.push({ bytes: b.slice(rootFrom, n), offset: offset + rootFrom });
    const keep = i < n ? i : mode === Mode.Event ? eventStart : n;
    if (keep > 0) {
      const nl = buf.lastIndexOf(LF, keep - 1);
      if (nl >= 0) lastNlBeforeBuf = offset + nl;
      buf = buf.subarray(keep);
      offset += keep;
      pos -= keep;
    }
  }

  return {
    push(chunk) {
      // A plain view: copying from a Uint8Array subclass (Node's Buffer) takes V8's slow path.
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (!bytes.length) return;
      if (buf.length) {
        // An event is open. Finish it on a copy of the chunk's first bytes, then scan the rest of
        // the chunk where it lies: a whole chunk is never copied unless one event outgrows that.
        const head = Math.min(bytes.length, 1 << 16);
        buf = concat(buf, bytes.subarray(0, head));
        stopAfterEvent = true;
        scan();
        stopAfterEvent = false;
        if (buf.length && mode === Mode.Event) buf = concat(buf, bytes.subarray(head));
        else buf = bytes.subarray(head - buf.length);
      } else buf = bytes;
      scan();
      onProgress?.(offset + buf.length);
    },
    finish() {
      const end = offset + buf.length;
      if (mode === Mode.Start) throw new ImportError('empty file: expected a JSON trace', end);
      if (mode !== Mode.Done) {
        const [line, column] = where(end);
        const inside = mode === Mode.Root ? 'the trace object' : 'the traceEvents array';
        throw new ImportError(`truncated: the text ends inside ${inside}, after ${events} complete events,`, end, line, column);
      }
      if (eventsDepth < 0) throw new ImportError(`no ${keys.map((k) => `"${k}"`).join(' or ')} array` + (keys === EVENTS ? ': this is not a Chrome or PyTorch trace' : ''), 0);
      return parseRest();
    },
    get bytes() {
      return offset + buf.length;
    },
    get events() {
      return events;
    },
  };

  function parseRest(): Record<string, unknown> {
    if (eventsDepth === 1) return {};
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
  visit(text, {
    onError(error: ParseErrorCode, offset: number) {
      found ??= { offset, message: describeError(printParseErrorCode(error)) };
    },
    onComment(offset: number) {
      found ??= { offset, message: 'comments are not JSON' };
    },
  }, { disallowComments: true, allowTrailingComma: false });
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
  code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().replace(/^invalid symbol$/, 'unexpected character');
