// Errors of a scenario file, each pinned to the line and column of the text that caused it, so
// that the editor can underline it and the CLI can print `file:line:column: detail`.
import type { Node } from './jsonc';
import type { Pos } from './program';

export class ScenarioError extends Error {
  override name = 'ScenarioError';
  constructor(
    readonly file: string,
    /** 1-based. */
    readonly line: number,
    /** 1-based, in UTF-16 code units (as editors count). */
    readonly column: number,
    readonly detail: string,
    /** How many characters the offending text spans, where known. */
    readonly length?: number,
  ) {
    super(`${file}:${line}:${column}: ${detail}`);
  }
}

/** Past this many errors the rest are mostly echoes of the first ones. */
export const MAX_ERRORS = 100;

/** Turns offsets into 1-based line/column positions (a binary search over line starts). */
export function positions(text: string): (offset: number) => Pos {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo] + 1 };
  };
}

/** Collects errors in document order, up to MAX_ERRORS. */
export class Reporter {
  readonly errors: ScenarioError[] = [];
  private readonly offsets: number[] = [];

  /** `pos`: how offsets become positions, when they are not offsets into `text` (a tree built from values). */
  constructor(
    text: string,
    readonly file: string,
    readonly pos: (offset: number) => Pos = positions(text),
  ) {}

  /** A detail that costs something to build (a "did you mean") is a function, called only below the cap. */
  at(offset: number, length: number, detail: string | (() => string)): void {
    if (this.full) return;
    const { line, column } = this.pos(offset);
    const text = typeof detail === 'string' ? detail : detail();
    this.errors.push(new ScenarioError(this.file, line, column, text, length));
    this.offsets.push(offset);
  }

  node(node: Node, detail: string | (() => string)): void {
    this.at(node.offset, node.length, detail);
  }

  /** Whether further errors are dropped. */
  get full(): boolean {
    return this.errors.length >= MAX_ERRORS;
  }

  get count(): number {
    return this.errors.length;
  }

  sorted(): ScenarioError[] {
    return this.errors
      .map((e, i) => [e, this.offsets[i]] as const)
      .sort((a, b) => a[1] - b[1])
      .map(([e]) => e);
  }
}
