// Runs fuzz inputs through the built CLI, each command in its own child process with a time budget
// and an address-space limit, as many at once as there are cores, and classifies every outcome.
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOSTILE_BUDGET } from '../../core/scenario/kinds';
import { repoPath } from '../helpers/paths';
import { classify, type Outcome, type RunResult, type Verdict } from './classify';
import { generate, kindOfSeed, KINDS, type FuzzInput, type GenerateOptions, type Kind } from './generate';

export const TIME_BUDGET_MS = 20_000;
/**
 * Hostile scenarios get a fixed step budget: the CLI's own grows with memory, for real 10^7-op
 * runs. Half the editor's, because a step can be a wait and report --json writes about 300 bytes
 * per wait: a million of them is what fits MAX_OUTPUT and the time budget on a loaded machine.
 */
export const FUZZ_MAX_STEPS = HOSTILE_BUDGET.steps / 2;
/**
 * The address space each child may map, in KiB for `ulimit -v`: 4 GiB, as a shared machine or a
 * container allows. It holds everything the CLI maps, off the heap as well as on it, which a heap
 * cap alone would not.
 */
export const ADDRESS_SPACE_KIB = 4_194_304;
/** More output than this is cut; a report that large would not parse and counts as a schema break. */
const MAX_OUTPUT = 256 << 20;

export interface CommandVerdict extends Verdict {
  argv: string[];
  ms: number;
}

export interface InputResult {
  input: FuzzInput;
  commands: CommandVerdict[];
  /** The first failure among the commands, or ok. */
  outcome: Outcome;
}

/**
 * The commands each kind goes through: `--json` ones are validated against the report schema.
 * Scenarios also go through `simulate` and `check`; with `short`, through one of them by seed, to fit the CI budget.
 */
export function commandsFor(input: FuzzInput, short = false): string[][] {
  if (input.kind !== 'scenario') return [['report', input.name, '--json'], traceCommand(input)];
  const budget = ['--max-steps', String(FUZZ_MAX_STEPS)];
  const report = ['report', input.name, '--json', ...budget];
  const more = [
    ['simulate', input.name, '--json', ...budget],
    ['check', input.name, ...budget],
  ];
  return short ? [report, more[input.seed % 2]] : [report, ...more];
}

/** Windows for `scenario`, `replay` and `whatif`: empty, reversed, outside, not whole, past 2^53. */
const WINDOWS: string[][] = [
  ['--from', '1000', '--to', '500'],
  ['--from', '0', '--to', '0'],
  ['--from', '9007199254740993', '--to', '9007199254740995'],
  ['--from', '-5', '--to', '1e300'],
  ['--from', '1.5', '--to', 'abc'],
  ['--steps', '3:1'],
  ['--steps', '0:0'],
  ['--steps', 'x:'],
  ['--from', '0', '--to', '1000000'],
  [],
];

/**
 * One more command for a trace, by seed: a window turned into a scenario, replayed or simulated,
 * or the trace written as Parquet, where each must give a result or a clean error.
 */
function traceCommand(input: FuzzInput): string[] {
  const window = WINDOWS[Math.floor(input.seed / 4) % WINDOWS.length];
  switch (input.seed % 4) {
    case 0:
      return ['scenario', input.name, '-o', `${input.name}.scenario.json`, ...window];
    case 1:
      return ['replay', input.name, ...window];
    case 2:
      return ['whatif', input.name, '--all', ...window];
    default:
      return ['import', input.name, '-o', `${input.name}.parquet`];
  }
}

export interface FuzzOptions extends GenerateOptions {
  seed: number;
  count: number;
  kind?: Kind;
  concurrency?: number;
  /** One command fewer per scenario (see commandsFor). */
  short?: boolean;
  /** Called as each input finishes, in finishing order. */
  onResult?: (r: InputResult) => void;
}

/** Seeds `seed .. seed+count-1`; each seed's kind is fixed by the seed unless one kind is asked for. */
export async function fuzz(opts: FuzzOptions): Promise<InputResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-fuzz-'));
  const results: InputResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < opts.count) {
      const seed = opts.seed + next++;
      const input = generate(opts.kind ?? kindOfSeed(seed), seed, opts);
      const result = await runInput(input, dir, opts.short);
      results.push(result);
      opts.onResult?.(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency ?? availableParallelism() }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results.sort((a, b) => a.input.seed - b.input.seed);
}

export async function runInput(input: FuzzInput, dir: string, short = false): Promise<InputResult> {
  const path = join(dir, input.name);
  writeFileSync(path, input.bytes);
  const lines = input.name.endsWith('.gz') ? undefined : countLines(input.bytes);
  const commands: CommandVerdict[] = [];
  try {
    for (const argv of commandsFor(input, short)) {
      const start = Date.now();
      const run = await runCli(argv, dir);
      const verdict = classify(run, { file: input.name, json: argv.includes('--json'), lines });
      commands.push({ ...verdict, argv, ms: Date.now() - start });
      // The other commands read the same input the same way: another 20 s would tell nothing new.
      if (verdict.outcome === 'hang' || verdict.outcome === 'oom') break;
    }
  } finally {
    rmSync(path, { force: true });
  }
  return { input, commands, outcome: commands.find((c) => c.outcome !== 'ok')?.outcome ?? 'ok' };
}

function countLines(bytes: Buffer): number {
  let n = 1;
  for (const b of bytes) if (b === 0x0a) n++;
  return n;
}

let outputs = 0;

/**
 * `node dist/cli.js <argv>` under `ulimit -v 4194304`, killed at the time budget. Its output goes to
 * files, read once it exits: through pipes, a child writing a large report would wait for this
 * process to drain them while it checks other reports, and that wait would count against its budget.
 */
export function runCli(argv: string[], cwd: string): Promise<RunResult> {
  const n = outputs++;
  const paths = [join(cwd, `.stdout-${n}`), join(cwd, `.stderr-${n}`)];
  const fds = paths.map((p) => openSync(p, 'w'));
  return new Promise((resolve) => {
    // bash sets the limit and becomes node (exec), so that the kill reaches node itself.
    const child = spawn(
      'bash',
      ['-c', `ulimit -v ${ADDRESS_SPACE_KIB} && exec "$@"`, 'bash', process.execPath, repoPath('dist/cli.js'), ...argv],
      { cwd, stdio: ['ignore', fds[0], fds[1]], env: { ...process.env, SYNCSCOPE_DEBUG: '' } },
    );
    fds.forEach((fd) => closeSync(fd));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, TIME_BUDGET_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const [stdout, stderr] = paths.map(readCapped);
      paths.forEach((p) => rmSync(p, { force: true }));
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}

/** A file's text, up to MAX_OUTPUT bytes. */
function readCapped(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const size = Math.min(fstatSync(fd).size, MAX_OUTPUT);
    const bytes = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const got = readSync(fd, bytes, at, size - at, at);
      if (got === 0) break;
      at += got;
    }
    return bytes.subarray(0, at).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Counts by kind and outcome, as a Markdown table. */
export function table(results: InputResult[]): string {
  const outcomes: Outcome[] = ['ok', 'crash', 'internal', 'hang', 'oom', 'schema', 'unpositioned'];
  const rows = [`| kind | ${outcomes.join(' | ')} | total |`, `|---|${outcomes.map(() => '---:|').join('')}---:|`];
  for (const kind of [...KINDS, undefined]) {
    const mine = results.filter((r) => kind === undefined || r.input.kind === kind);
    const cells = outcomes.map((o) => mine.filter((r) => r.outcome === o).length);
    rows.push(`| ${kind ?? '**all**'} | ${cells.join(' | ')} | ${mine.length} |`);
  }
  return rows.join('\n') + '\n';
}

/** One line per failing input: class, kind, the first message line, and how to make it again. */
export function failureLines(results: InputResult[], limit = Infinity): string[] {
  return results
    .filter((r) => r.outcome !== 'ok')
    .slice(0, limit)
    .map((r) => {
      const bad = r.commands.find((c) => c.outcome !== 'ok')!;
      return `${bad.outcome} ${r.input.kind} [${bad.argv[0]}] ${bad.detail.slice(0, 160)} | ${r.input.mutations.join('; ').slice(0, 120)} | ${r.input.again}`;
    });
}
