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
const KEY = Array.from('traceEvents', (c) => c.charCodeAt(0));
const QUOTE = 0x22, BACKSLASH = 0x5c, LF = 0x0a, COMMA = 0x2c;
const STRING = 1, NEWLINE = 2, OPEN = 3, CLOSE = 4;
/** What each byte means to the event scanner; 0 for the bytes it passes over. */
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = STRING;
CLASS[LF] = NEWLINE;
CLASS[0x7b] = CLASS[0x5b] = OPEN;
CLASS[0x7d] = CLASS[0x5d] = CLOSE;
const isSpace = (c: number) => c === 0x20 || c === LF || c === 0x0d || c === 0x09;

/** `onEvents` gets each run of parsed events in file order; `onProgress` the bytes consumed so far. */
export function createEventScanner(onEvents: (events: unknown[]) => void, onProgress?: (bytes: number) => void): EventScanner {
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
  let keyMatch = -1; // bytes of "traceEvents" matched by the root-level string being read
  let keyState = 0; // 1: read the key "traceEvents", 2: and its ':'
  let lines = 0; // newlines before buf[pos]
  let events = 0;
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
    const text = decoder.decode(buf.subarray(from, to));
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
    onEvents(list);
  }

  function scan(): void {
    const b = buf;
    const n = b.length;
    let runFrom = -1; // first complete event of this push not yet parsed
    let runTo = -1;
    let starts: number[] = [];
    let eventStart = -1;
    let rootFrom = mode === Mode.Root ? pos : -1;
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
          if (mode === Mode.Root && depth === 1) keyState = keyMatch === KEY.length ? 1 : 0;
        } else if (keyMatch >= 0) keyMatch = keyMatch < KEY.length && c === KEY[keyMatch] ? keyMatch + 1 : -1;
        continue;
      }
      if (c === LF) {
        lines++;
        continue;
      }
      if (isSpace(c)) continue;
      if (mode === Mode.Between) {
        if (c === 0x7b && !needComma) {
          mode = Mode.Event;
          depth++;
          eventStart = i;
          starts.push(offset + i);
        } else if (c === COMMA && needComma) needComma = false;
        else if (c === 0x5d && (needComma || starts.length + events === 0 && runFrom < 0)) {
          if (runFrom >= 0) parseRun(runFrom, runTo, starts);
          runFrom = -1;
          starts = [];
          depth--;
          mode = eventsDepth === 0 ? Mode.Done : Mode.Root;
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
        keyMatch = depth === 1 ? 0 : -1;
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
        needComma = false;
        keyState = 0;
        keyMatch = -1;
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
      if (eventsDepth < 0) throw new ImportError('no "traceEvents" array: this is not a Chrome or PyTorch trace', 0);
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
