// One vocabulary: the kind tables, the test for a host wait, the rules of a call, a wait's target
// and the released-by words live in core (core/trace/kinds.ts, core/analyze/describe.ts). The
// report, compare, the CLI and the timeline read them there and keep no copy of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoPath } from '../helpers/paths';

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
const sources = (...dirs: string[]) => dirs.flatMap((d) => walk(repoPath(d))).filter((f) => f.endsWith('.ts'));
const code = (file: string) => readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
const offenders = (files: string[], pattern: RegExp) =>
  files.filter((f) => pattern.test(code(f))).map((f) => relative(repoPath(), f));

test('kind indices come from the one table in core/trace/kinds.ts', () => {
  const built = /(CALL_KINDS|OP_KINDS)\.(indexOf|map|findIndex)\(/;
  assert.deepEqual(
    offenders(sources('core', 'webview', 'extension', 'cli', 'runner'), built).filter(
      (f) => f !== join('core', 'trace', 'kinds.ts'),
    ),
    [],
  );
});

test('the timeline, the extension and the CLI keep no rule table and no test of their own for a host wait', () => {
  const files = sources('webview', 'extension', 'cli');
  assert.equal(existsSync(repoPath('webview', 'rules.ts')), false);
  assert.deepEqual(offenders(files, /['"]S\d+['"]/), [], 'rule ids are named in core only');
  assert.deepEqual(
    offenders(files, /eventSync\b.*\bstreamSync\b.*\bdeviceSync\b/),
    [],
    'what a host wait is is said in core only',
  );
});

test('the details pane and the report say rules, targets and released-by through core/analyze/describe.ts', () => {
  const uses = (file: string, names: string[]) => {
    const text = readFileSync(repoPath(file), 'utf8');
    const imported = /import \{([^}]*)\} from '[./]*(?:core\/)?(?:analyze\/)?describe'/.exec(text);
    const list = (imported?.[1] ?? '').split(',').map((s) => s.trim());
    return names.filter((n) => !list.includes(n));
  };
  assert.deepEqual(uses('webview/details.ts', ['callRules', 'callTarget', 'releasedByText', 'releasingOps']), []);
  assert.deepEqual(uses('core/report.ts', ['releasedByLine']), []);
  assert.deepEqual(uses('extension/logic/compare.ts', ['releasedByText']), []);
  assert.deepEqual(uses('cli/commands/import.ts', ['releasingOps']), []);
  assert.deepEqual(uses('core/analyze/waits.ts', ['callRules', 'callTarget', 'releasingOps']), []);
});
