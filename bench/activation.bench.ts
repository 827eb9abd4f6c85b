// Extension activation: a fresh require of dist/extension.js plus activate(), the way VS Code's
// extension host does it, against the stand-in `vscode` module of the activation test. Node's
// built-in modules are loaded first, as the extension host has them. Prints a Markdown row for
// bench/results/activation.md, and VS Code's own number if an end-to-end run left it behind.
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { quantile } from '../core/stats';
import { repoPath } from '../test/helpers/paths';
import { bundle, loadExtension } from '../test/extension/standIn';

const RUNS = Number(process.env.RUNS ?? 50);
/** Another build of the extension to compare with (a path), instead of dist/extension.js. */
const file = process.env.BUNDLE ?? bundle;

const ms = (x: number) => x.toFixed(1);

if (!existsSync(file)) {
  console.error('dist/extension.js is missing: run `npm run build` first');
  process.exit(2);
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at run time, as the extension loads them
for (const m of ['node:child_process', 'node:zlib', 'node:crypto', 'node:fs', 'node:path', 'node:os']) require(m);

const load = loadavg()[0];
const runs = Array.from({ length: RUNS }, () => {
  const cpu = process.cpuUsage();
  const r = loadExtension(file);
  const used = process.cpuUsage(cpu);
  return { ...r, total: r.loadMs + r.activateMs, cpuMs: (used.user + used.system) / 1000 };
});
const [first, ...warm] = runs;
const col = (f: (r: (typeof runs)[number]) => number) => warm.map(f);
console.log(
  `# ${cpus().length} × ${cpus()[0]?.model}, Node.js ${process.version}, load average ${load.toFixed(1)} (1 min) at the start, ${loadavg()[0].toFixed(1)} at the end`,
);
console.log(
  `# bundle ${(readFileSync(file).length / 1024).toFixed(0)} KiB; first (cold) run: load ${ms(first.loadMs)} + activate ${ms(first.activateMs)} ms`,
);
console.log(`# ${warm.length} more runs, each a fresh require of the bundle:`);
console.log('| measure | median ms | p95 ms |');
console.log('| --- | ---: | ---: |');
for (const [name, xs] of [
  ['load + activate (wall)', col((r) => r.total)],
  ['load (require)', col((r) => r.loadMs)],
  ['activate()', col((r) => r.activateMs)],
  ['load + activate (CPU)', col((r) => r.cpuMs)],
] as const)
  console.log(`| ${name} | ${ms(quantile(xs, 0.5))} | ${ms(quantile(xs, 0.95))} |`);

const e2e = repoPath('test-results', 'e2e', 'running-extensions.json');
if (existsSync(e2e)) {
  const { activationMs, row } = JSON.parse(readFileSync(e2e, 'utf8')) as { activationMs: number; row: string };
  console.log(
    `# VS Code's Running Extensions view in the last end-to-end run: ${activationMs} ms ("${row.replace(/\s+/g, ' ')}")`,
  );
}
