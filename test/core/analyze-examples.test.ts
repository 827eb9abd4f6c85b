import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { repoPath } from '../helpers/paths';
import { run } from './analyze-scenario';

/** The finding kinds each teaching example is written to show (its description names them). */
const INTENDED: Record<string, string[]> = {
  'device-sync-buggy': ['device-wide-wait'],
  'host-func-buggy': ['host-func-stall'],
  'legacy-serialization-buggy': ['legacy-serialization'],
  'pageable-copy-buggy': ['pageable-async-copy'],
  'pipeline-buggy': ['race'],
  'stale-wait-buggy': ['stale-wait'],
  'wait-before-record-buggy': ['no-op-wait', 'race'],
};

const examples = readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json'));
const load = (f: string) => run(readFileSync(repoPath('examples', f), 'utf8'));

test('every buggy example yields exactly its intended findings, each pointing at a step', () => {
  const buggy = examples.filter((f) => f.endsWith('-buggy.scenario.json'));
  assert.ok(buggy.length >= Object.keys(INTENDED).length);
  for (const f of buggy) {
    const name = f.replace('.scenario.json', '');
    assert.ok(INTENDED[name], `${f}: say which finding it should produce`);
    const { analysis } = load(f);
    assert.deepEqual([...new Set(analysis.findings.map((x) => x.kind))].sort(), INTENDED[name], f);
    for (const x of analysis.findings)
      assert.ok(x.source && x.source.line > 0, `${f}: ${x.kind} has a source position`);
  }
});

test('every fixed twin yields no finding at all', () => {
  const fixed = examples.filter((f) => f.endsWith('-fixed.scenario.json'));
  assert.ok(fixed.length >= Object.keys(INTENDED).length);
  for (const f of fixed)
    assert.deepEqual(
      load(f).analysis.findings.map((x) => `${x.kind}: ${x.message}`),
      [],
      f,
    );
});
