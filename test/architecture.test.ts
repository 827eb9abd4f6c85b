// The map in docs/DESIGN.md, enforced: every import of every TypeScript file is read (with the
// TypeScript compiler's own pre-parser, so comments and strings never count) and checked against
// which part of the tree may depend on which. A forbidden edge or an import circle fails with the
// file and the import that break the rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { repoPath } from './helpers/paths';

type TypeScript = typeof import('typescript');
// Loaded from the repository at run time, not bundled into the test.
const ts = createRequire(repoPath('package.json'))('typescript') as TypeScript;

/** The parts of the tree, by top-level folder. */
const PARTS = ['core', 'node', 'runner', 'cli', 'extension', 'webview', 'native', 'test', 'bench', 'scripts'] as const;
type Part = (typeof PARTS)[number];
/** The parts that run in Node or the browser on behalf of core: core imports none of them. */
const ADAPTERS: Part[] = ['node', 'runner', 'cli', 'extension', 'webview', 'native'];
const SKIP = new Set(['node_modules', 'out', 'dist', 'build']);

/** One import: where it is, what it names, and the repository file it resolves to (ours only). */
interface Edge {
  from: string;
  spec: string;
  to?: string;
}

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    if (SKIP.has(f) || f.startsWith('.')) return [];
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });

const rel = (abs: string): string => relative(repoPath(), abs).split(sep).join('/');
const partOf = (file: string): Part | undefined => PARTS.find((p) => file.startsWith(p + '/'));
const builtins = new Set(builtinModules);
const isBuiltin = (spec: string): boolean => spec.startsWith('node:') || builtins.has(spec);

/** The file a relative import names, as esbuild and tsc resolve it. */
function resolveLocal(fromAbs: string, spec: string): string | undefined {
  const base = join(dirname(fromAbs), spec);
  for (const c of [base, `${base}.ts`, join(base, 'index.ts')])
    if (existsSync(c) && statSync(c).isFile()) return rel(c);
  return undefined;
}

const sources = PARTS.filter((p) => existsSync(repoPath(p)))
  .flatMap((p) => walk(repoPath(p)))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));

const edges: Edge[] = sources.flatMap((abs) => {
  const info = ts.preProcessFile(readFileSync(abs, 'utf8'), true, true);
  return info.importedFiles.map(({ fileName: spec }) => ({
    from: rel(abs),
    spec,
    to: spec.startsWith('.') ? resolveLocal(abs, spec) : undefined,
  }));
});

const show = (e: Edge): string => `${e.from}: ${e.spec}`;
const offenders = (part: Part, bad: (e: Edge) => boolean): string[] =>
  edges.filter((e) => partOf(e.from) === part && bad(e)).map(show);
const into = (e: Edge, parts: Part[]): boolean => e.to !== undefined && parts.includes(partOf(e.to)!);

test('the import reader sees the tree: every part has files, and relative imports resolve', () => {
  for (const p of ['core', 'node', 'runner', 'cli', 'extension', 'webview'] as const) {
    assert.ok(
      sources.some((f) => partOf(rel(f)) === p),
      `no .ts files under ${p}/`,
    );
  }
  assert.deepEqual(edges.filter((e) => e.spec.startsWith('.') && !e.to).map(show), []);
});

// core/ runs unchanged in Node, in the extension host and in the webview's browser bundle.
test('core imports no vscode, no DOM, no Node I/O and no adapter', () => {
  const bad = offenders(
    'core',
    (e) => e.spec === 'vscode' || e.spec.startsWith('d3-') || isBuiltin(e.spec) || into(e, ADAPTERS),
  );
  for (const abs of sources.filter((f) => partOf(rel(f)) === 'core')) {
    if (/\b(document|window)\.\w/.test(readFileSync(abs, 'utf8').replace(/\/\/.*$/gm, '')))
      bad.push(`${rel(abs)}: uses the DOM`);
  }
  assert.deepEqual(bad, []);
});

test('webview imports only core and browser packages', () => {
  const bad = offenders('webview', (e) =>
    e.to ? !into(e, ['core', 'webview']) : e.spec === 'vscode' || isBuiltin(e.spec),
  );
  assert.deepEqual(bad, []);
});

test('the extension and the CLI import nothing of the webview (the page shell is core/page.ts)', () => {
  assert.deepEqual(
    [...offenders('extension', (e) => into(e, ['webview'])), ...offenders('cli', (e) => into(e, ['webview']))],
    [],
  );
});

test('the CLI never imports the extension, and the runner neither of them nor the webview', () => {
  assert.deepEqual(
    [
      ...offenders('cli', (e) => e.spec === 'vscode' || into(e, ['extension'])),
      ...offenders('runner', (e) => e.spec === 'vscode' || into(e, ['cli', 'extension', 'webview'])),
    ],
    [],
  );
});

test('node/ imports only core and Node builtins', () => {
  assert.deepEqual(
    offenders('node', (e) => (e.to ? !into(e, ['core', 'node']) : !isBuiltin(e.spec))),
    [],
  );
});

/** The first import circle among our own modules, as the path that closes it, or undefined. */
function findCycle(): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const e of edges) if (e.to?.endsWith('.ts')) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === 'done') return undefined;
    if (state.get(f) === 'open') return [...path.slice(path.indexOf(f)), f];
    state.set(f, 'open');
    path.push(f);
    for (const t of next.get(f) ?? []) {
      const found = visit(t);
      if (found) return found;
    }
    path.pop();
    state.set(f, 'done');
    return undefined;
  };
  for (const f of [...next.keys()].sort()) {
    const found = visit(f);
    if (found) return found;
  }
  return undefined;
}

test('no import circles among our own modules', () => {
  const cycle = findCycle();
  assert.equal(cycle, undefined, `import circle: ${cycle?.join(' -> ')}`);
});
