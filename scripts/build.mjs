// Builds everything with esbuild: the extension (node, cjs, `vscode` external), the CLI and the
// runner child process (node), and the webview (browser). `--tests` bundles each test and benchmark
// file into out/ for node's test runner instead (`--tests=sim` only those whose path contains "sim");
// `--watch` rebuilds the bundles on change; `--no-native` skips the addon and the capture library.
import * as esbuild from 'esbuild';
import { readdirSync, statSync, mkdirSync, chmodSync, copyFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const args = new Set(process.argv.slice(2));
const testArg = process.argv.slice(2).find((a) => a.startsWith('--tests'));
const testFilter = testArg?.includes('=') ? testArg.slice(testArg.indexOf('=') + 1) : '';
// mainFields: jsonc-parser's UMD entry loads its parts with a require that bundlers cannot follow; its ESM entry bundles.
const common = {
  bundle: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  absWorkingDir: root,
  target: 'es2022',
  mainFields: ['module', 'main'],
};

const walk = (dir) =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });

const builds = testArg
  ? []
  : [
      {
        ...common,
        entryPoints: { extension: 'extension/main.ts', engines: 'extension/engines.ts', worker: 'extension/worker.ts' },
        outdir: 'dist',
        platform: 'node',
        format: 'cjs',
        external: ['vscode'],
      },
      {
        ...common,
        entryPoints: { cli: 'cli/bin.ts', runner: 'runner/child.ts', mcp: 'cli/mcp/server.ts' },
        outdir: 'dist',
        platform: 'node',
        format: 'cjs',
        banner: { js: '#!/usr/bin/env node' },
      },
      {
        ...common,
        entryPoints: { webview: 'webview/main.ts' },
        outdir: 'dist',
        platform: 'browser',
        format: 'iife',
        minify: true,
        loader: { '.css': 'css' },
      },
    ];
if (testArg) {
  const tests = ['test', 'bench']
    .flatMap((d) => walk(join(root, d)))
    .filter((f) => /\.(test|bench)\.ts$/.test(f) && relative(root, f).includes(testFilter));
  builds.push({
    ...common,
    entryPoints: tests.map((f) => relative(root, f)),
    outbase: '.',
    outdir: 'out',
    platform: 'node',
    format: 'cjs',
    external: ['playwright-core', 'vscode'],
  });
}

const existing = builds.filter((b) => {
  const eps = Array.isArray(b.entryPoints) ? b.entryPoints : Object.values(b.entryPoints);
  return eps.every((e) => {
    try {
      return statSync(join(root, e)).isFile();
    } catch {
      return false;
    }
  });
});
mkdirSync(join(root, 'dist'), { recursive: true });
if (args.has('--watch')) {
  for (const b of existing) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(existing.map((b) => esbuild.build(b)));
  // The profile launcher runs in the user's Python, beside the bundles that start it (node/profile-run.ts).
  if (!testArg) copyFileSync(join(root, 'python/syncscope_profile.py'), join(root, 'dist/syncscope_profile.py'));
  try {
    chmodSync(join(root, 'dist/cli.js'), 0o755);
  } catch {
    /* no CLI yet */
  }
  if (!args.has('--no-native') && !testArg) {
    for (const script of ['scripts/build-native.mjs', 'scripts/build-capture.mjs']) {
      const r = spawnSync(process.execPath, [join(root, script)], { stdio: 'inherit', cwd: root });
      if (r.status !== 0) process.exit(r.status ?? 1);
    }
  }
}
