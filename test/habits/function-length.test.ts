// Functions stay short enough to read at once: none in core/, node/, runner/, cli/ or extension/
// runs past MAX_LINES, unless the comment right above it says why it is kept whole (a line
// starting "Kept whole:"). The count is of source lines from the function's first line to its last,
// after formatting, read with the TypeScript compiler's own parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { repoPath } from '../helpers/paths';

type TypeScript = typeof import('typescript');
const ts = createRequire(repoPath('package.json'))('typescript') as TypeScript;

const MAX_LINES = 100;
const FOLDERS = ['core', 'node', 'runner', 'cli', 'extension'];

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });

/** `file:line name (N lines)` for every function over the limit that no comment excuses. */
export function longFunctions(file: string, text: string, max = MAX_LINES): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: import('typescript').Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max && !excused(text, node)) {
        const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
        const name = named && ts.isIdentifier(named) ? named.text : '(anonymous)';
        found.push(`${file}:${first + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The comments above the function, or above the statement that holds it (`const f = () => ...`). */
function excused(text: string, node: import('typescript').Node): boolean {
  for (let n: import('typescript').Node | undefined = node; n && !ts.isSourceFile(n); n = n.parent) {
    const comments = ts.getLeadingCommentRanges(text, n.getFullStart()) ?? [];
    if (comments.some((c) => /Kept whole:/.test(text.slice(c.pos, c.end)))) return true;
    if (ts.isStatement(n) || ts.isClassElement(n)) break;
  }
  return false;
}

test('no function in core, node, runner, cli or extension is over 100 lines without a comment saying why', () => {
  const files = FOLDERS.flatMap((f) => walk(repoPath(f))).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  assert.ok(files.length > 50, `expected the sources, found ${files.length} files`);
  const long = files.flatMap((f) => longFunctions(relative(repoPath(), f), readFileSync(f, 'utf8')));
  assert.deepEqual(long, []);
});

test('the length check counts a long function, and a "Kept whole:" comment above it excuses it', () => {
  const body = Array.from({ length: 101 }, (_, i) => `  x += ${i};`).join('\n');
  const fn = `function big() {\n  let x = 0;\n${body}\n}\n`;
  assert.deepEqual(longFunctions('a.ts', fn), ['a.ts:1 big (104 lines)']);
  assert.deepEqual(longFunctions('a.ts', `// Kept whole: one table.\n${fn}`), []);
  assert.deepEqual(longFunctions('a.ts', `const f = () => {\n${body}\n};\n`), ['a.ts:1 f (103 lines)']);
  assert.deepEqual(longFunctions('a.ts', `function small() {\n${body.split('\n').slice(0, 90).join('\n')}\n}\n`), []);
});
