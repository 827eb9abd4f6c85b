// Byte-level walks over a JSON document held as chunks, without recursion, so that no nesting in
// a hostile file can exhaust the stack. `checkShape` runs on every load (nesting and top-level
// keys given twice, which JSON.parse would silently drop); the others run once, after a check
// failed, to turn a JSON path or a byte offset into the line and column an editor shows.

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  LF = 0x0a,
  COMMA = 0x2c,
  COLON = 0x3a;
const isOpen = (c: number) => c === 0x7b || c === 0x5b;
const isClose = (c: number) => c === 0x7d || c === 0x5d;
const isSpace = (c: number) => c === 0x20 || c === LF || c === 0x0d || c === 0x09;
/** Keys longer than this are kept only in part: no key the checks look for is anywhere near it. */
const KEY_BYTES = 64;

export type JsonPath = readonly (string | number)[];

export type ShapeProblem = { kind: 'depth'; offset: number } | { kind: 'duplicate'; key: string; offset: number };

/** What each byte means to checkShape; 0 for the bytes it passes over. */
const SHAPE = new Uint8Array(256);
const S_QUOTE = 1,
  S_OPEN = 2,
  S_CLOSE = 3,
  S_COMMA = 4;
SHAPE[QUOTE] = S_QUOTE;
SHAPE[0x7b] = SHAPE[0x5b] = S_OPEN;
SHAPE[0x7d] = SHAPE[0x5d] = S_CLOSE;
SHAPE[COMMA] = S_COMMA;

/** Bytes of the document and the offset of their first byte in it. */
export interface Piece {
  bytes: Uint8Array;
  at: number;
}

/**
 * The first place where the document nests deeper than `maxDepth` containers outside the root's
 * arrays named in `rows`, or where the root object names a key a second time. The document is
 * already known to be valid JSON. `pieces` are the document in order, whole or with parts cut out
 * that hold no root key (a rows array's content); offsets are the pieces' own. It runs on every
 * load, so the loop outside strings looks each byte up once, and a string that is not a root key
 * is skipped in a loop of its own.
 */
export function checkShape(
  pieces: readonly Piece[],
  maxDepth: number,
  rows: ReadonlySet<string> = new Set(),
): ShapeProblem | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let inString = false;
  let escaped = false;
  let keyNext = false; // the next string at depth 1 is a key of the root
  let key: number[] | undefined; // the root key being read
  let keyAt = 0;
  let rowsNext = false; // the last root key names a rows array
  let limit = maxDepth; // Infinity inside a rows array
  for (const { bytes: b, at: base } of pieces) {
    const n = b.length;
    for (let i = 0; i < n; i++) {
      if (inString) {
        // Skip to the closing quote; only a root key keeps its bytes.
        if (key) {
          for (; i < n; i++) {
            const c = b[i];
            if (escaped) escaped = false;
            else if (c === BACKSLASH) escaped = true;
            else if (c === QUOTE) break;
            if (key.length < KEY_BYTES) key.push(c);
          }
        } else {
          if (escaped) {
            escaped = false;
            i++;
          }
          for (; i < n; i++) {
            const c = b[i];
            if (c === QUOTE) break;
            if (c === BACKSLASH && ++i === n) escaped = true;
          }
        }
        if (i >= n) break;
        inString = false;
        if (key) {
          const name = keyText(key);
          if (seen.has(name)) return { kind: 'duplicate', key: name, offset: keyAt };
          seen.add(name);
          rowsNext = rows.has(name);
          key = undefined;
        }
        continue;
      }
      const k = SHAPE[b[i]];
      if (k === 0) continue;
      if (k === S_QUOTE) {
        inString = true;
        if (keyNext && depth === 1) {
          key = [];
          keyAt = base + i;
          keyNext = false;
        }
      } else if (k === S_OPEN) {
        if (++depth > limit) return { kind: 'depth', offset: base + i };
        keyNext = depth === 1 && b[i] === 0x7b;
        if (depth === 2 && rowsNext && b[i] === 0x5b) limit = Infinity;
      } else if (k === S_CLOSE) {
        if (--depth === 1) limit = maxDepth;
      } else if (depth === 1) {
        keyNext = true;
        rowsNext = false;
      }
    }
  }
  return undefined;
}

/** 1-based line and column (in characters) of a byte offset. */
export function lineColumn(chunks: readonly Uint8Array[], offset: number): { line: number; column: number } {
  let line = 1;
  let column = 1;
  let at = 0;
  for (const b of chunks) {
    const end = Math.min(b.length, offset - at);
    for (let i = 0; i < end; i++) {
      const c = b[i];
      if (c === LF) {
        line++;
        column = 1;
      } else if ((c & 0xc0) !== 0x80) column++; // a UTF-8 continuation byte is part of the character before
    }
    at += b.length;
    if (at >= offset) break;
  }
  return { line, column };
}

/**
 * The byte offset of the value at `path`, or of its deepest ancestor that exists when it does not.
 * A key given twice resolves to the last, as JSON.parse does.
 */
export function offsetOfPath(chunks: readonly Uint8Array[], path: JsonPath): number {
  const w = new PathWalk(path);
  let base = 0;
  for (const b of chunks) {
    w.chunk(b, base);
    base += b.length;
  }
  return w.best;
}

const OBJECT = 1,
  ARRAY = 2;

/** One pass over the document, tracking each open container's current key or index. */
class PathWalk {
  best = 0;
  private bestLength = 0;
  private readonly kind: number[] = [];
  private readonly at: (string | number)[] = []; // per open container: the key or index of its current member
  private matched = 0; // open containers, from the root, that lie on the path
  private expect: 'value' | 'key' | 'colon' | 'after' = 'value';
  private inString = false;
  private escaped = false;
  private key: number[] | undefined;
  private scalar = false;
  private started = false;

  constructor(private readonly path: JsonPath) {}

  chunk(b: Uint8Array, base: number): void {
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (this.inString) this.stringByte(c);
      else if (this.scalar && (isSpace(c) || c === COMMA || isClose(c))) {
        this.scalar = false;
        this.expect = 'after';
        this.structural(c, base + i);
      } else if (!this.scalar && !isSpace(c)) this.structural(c, base + i);
    }
  }

  private stringByte(c: number): void {
    if (this.escaped) this.escaped = false;
    else if (c === BACKSLASH) this.escaped = true;
    else if (c === QUOTE) {
      this.inString = false;
      if (this.key) {
        this.at[this.at.length - 1] = keyText(this.key);
        this.key = undefined;
        this.expect = 'colon';
      } else this.expect = 'after';
      return;
    }
    if (this.key && this.key.length < KEY_BYTES) this.key.push(c);
  }

  private structural(c: number, offset: number): void {
    const depth = this.kind.length;
    if (this.expect === 'key') {
      if (c === QUOTE) {
        this.inString = true;
        this.key = [];
      } else if (c === 0x7d) this.close();
      return;
    }
    if (this.expect === 'colon') {
      if (c === COLON) this.expect = 'value';
      return;
    }
    if (this.expect === 'after') {
      if (c === COMMA) {
        if (this.kind[depth - 1] === ARRAY) {
          (this.at[depth - 1] as number)++;
          this.expect = 'value';
        } else this.expect = 'key';
      } else if (isClose(c)) this.close();
      return;
    }
    if (c === 0x5d && this.kind[depth - 1] === ARRAY) return this.close(); // an empty array
    this.value(c, offset, depth);
  }

  private value(c: number, offset: number, depth: number): void {
    if (depth === 0 && this.started) return;
    this.started = true;
    const onPath = this.matched === depth && (depth === 0 || this.at[depth - 1] === this.path[depth - 1]);
    if (onPath && depth >= this.bestLength) {
      this.best = offset;
      this.bestLength = depth;
    }
    if (isOpen(c)) {
      this.kind.push(c === 0x7b ? OBJECT : ARRAY);
      this.at.push(0);
      if (onPath && depth < this.path.length) this.matched = depth + 1;
      this.expect = c === 0x7b ? 'key' : 'value';
    } else if (c === QUOTE) this.inString = true;
    else this.scalar = true;
  }

  private close(): void {
    if (this.matched === this.kind.length) this.matched--;
    this.kind.pop();
    this.at.pop();
    this.expect = 'after';
  }
}

/** A key's text from its raw bytes; escapes are decoded by JSON.parse of the (short) quoted form. */
function keyText(bytes: number[]): string {
  const raw = new TextDecoder().decode(new Uint8Array(bytes));
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
