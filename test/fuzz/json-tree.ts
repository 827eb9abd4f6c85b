// JSON values that the mutators edit, and a serializer that can also write what JSON.stringify
// cannot: duplicate keys, numbers out of double range, raw bytes and invalid text.

/** Text written verbatim where a value goes: `-1e400`, `NaN`, a duplicate key's object. */
export class Raw {
  constructor(readonly text: string) {}
}

export type Value = null | boolean | number | string | Raw | Value[] | { [key: string]: Value };
export type Container = Value[] | { [key: string]: Value };

export const isContainer = (v: Value): v is Container => v !== null && typeof v === 'object' && !(v instanceof Raw);

/**
 * JSON.stringify with each Raw written as its text: the tree itself stays shallow (deep shapes are
 * Raw text), so the built-in serializer's recursion is safe and fast.
 */
export function stringify(root: Value): string {
  const raws: string[] = [];
  const text = JSON.stringify(root, (_key, v: unknown) => {
    if (!(v instanceof Raw)) return v;
    raws.push(v.text);
    return `${RAW_OPEN}${raws.length - 1}${RAW_CLOSE}`;
  });
  return raws.length ? text.replace(RAW_TOKEN, (_m, i: string) => raws[Number(i)]) : text;
}

// Private-use characters: JSON.stringify writes them as they are, and no generated string holds them.
const RAW_OPEN = '\uE000';
const RAW_CLOSE = '\uE001';
const RAW_TOKEN = /"\uE000(\d+)\uE001"/g;

/** A deep copy; Raw text is shared. Trees stay shallow here (deep shapes are Raw text), so recursion is safe. */
export function clone(v: Value): Value {
  if (Array.isArray(v)) return v.map(clone);
  if (isContainer(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)]));
  return v;
}

/** Every container in the tree with its depth, found without recursion, capped at `max` entries. */
export function containers(root: Value, max = 20000): { node: Container; depth: number }[] {
  const found: { node: Container; depth: number }[] = [];
  const stack: { node: Value; depth: number }[] = [{ node: root, depth: 0 }];
  while (stack.length && found.length < max) {
    const { node, depth } = stack.pop()!;
    if (!isContainer(node)) continue;
    found.push({ node, depth });
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
  return found;
}

/** `depth` arrays or objects nested in each other around `inner`, written as text. */
export function nested(depth: number, inner: string, shape: 'array' | 'object'): Raw {
  return shape === 'array'
    ? new Raw('['.repeat(depth) + inner + ']'.repeat(depth))
    : new Raw('{"a":'.repeat(depth) + inner + '}'.repeat(depth));
}
