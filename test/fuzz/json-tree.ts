// JSON values that the mutators edit, and a serializer that can also write what JSON.stringify
// cannot: duplicate keys, numbers out of double range, raw bytes and invalid text.

/** Text written verbatim where a value goes: `-1e400`, `NaN`, a duplicate key's object. */
export class Raw {
  constructor(readonly text: string) {}
}

export type Value = null | boolean | number | string | Raw | Value[] | { [key: string]: Value };
export type Container = Value[] | { [key: string]: Value };

export const isContainer = (v: Value): v is Container => v !== null && typeof v === 'object' && !(v instanceof Raw);

/** Serializes without recursion, so values nested 10^5 deep write as easily as flat ones. */
export function stringify(root: Value): string {
  const out: string[] = [];
  // Each entry is a value still to write, or text (punctuation, a key) to write as it is.
  const stack: ({ value: Value } | { text: string })[] = [{ value: root }];
  while (stack.length) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.value;
    if (v instanceof Raw) out.push(v.text);
    else if (Array.isArray(v)) {
      out.push('[');
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] });
        if (i > 0) stack.push({ text: ',' });
      }
    } else if (v !== null && typeof v === 'object') {
      out.push('{');
      stack.push({ text: '}' });
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: v[keys[i]] });
        stack.push({ text: JSON.stringify(keys[i]) + ':' });
        if (i > 0) stack.push({ text: ',' });
      }
    } else out.push(v === undefined ? 'null' : JSON.stringify(v));
  }
  return out.join('');
}

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
