import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { repoPath } from '../helpers/paths';
import { validate } from '../helpers/json-schema';
import { parse as parseJsonc } from 'jsonc-parser/lib/esm/main.js';
import { parseScenario, STEP_KEYS, STEP_KINDS, TOP_LEVEL_KEYS } from '../../core/scenario/parse';
import { BUFFER_KEYS, DEVICE_KEYS, EVENT_KEYS, PER_DEVICE_KEYS, STREAM_KEYS } from '../../core/scenario/kinds';

interface SchemaNode {
  $ref?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  oneOf?: SchemaNode[];
  defaultSnippets?: { label: string; body: Record<string, unknown> }[];
  [key: string]: unknown;
}

const schema = JSON.parse(readFileSync(repoPath('media/schema/scenario.schema.json'), 'utf8')) as SchemaNode & {
  definitions: Record<string, SchemaNode>;
};
const deref = (n: SchemaNode): SchemaNode => (n.$ref ? schema.definitions[n.$ref.replace('#/definitions/', '')] : n);
const keys = (n: SchemaNode): string[] => Object.keys(deref(n).properties ?? {}).sort();
const stepBranches = (schema.definitions.step.oneOf ?? []).map(deref);

test('schema and parser agree on the step kinds', () => {
  const fromSchema = stepBranches.map((b) => b.required?.[0]);
  assert.deepEqual([...fromSchema].sort(), [...STEP_KINDS].sort());
});

test('schema and parser agree on the keys of every step kind', () => {
  for (const b of stepBranches) {
    const kind = b.required![0] as keyof typeof STEP_KEYS;
    assert.deepEqual(keys(b), [kind, ...STEP_KEYS[kind]].sort(), kind);
    assert.equal(b.additionalProperties, false, kind);
  }
});

test('schema and parser agree on the top-level keys and the keys of declarations', () => {
  assert.deepEqual(keys(schema), [...TOP_LEVEL_KEYS].sort());
  const props = schema.properties!;
  assert.deepEqual(keys(props.device), [...DEVICE_KEYS].sort());
  const declared = (p: SchemaNode): SchemaNode => deref(p.additionalProperties as SchemaNode);
  assert.deepEqual(keys(declared(props.streams)), [...STREAM_KEYS].sort());
  assert.deepEqual(keys(declared(props.events)), [...EVENT_KEYS].sort());
  assert.deepEqual(keys(declared(props.buffers)), [...BUFFER_KEYS].sort());
  assert.deepEqual(keys(declared(props.devices)), [...PER_DEVICE_KEYS].sort());
  assert.equal(schema.additionalProperties, false);
});

test('every property in the schema has a description (they become hover docs)', () => {
  const missing: string[] = [];
  const walk = (n: unknown, path: string): void => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach((c, i) => walk(c, `${path}[${i}]`));
    const node = n as SchemaNode;
    for (const [k, p] of Object.entries(node.properties ?? {})) {
      if (!p.description && !deref(p).description) missing.push(`${path}.${k}`);
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'defaultSnippets' && k !== 'examples') walk(v, `${path}.${k}`);
  };
  walk(schema, '#');
  assert.deepEqual(missing, []);
});

/** A snippet body as the editor inserts it with its placeholders' defaults. */
function expand(body: unknown): string {
  return JSON.stringify(body)
    .replace(/"\^\$\{\d+:([^}]*)\}"/g, '$1')
    .replace(/\$\{\d+\|([^,|]*)[^}]*\}/g, '$1')
    .replace(/\$\{\d+:([^}]*)\}/g, '$1');
}

test('every step kind offers a snippet, and each snippet compiles as inserted', () => {
  for (const b of stepBranches) {
    const kind = b.required![0];
    const snippets = b.defaultSnippets ?? [];
    assert.equal(snippets.length, 1, kind);
    const body = expand(snippets[0].body);
    assert.equal(Object.keys(JSON.parse(body))[0], kind);
    const text = `{ "name": "snippet", "streams": { "side": {} },
      "events": { "event": {}, "start": { "timing": true }, "end": { "timing": true } },
      "buffers": { "src": { "bytes": 64 }, "dst": { "bytes": 64, "host": "pinned" }, "buffer": { "bytes": 64 } },
      "steps": [ ${body} ] }`;
    const { program, errors } = parseScenario(text, `${kind} snippet`);
    assert.deepEqual(
      errors.map((e) => e.message),
      [],
      body,
    );
    assert.ok(program!.stepCount >= 1, kind);
  }
});

function exampleFiles(): string[] {
  try {
    return readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json'));
  } catch {
    return [];
  }
}

test('every example scenario in examples/ parses without error', () => {
  for (const f of exampleFiles()) {
    const { program, errors } = parseScenario(readFileSync(repoPath('examples', f), 'utf8'), `examples/${f}`);
    assert.deepEqual(
      errors.map((e) => e.message),
      [],
      f,
    );
    assert.equal(typeof program?.name, 'string', f);
  }
});

test('scenarios the parser accepts are valid against the schema too', () => {
  const everyKind = `{ "name": "all kinds", "device": { "schedule": "spin", "perThreadDefaultStream": true },
    "streams": { "side": { "nonBlocking": true, "priority": -5 } },
    "events": { "a": { "timing": true }, "b": { "timing": true, "blockingSync": true } },
    "buffers": { "d": { "bytes": 64 }, "h": { "bytes": 64, "host": "pageable" } },
    "threads": { "main": [
      { "launch": "k", "stream": "side", "ms": 1, "grid": 2, "block": 64, "reads": ["d"], "writes": ["d"] },
      { "launch": "t", "touch": "d" }, { "record": "a", "stream": "side" }, { "wait": "a" }, { "waitStream": "side" },
      { "query": "a", "expect": "notReady" }, { "eventSync": "a" }, { "streamSync": "legacy" }, { "deviceSync": true },
      { "record": "b" }, { "elapsed": ["a", "b"] }, { "copy": "d", "to": "h", "bytes": 8, "async": true, "stream": "side" },
      { "memset": "d", "bytes": 4 }, { "hostWork": { "ns": 10 } }, { "hostFunc": "f", "us": 0 },
      { "repeat": 2, "steps": [ { "launch": "r", "us": 1 } ] } ], "loader": [] } }`;
  const texts: [string, string][] = [
    ['every kind', everyKind],
    ...exampleFiles().map((f): [string, string] => [f, readFileSync(repoPath('examples', f), 'utf8')]),
  ];
  for (const [name, text] of texts) {
    assert.deepEqual(parseScenario(text, name).errors, [], name);
    assert.deepEqual(validate(parseJsonc(text, [], { allowTrailingComma: true }), schema), [], name);
  }
});
