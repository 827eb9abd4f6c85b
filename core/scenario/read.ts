// Typed reads from the jsonc-parser tree. A failed read reports an error at the offending node and
// returns undefined, so that validation goes on and finds every error in one pass.
import type { Node } from './jsonc';
import type { Reporter } from './errors';
import { closest, listOf, quote, unknown } from './suggest';

export interface Prop {
  name: string;
  key: Node;
  value: Node;
}

type JsonType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
const A: Record<JsonType, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

export class Reader {
  constructor(readonly report: Reporter) {}

  is(node: Node, type: JsonType, label: string): boolean {
    if (node.type === type) return true;
    this.report.node(node, `${label}: expected ${A[type]}, got ${node.type}`);
    return false;
  }

  /** The properties of an object in source order; duplicate keys are reported and dropped. */
  entries(node: Node, label: string): Prop[] | undefined {
    if (!this.is(node, 'object', label)) return undefined;
    const seen = new Set<string>();
    const out: Prop[] = [];
    for (const p of node.children ?? []) {
      const [key, value] = p.children ?? [];
      if (!key || !value) continue;
      const name = String(key.value);
      if (seen.has(name)) {
        this.report.node(key, `duplicate key ${quote(name)}`);
        continue;
      }
      seen.add(name);
      out.push({ name, key, value });
    }
    return out;
  }

  /** The properties of an object whose keys must come from `allowed`; others are reported. */
  props(node: Node, allowed: readonly string[], label: string, where: string): Map<string, Prop> | undefined {
    const entries = this.entries(node, label);
    if (!entries) return undefined;
    const out = new Map<string, Prop>();
    for (const p of entries) {
      if (allowed.includes(p.name)) out.set(p.name, p);
      else this.unknownKey(p, allowed, where);
    }
    return out;
  }

  unknownKey(p: Prop, allowed: readonly string[], where: string): void {
    const list = allowed.length ? `Allowed keys: ${listOf(allowed)}` : 'It takes no other keys';
    this.report.node(p.key, () => unknown('key', p.name, list, closest(p.name, allowed), ` in ${where}`));
  }

  string(p: Prop): string | undefined {
    if (!this.is(p.value, 'string', `"${p.name}"`)) return undefined;
    const s = p.value.value as string;
    if (s === '') {
      this.report.node(p.value, `"${p.name}": expected a non-empty string`);
      return undefined;
    }
    return s;
  }

  bool(p: Prop): boolean | undefined {
    return this.is(p.value, 'boolean', `"${p.name}"`) ? (p.value.value as boolean) : undefined;
  }

  number(p: Prop): number | undefined {
    return this.is(p.value, 'number', `"${p.name}"`) ? (p.value.value as number) : undefined;
  }

  /** A whole number in [min, max]; `range` says so in the message. */
  int(p: Prop, min: number, max: number, range = `from ${min} to ${max}`): number | undefined {
    const n = this.number(p);
    if (n === undefined) return undefined;
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    this.report.node(p.value, `"${p.name}": expected a whole number ${range}, got ${n}`);
    return undefined;
  }

  oneOf<T extends string>(p: Prop, values: readonly T[], what: string): T | undefined {
    if (!this.is(p.value, 'string', `"${p.name}"`)) return undefined;
    const s = p.value.value as string;
    if ((values as readonly string[]).includes(s)) return s as T;
    this.report.node(p.value, () => unknown(what, s, `Expected one of: ${listOf(values)}`, closest(s, values)));
    return undefined;
  }
}
