// A scenario given as values, not text: the node tree that the JSONC parser would give for it, so that
// the one compiler checks it by the same rules. A program that makes a scenario (the what-if's from a
// trace) compiles it this way without printing and parsing it back, and prints the text only when a
// user asks to see it. A node's offset packs a line and a column (at), so that the compiled steps point
// at the lines where the printed text would have them.
import type { Node } from './jsonc';
import { MAX_NESTING } from './nesting';
import type { Pos } from './program';

/** Columns per line in a packed offset: wider than any line a generator writes, and lines * WIDTH stays exact. */
const WIDTH = 2 ** 26;

/** The offset that stands for 1-based `line` and `column`. */
export const at = (line: number, column: number): number => (line - 1) * WIDTH + (column - 1);

/** The line and column an offset made by `at` stands for. */
export const unpack = (offset: number): Pos => ({
  line: Math.floor(offset / WIDTH) + 1,
  column: (offset % WIDTH) + 1,
});

const scalar = (type: Node['type'], value: unknown, offset: number): Node => ({ type, value, offset, length: 1 });

/** A property node: `key` at `keyOffset`, its value already a node. */
export const property = (key: string, keyOffset: number, value: Node): Node => ({
  type: 'property',
  offset: keyOffset,
  length: 1,
  children: [scalar('string', key, keyOffset), value],
});

/** An object node of ready property nodes. */
export const objectNode = (offset: number, props: Node[]): Node => ({
  type: 'object',
  offset,
  length: 1,
  children: props,
});

/** An array node of ready item nodes. */
export const arrayNode = (offset: number, items: Node[]): Node => ({
  type: 'array',
  offset,
  length: 1,
  children: items,
});

/**
 * A JSON value as a tree whose every node sits at `offset`. An object's or array's children are made
 * when the compiler reads them and dropped after: a scenario of 10^5 steps held as a whole tree would
 * keep millions of nodes alive through the compile, and the collector would copy them over and over.
 */
export function valueNode(value: unknown, offset: number, depth = 0): Node {
  if (depth > MAX_NESTING) throw new Error(`a scenario value nests deeper than ${MAX_NESTING} levels`);
  if (value === null) return scalar('null', null, offset);
  if (Array.isArray(value) || typeof value === 'object') return new Composite(value as object, offset, depth);
  switch (typeof value) {
    case 'string':
      return scalar('string', value, offset);
    case 'number':
      return scalar('number', value, offset);
    case 'boolean':
      return scalar('boolean', value, offset);
    default:
      throw new Error(`a scenario value cannot be ${typeof value}`);
  }
}

/** An object or array value whose child nodes are made on each read. */
class Composite implements Node {
  readonly type: 'object' | 'array';
  readonly length = 1;
  constructor(
    private readonly source: object,
    readonly offset: number,
    private readonly depth: number,
  ) {
    this.type = Array.isArray(source) ? 'array' : 'object';
  }

  get children(): Node[] {
    const { source, offset, depth } = this;
    if (Array.isArray(source)) return source.map((v) => valueNode(v, offset, depth + 1));
    const props: Node[] = [];
    // As JSON.stringify, an undefined property is left out.
    for (const [k, v] of Object.entries(source))
      if (v !== undefined) props.push(property(k, offset, valueNode(v, offset, depth + 1)));
    return props;
  }
}
