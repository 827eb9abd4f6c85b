import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { parse, type ParseError } from 'jsonc-parser/lib/esm/main.js';
import { exampleCopyText, exampleInfo, freeName, orderExamples } from '../../extension/logic/examples';
import { repoPath } from '../helpers/paths';

test('every example shipped in the package names itself for the picker, seeds first', () => {
  const files = readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json'));
  assert.ok(files.length > 0);
  const infos = files.map((f) => exampleInfo(f, readFileSync(repoPath('examples', f), 'utf8')));
  for (const i of infos) {
    assert.ok(i.name && i.name !== i.file.replace(/\.scenario\.json$/, ''), `${i.file} has its own "name"`);
  }
  const ordered = orderExamples(infos);
  const firstOther = ordered.findIndex((e) => !e.file.startsWith('seed'));
  assert.ok(
    ordered.slice(firstOther).every((e) => !e.file.startsWith('seed')),
    'all seeds come before the rest',
  );
});

test('a file without name falls back to its file name; comments are fine', () => {
  assert.deepEqual(exampleInfo('x.scenario.json', '// c\n{ "steps": [] }'), {
    file: 'x.scenario.json',
    name: 'x',
    description: undefined,
  });
});

test('a new scenario never overwrites a file in the folder', () => {
  assert.equal(freeName('a.scenario.json', new Set()), 'a.scenario.json');
  assert.equal(freeName('a.scenario.json', new Set(['a.scenario.json', 'a-2.scenario.json'])), 'a-3.scenario.json');
});

test('a copied example has no $schema path and holds the same scenario', () => {
  const files = readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json'));
  for (const f of files) {
    const text = readFileSync(repoPath('examples', f), 'utf8');
    const copy = exampleCopyText(text);
    assert.doesNotMatch(copy, /\$schema/, f);
    const { $schema, ...scenario } = parse(text);
    assert.equal($schema, '../media/schema/scenario.schema.json', f);
    const errors: ParseError[] = [];
    assert.deepEqual(parse(copy, errors), scenario, f);
    assert.deepEqual(errors, [], f);
    assert.equal(copy.split('\n').length, text.split('\n').length - 1, `${f}: only the $schema line goes`);
  }
});
