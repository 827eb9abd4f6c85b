// `npm run fuzz -- --count 10000 [--seed N] [--kind scenario|pytorch|saved|arrow] [--max-bytes N] [--light] [--failures DIR]`:
// the long fuzz run. Prints counts by kind and outcome, and writes each failing input and what it
// printed to the failures folder, so that it reproduces by hand. `--light` leaves out the shapes
// that are slow to build (gzip bombs), as the CI run does.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from '../helpers/paths';
import { KINDS, type Kind } from './generate';
import { failureLines, fuzz, table, type InputResult } from './runner';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function numberOption(name: string, fallback: number): number {
  const v = option(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} takes a whole number, not "${v}"`);
  return n;
}

async function main(): Promise<void> {
  const count = numberOption('count', 1000);
  const seed = numberOption('seed', 1);
  const maxBytes = numberOption('max-bytes', 4 << 20);
  const kind = option('kind') as Kind | undefined;
  if (kind !== undefined && !KINDS.includes(kind)) throw new Error(`--kind takes ${KINDS.join('|')}, not "${kind}"`);
  const failures = option('failures') ?? repoPath('bench/tmp/fuzz-failures');
  mkdirSync(failures, { recursive: true });
  const started = Date.now();
  let done = 0;
  const sofar: InputResult[] = [];
  // Stopped early (a time limit): the counts so far still print.
  process.once('SIGTERM', () => {
    process.stdout.write(`\nstopped after ${sofar.length} of ${count} inputs\n\n${table(sofar)}\n`);
    process.exit(3);
  });
  const results = await fuzz({
    seed,
    count,
    kind,
    maxBytes,
    heavy: !process.argv.includes('--light'),
    onResult: (r) => {
      sofar.push(r);
      progress(r, ++done, count, failures);
    },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  process.stderr.write('\n');
  process.stdout.write(
    `\n${count} inputs from seed ${seed}${kind ? ` (${kind})` : ''} in ${seconds} s\n\n${table(results)}\n`,
  );
  for (const line of failureLines(results, 50)) process.stdout.write(line + '\n');
  if (results.some((r) => r.outcome !== 'ok')) process.stdout.write(`\nfailing inputs written to ${failures}\n`);
}

function progress(r: InputResult, done: number, count: number, failures: string) {
  if (r.outcome !== 'ok') save(r, failures);
  if (done % 100 === 0 || done === count) process.stderr.write(`\r${done}/${count}`);
}

function save(r: InputResult, dir: string) {
  writeFileSync(join(dir, r.input.name), r.input.bytes);
  const lines = [
    `input: ${r.input.name} (${r.input.bytes.length} bytes) from ${r.input.origin}`,
    `mutations: ${r.input.mutations.join('; ')}`,
    ...r.commands.map(
      (c) => `${c.outcome} (${c.ms} ms): syncscope ${c.argv.join(' ')}${c.detail ? `\n  ${c.detail}` : ''}`,
    ),
    `again: ${r.input.again}`,
  ];
  writeFileSync(join(dir, `${r.input.name}.txt`), lines.join('\n') + '\n');
}

main().catch((e: Error) => {
  process.stderr.write(`fuzz: ${e.message}\n`);
  process.exit(2);
});
