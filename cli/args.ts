import { UsageError } from './io';
import { parseUserCode, type UserCode } from '../core/import/python-sites';
import { stepOnError } from '../core/import/step-on';
import { SUMMARY_WAITS } from '../core/report';

/** One option of a command. `value` names what it takes (`--out <file>`); without it the option is a bare flag. */
export interface CliOption {
  name: string;
  value?: string;
  /** A one-letter spelling, e.g. `o` for `-o`. */
  short?: string;
  help: string;
}

/**
 * A command's usage and options, defined once beside its `run`: the parser, `--help`, the usage line
 * printed on a usage error and the README's table all come from it.
 */
export interface CommandSpec {
  name: string;
  /** What follows `syncscope <name>`, one line per form of the command. */
  synopsis: string[];
  summary: string;
  options: CliOption[];
}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

/** Thrown by parseArgs for `--help` / `-h`: the dispatcher prints the command's help and exits 0. */
export class HelpRequest extends Error {
  override name = 'HelpRequest';
}

const HELP = new Set(['--help', '-h']);

/**
 * Parses `--name value`, `--name=value` and bare `--flag`. Only options with a `value` take one;
 * anything not in `options` is a usage error, so typos do not pass silently. `--help` anywhere
 * before `--` wins over such an error; everything after `--` is positional (a captured program's own
 * `--help` included).
 */
export function parseArgs(argv: string[], options: CliOption[]): ParsedArgs {
  const out: ParsedArgs = { positional: [], flags: new Map() };
  let error: UsageError | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.positional.push(...argv.slice(i + 1));
      break;
    }
    if (HELP.has(a)) throw new HelpRequest();
    if (!a.startsWith('-') || a === '-') {
      out.positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.replace(/^--?/, '').slice(0, eq < 0 ? undefined : eq - (a.startsWith('--') ? 2 : 1));
    const option = options.find((o) => o.name === name || o.short === name);
    if (option?.value !== undefined) {
      const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) error ??= new UsageError(`option --${option.name} needs a value`);
      else out.flags.set(option.name, value);
    } else if (option && eq < 0) {
      out.flags.set(option.name, true);
    } else {
      const known = options.map((o) => '--' + o.name).join(', ') || 'none';
      error ??= new UsageError(`unknown option ${a} (options: ${known})`);
    }
  }
  if (error) throw error;
  return out;
}

export const flagString = (p: ParsedArgs, name: string): string | undefined => {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
};

export function onePositional(p: ParsedArgs, what: string): string {
  if (p.positional.length !== 1) throw new UsageError(`expected exactly one ${what}, got ${p.positional.length}`);
  return p.positional[0];
}

/** Options that several commands share, worded once. */
/** Above this many waits, `simulate` prints a summary unless `--all` is given. */
export const SUMMARY_ABOVE = 200;

export const OPTIONS = {
  profile: {
    name: 'profile',
    value: 'h200|file.json',
    help: "the simulator's timing profile: h200 (built in) or a file written by calibrate",
  },
  json: { name: 'json', help: 'print the report as JSON (media/schema/report.schema.json)' },
  traceOut: {
    name: 'out',
    short: 'o',
    value: 'trace.syncscope.json',
    help: 'also write the trace: *.syncscope is columnar (Arrow), *.parquet a directory of Parquet tables, else JSON',
  },
  parquet: {
    name: 'parquet',
    help: 'also write the trace as a directory of Parquet tables beside --out (x.syncscope -> x.parquet/)',
  },
  html: { name: 'html', value: 'timeline.html', help: 'also write a self-contained timeline page' },
  maxSteps: {
    name: 'max-steps',
    value: 'N',
    help: 'unroll a scenario to at most N steps (default: as many as the memory holds)',
  },
  userCode: {
    name: 'user-code',
    value: '+path,-path',
    help: "paths added to (+) or taken out of (-) the user's code, where a Python call's line is looked for",
  },
  all: {
    name: 'all',
    help: `list every wait; above ${SUMMARY_ABOVE} waits the text report lists the ${SUMMARY_WAITS} longest and counts the rest`,
  },
} satisfies Record<string, CliOption>;

/** `--user-code`, parsed; a usage error that says what is wrong with it. */
export function userCodeFlag(args: ParsedArgs): UserCode | undefined {
  const text = flagString(args, 'user-code');
  if (text === undefined) return undefined;
  const parsed = parseUserCode(text);
  if (typeof parsed === 'string') throw new UsageError(`--user-code: ${parsed}`);
  return parsed;
}

/** `--step-on`, checked; a usage error that says what is wrong with it. */
export function stepOnFlag(args: ParsedArgs): string | undefined {
  const text = flagString(args, 'step-on');
  if (text === undefined) return undefined;
  const error = stepOnError(text);
  if (error) throw new UsageError(error);
  return text;
}

/** A flag that takes a whole number of 0 or more. */
export function countFlag(args: ParsedArgs, name: string): number | undefined {
  const text = flagString(args, name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new UsageError(`--${name} takes a whole number of 0 or more, not "${text}"`);
  return n;
}

/** A flag that takes a number above 0, whole where `integer`. */
export function positiveFlag(args: ParsedArgs, name: string, integer: boolean): number | undefined {
  const text = flagString(args, name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new UsageError(`--${name} takes a ${integer ? 'whole ' : ''}number above 0, not "${text}"`);
  return n;
}
