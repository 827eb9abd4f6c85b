import { UsageError } from './io';

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

/**
 * Parses `--name value`, `--name=value` and bare `--flag`. Only names listed in `valued` take a
 * value; anything not listed in `valued` or `bare` is a usage error, so typos do not pass silently.
 */
export function parseArgs(argv: string[], spec: { valued?: string[]; bare?: string[] }): ParsedArgs {
  const valued = new Set(spec.valued ?? []);
  const bare = new Set(spec.bare ?? []);
  const out: ParsedArgs = { positional: [], flags: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.positional.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      out.positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.replace(/^--?/, '').slice(0, eq < 0 ? undefined : eq - (a.startsWith('--') ? 2 : 1));
    const alias: Record<string, string> = { o: 'out' };
    const key = alias[name] ?? name;
    if (valued.has(key)) {
      const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`option --${key} needs a value`);
      out.flags.set(key, value);
    } else if (bare.has(key) && eq < 0) {
      out.flags.set(key, true);
    } else {
      const known = [...valued, ...bare].map((k) => '--' + k).join(', ') || 'none';
      throw new UsageError(`unknown option ${a} (options: ${known})`);
    }
  }
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
