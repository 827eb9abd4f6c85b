import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoPath } from '../helpers/paths';

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));

// core/ must run unchanged in Node, in the extension host and in the webview's browser bundle.
test('core imports neither vscode, the DOM, node modules nor the adapters', () => {
  const offenders: string[] = [];
  for (const file of walk(repoPath('core')).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|require\(|import\()\s*['"]([^'"]+)['"]/g)) {
      const spec = m[1];
      const bad = spec === 'vscode' || spec.startsWith('node:') || /^(fs|path|child_process|os|zlib|stream)$/.test(spec) ||
        /\.\.\/(?:\.\.\/)*(cli|extension|runner|webview|native)\//.test(spec);
      if (bad) offenders.push(`${relative(repoPath(), file)}: ${spec}`);
    }
    if (/\b(document|window)\.\w/.test(text.replace(/\/\/.*$/gm, ''))) offenders.push(`${relative(repoPath(), file)}: uses the DOM`);
  }
  assert.deepEqual(offenders, []);
});
