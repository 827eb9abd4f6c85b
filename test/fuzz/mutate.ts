// Mutators shared by every input kind: each edits one place of a JSON tree, or the text itself,
// in a way a hostile or careless user could, and names what it did.
import { gzipSync } from 'node:zlib';
import { clone, containers, isContainer, nested, Raw, stringify, type Container, type Value } from './json-tree';

export interface Rng {
  next(): number;
  int(n: number): number;
  pick<T>(list: readonly T[]): T;
  chance(p: number): boolean;
}

export function rng(random: () => number): Rng {
  return {
    next: random,
    int: (n) => Math.floor(random() * n),
    pick: (list) => list[Math.floor(random() * list.length)],
    chance: (p) => random() < p,
  };
}

/** Where a mutator may write: one key of an object or one index of an array. */
export interface Slot {
  parent: Container;
  key: string | number;
}

export const get = (s: Slot): Value => (s.parent as Record<string | number, Value>)[s.key];
export const set = (s: Slot, v: Value) => ((s.parent as Record<string | number, Value>)[s.key] = v);

/** A random slot of the tree; `filter` narrows it to slots whose value fits. */
export function pickSlot(r: Rng, root: Value, filter: (v: Value) => boolean = () => true): Slot | undefined {
  const slots: Slot[] = [];
  for (const { node } of containers(root)) {
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    for (const key of keys)
      if (filter((node as Record<string | number, Value>)[key])) slots.push({ parent: node, key });
  }
  return slots.length ? r.pick(slots) : undefined;
}

/** Numbers a field of times, counts or indices should reject or survive. */
export function hostileNumber(r: Rng, near?: number): Value {
  const n = near ?? 0;
  return r.pick<() => Value>([
    () => new Raw('-1e400'),
    () => new Raw('1e400'),
    () => new Raw('-0'),
    () => new Raw('NaN'),
    () => new Raw('Infinity'),
    () => new Raw('1' + '0'.repeat(400)),
    () => 1.7976931348623157e308,
    () => -1.7976931348623157e308,
    () => 5e-324,
    () => -1,
    () => -1e15,
    () => 0,
    () => 0.5,
    () => 2 ** 53 + 2,
    () => 2 ** 31,
    () => 2 ** 32,
    () => 1e9,
    () => 1e15,
    () => n + 1,
    () => n - 1,
    () => -n - 1,
    () => n * 1000 + 7,
    () => 'NaN',
    () => 'Infinity',
    () => '-1',
    () => String(n),
  ])();
}

/** Strings with what terminals, parsers and edit-distance code trip on. */
export function hostileString(r: Rng, maxBytes: number): string {
  const long = (unit: string) => unit.repeat(Math.max(1, Math.floor(r.pick([1e3, 1e4, 1e5, 1e6]) / unit.length)));
  const s = r.pick<() => string>([
    () => '\u001b[31mred\u001b[0m\u001b]0;title\u0007',
    () => 'nul\u0000byte',
    () => 'line\nbreak\r\nand\rreturn',
    () => '\u202eright-to-left\u202c',
    () => 'lone \ud800 surrogate',
    () => 'emoji 😀 and 𝕏 and e\u0301',
    () => 'sep\u2028\u2029',
    () => '\u0085\u009b31mC1',
    () => 'back\\slash "quote"',
    () => '%s%n%d ${x} {{x}}',
    () => '<script>alert(1)</script>',
    () => '',
    () => ' ',
    () => '__proto__',
    () => 'constructor',
    () => 'toString',
    () => long('a'),
    () => long('é😀'),
    () => long('ab\u001b'),
  ])();
  return s.length * 3 > maxBytes ? s.slice(0, Math.floor(maxBytes / 3)) : s;
}

/** Values of the wrong type for wherever they land. */
export function wrongType(r: Rng, old: Value): Value {
  const all: Value[] = [0, -1, 'x', '', true, false, null, [], {}, [1, 2], { a: 1 }, { toString: 1 }, { valueOf: {} }];
  const others = all.filter((v) => typeof v !== typeof old || Array.isArray(v) !== Array.isArray(old));
  return clone(r.pick(others));
}

/** An object or array where a string belongs: what String(x) and template literals choke on. */
export function objectForString(r: Rng): Value {
  return clone(
    r.pick<Value>([
      {},
      [],
      ['x'],
      { toString: 'x' },
      { toString: {} },
      { valueOf: 1 },
      JSON.parse('{"__proto__":1}') as Value,
      [[[]]],
    ]),
  );
}

export function deepValue(r: Rng, maxBytes: number): Raw {
  const depth = Math.min(r.pick([64, 1000, 10_000, 100_000]), Math.floor(maxBytes / 8));
  return nested(depth, r.pick(['1', '"x"', '{}', '[]', 'null']), r.chance(0.5) ? 'array' : 'object');
}

/** One mutation anywhere in the tree. Returns its name, or undefined when it found no place. */
export function mutateTree(r: Rng, root: Value, maxBytes: number): string | undefined {
  const which = r.pick([
    'delete',
    'delete',
    'wrongType',
    'wrongType',
    'number',
    'number',
    'number',
    'objectForString',
    'string',
    'string',
    'deep',
    'duplicateKey',
    'repeatElement',
    'renameKey',
  ] as const);
  switch (which) {
    case 'delete': {
      const s = pickSlot(r, root);
      if (!s) return undefined;
      if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
      else delete s.parent[s.key as string];
      return `delete ${s.key}`;
    }
    case 'wrongType': {
      const s = pickSlot(r, root);
      if (!s) return undefined;
      set(s, wrongType(r, get(s)));
      return `wrong type at ${s.key}`;
    }
    case 'number': {
      const s = pickSlot(r, root, (v) => typeof v === 'number') ?? pickSlot(r, root);
      if (!s) return undefined;
      const old = get(s);
      set(s, hostileNumber(r, typeof old === 'number' ? old : undefined));
      return `number at ${s.key}`;
    }
    case 'objectForString': {
      const s = pickSlot(r, root, (v) => typeof v === 'string') ?? pickSlot(r, root);
      if (!s) return undefined;
      set(s, objectForString(r));
      return `object for string at ${s.key}`;
    }
    case 'string': {
      const s = pickSlot(r, root, (v) => typeof v === 'string') ?? pickSlot(r, root);
      if (!s) return undefined;
      set(s, hostileString(r, maxBytes));
      return `string at ${s.key}`;
    }
    case 'deep': {
      const s = pickSlot(r, root);
      if (!s) return undefined;
      set(s, deepValue(r, maxBytes));
      return `deep nesting at ${s.key}`;
    }
    case 'duplicateKey': {
      const s = pickSlot(r, root, (v) => isContainer(v) && !Array.isArray(v) && Object.keys(v).length > 0);
      if (!s) return undefined;
      const obj = get(s) as Record<string, Value>;
      const key = r.pick(Object.keys(obj));
      const again = r.chance(0.5) ? clone(obj[key] ?? null) : wrongType(r, obj[key] ?? null);
      // The value writes as itself, then the same key again: `"k":1,"k":2`.
      obj[key] = new Raw(`${stringify(obj[key] ?? null)},${JSON.stringify(key)}:${stringify(again)}`);
      return `duplicate key ${key}`;
    }
    case 'repeatElement': {
      const s = pickSlot(r, root, (v) => Array.isArray(v) && v.length > 0);
      if (!s) return undefined;
      const arr = get(s) as Value[];
      const item = arr[r.int(arr.length)];
      const size = Math.max(2, stringify(item).length);
      const times = Math.min(r.pick([2, 10, 1000, 100_000]), Math.floor(maxBytes / 2 / size));
      for (let i = 0; i < times; i++) arr.push(clone(item));
      return `repeat an element ${times} times`;
    }
    case 'renameKey': {
      const s = pickSlot(r, root, (v) => isContainer(v) && !Array.isArray(v) && Object.keys(v).length > 0);
      if (!s) return undefined;
      const obj = get(s) as Record<string, Value>;
      const key = r.pick(Object.keys(obj));
      const name = r.chance(0.5) ? typo(r, key) : hostileString(r, maxBytes);
      obj[name] = obj[key] ?? null;
      delete obj[key];
      return `rename key ${key}`;
    }
  }
}

/** One edit of a name, the kind a "did you mean" should catch. */
export function typo(r: Rng, name: string): string {
  const i = r.int(name.length + 1);
  return r.pick([
    () => name.slice(0, i) + 'x' + name.slice(i),
    () => name.slice(0, i) + name.slice(i + 1),
    () => name.toUpperCase(),
    () => name + name,
  ])();
}

/** Edits of the text itself: cut short, garbage bytes, a BOM, nothing at all. */
export function mutateText(r: Rng, bytes: Buffer): { bytes: Buffer; what: string } {
  const at = r.int(bytes.length + 1);
  return r.pick<() => { bytes: Buffer; what: string }>([
    () => ({ bytes: bytes.subarray(0, at), what: `truncate at ${at}` }),
    () => ({ bytes: bytes.subarray(0, at), what: `truncate at ${at}` }),
    () => ({
      bytes: Buffer.concat([
        bytes.subarray(0, at),
        Buffer.from([r.pick([0x00, 0x1b, 0xff, 0xc3, 0x0b, 0x7f])]),
        bytes.subarray(at),
      ]),
      what: `insert a raw byte at ${at}`,
    }),
    () => ({ bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), what: 'BOM first' }),
    () => ({
      bytes: Buffer.concat([bytes, Buffer.from(r.pick([' x', ']', '}', '{}', '\u0000']))]),
      what: 'trailing text',
    }),
    () => ({ bytes: Buffer.alloc(0), what: 'empty file' }),
    () => ({
      bytes: Buffer.from(r.pick(['null', '[]', '"x"', '1', '{}', 'true', ' \n '])),
      what: 'another top-level value',
    }),
  ])();
}

/** gzip variants: a whole one, one cut short, one whose check fails. */
export function gzipVariant(r: Rng, bytes: Buffer): { bytes: Buffer; what: string } {
  const gz = gzipSync(bytes);
  return r.pick<() => { bytes: Buffer; what: string }>([
    () => ({ bytes: gz, what: 'gzip' }),
    () => ({ bytes: gz.subarray(0, 10 + r.int(Math.max(1, gz.length - 10))), what: 'gzip cut short' }),
    () => {
      const bad = Buffer.from(gz);
      bad[bad.length - 5 - r.int(4)] ^= 0xff;
      return { bytes: bad, what: 'gzip with a bad check' };
    },
    () => ({ bytes: Buffer.concat([gz, gzipSync(Buffer.from('garbage'))]), what: 'gzip with a second member' }),
  ])();
}

let bombChunk: Buffer | undefined;

/** A small .gz that inflates to one string of about `inflated` bytes: the decompressed-size cap's case. */
export function gzipBomb(prefix: string, inflated: number, suffix: string): Buffer {
  bombChunk ??= gzipSync(Buffer.alloc(16 << 20, 0x61), { level: 9 });
  const chunk = bombChunk;
  const parts: Buffer[] = [gzipSync(Buffer.from(prefix))];
  for (let n = 0; n < inflated; n += 16 << 20) parts.push(chunk);
  parts.push(gzipSync(Buffer.from(suffix)));
  return Buffer.concat(parts);
}
