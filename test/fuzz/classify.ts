// What counts as a good outcome for one CLI run on a hostile input, and which failure it is if not.
import { readFileSync } from 'node:fs';
import { repoPath } from '../helpers/paths';
import { validate } from '../helpers/json-schema';

export const FAILURES = ['crash', 'internal', 'hang', 'oom', 'schema', 'unpositioned'] as const;
export type Failure = (typeof FAILURES)[number];
export type Outcome = 'ok' | Failure;

export interface RunResult {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface Verdict {
  outcome: Outcome;
  /** One line a person can route: the first line of stderr, or what broke the schema. */
  detail: string;
}

/** Text that only a bug prints: a JavaScript engine error or a stack. */
const INTERNAL = [
  /\n\s+at /,
  /\bTypeError\b/,
  /\bRangeError\b/,
  /\bReferenceError\b/,
  /\bSyntaxError: (?!JSON)/,
  /Maximum call stack/,
  /Cannot read properties/,
  /Cannot convert object to primitive value/,
  /Invalid string length/,
  /Invalid array length/,
  /Invalid typed array length/,
  /internal error/i,
  /is not a function/,
  /is not iterable/,
  /undefined is not/,
  // The Arrow library's words for a file it cannot read.
  /\bundefined\b/,
  /Cannot destructure/,
  /intermediate value/,
  /Unrecognized type/,
];
const OOM = /heap out of memory|Reached heap limit|Allocation failed|Out of memory|FATAL ERROR|Fatal process OOM/i;

let reportSchema: Record<string, unknown> | undefined;
const schema = () =>
  (reportSchema ??= JSON.parse(readFileSync(repoPath('media/schema/report.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >);

/**
 * `file` is the name the CLI was given; `lines` the input's line count when it is text (an error
 * may not point past the end).
 */
export function classify(run: RunResult, opts: { file: string; json: boolean; lines?: number }): Verdict {
  const first = firstLine(run.stderr);
  if (run.timedOut) return { outcome: 'hang', detail: `no exit within the time budget; stderr: ${first}` };
  if (OOM.test(run.stderr)) return { outcome: 'oom', detail: firstMatchingLine(run.stderr, OOM) };
  if (run.code === 0 || run.code === 1) {
    if (!opts.json) return { outcome: 'ok', detail: '' };
    let report: unknown;
    try {
      report = JSON.parse(run.stdout);
    } catch {
      return { outcome: 'schema', detail: `stdout is not JSON: ${firstLine(run.stdout)}` };
    }
    const errors = validate(report, schema());
    return errors.length
      ? { outcome: 'schema', detail: `${errors[0]}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}` }
      : { outcome: 'ok', detail: '' };
  }
  if (run.code !== 2) return { outcome: 'crash', detail: `exit ${run.code ?? run.signal}: ${first}` };
  if (INTERNAL.some((re) => re.test(run.stderr))) return { outcome: 'internal', detail: first };
  const problem = positionProblem(first, opts.file, opts.lines);
  return problem ? { outcome: 'unpositioned', detail: `${problem}: ${first}` } : { outcome: 'ok', detail: '' };
}

/**
 * The first line must be `file:line:column: message` or `file: message` (after the
 * `syncscope <command>: ` prefix), with line and column from 1 and the line inside the file; or,
 * where an option's value is at fault (a window), `--option value...: message`.
 */
export function positionProblem(line: string, file: string, lines?: number): string | undefined {
  const message = line.replace(/^syncscope [a-z-]+: /, '');
  if (/^--[a-z-]+(?: [^ ]+)*?: \S/.test(message)) return undefined;
  const names = [file, file.replace(/^.*[\\/]/, '')];
  const name = names.find((n) => message.startsWith(n + ':'));
  if (!name) return 'does not start with the file name';
  const rest = message.slice(name.length);
  const at = /^:(-?\d+):(-?\d+): \S/.exec(rest);
  if (!at) return /^: \S/.test(rest) ? undefined : 'no "file:line:column: " or "file: " form';
  const [row, column] = [Number(at[1]), Number(at[2])];
  if (row < 1 || column < 1) return `position ${row}:${column} is not from 1`;
  if (lines !== undefined && row > lines) return `line ${row} is past the file's ${lines} lines`;
  return undefined;
}

const firstLine = (text: string) => (text.split('\n', 1)[0] ?? '').slice(0, 300);
const firstMatchingLine = (text: string, re: RegExp) =>
  (text.split('\n').find((l) => re.test(l)) ?? firstLine(text)).slice(0, 300);
