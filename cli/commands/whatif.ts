import { analyze } from '../../core/analyze';
import { h200 } from '../../core/simulate/profile';
import { escapeControlsKeepLines } from '../../core/terminal';
import { describeFix } from '../../core/whatif/fix-text';
import { rankedBySaving, whatIf } from '../../core/whatif/fixes';
import { whatIfJson } from '../../core/whatif/whatif-json';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs } from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { loadInput, readProfile } from '../input';
import { windowOf, WINDOW_OPTIONS } from './scenario';

export const spec: CommandSpec = {
  name: 'whatif',
  synopsis: ['<trace> [--fix F1,F2+F3,... | --all] [--from ns --to ns | --steps a:b]'],
  summary:
    "simulate each finding's fix on the trace's scenario, largest predicted saving first: host and GPU time before and after",
  options: [
    {
      name: 'fix',
      value: 'F1,F2+F3',
      help: 'the findings to fix, numbered in the order report lists them: each alone, or joined by + together in one scenario (as one change to the program fixes them all)',
    },
    { name: 'all', help: 'every finding that has a fix (the default)' },
    ...WINDOW_OPTIONS,
    OPTIONS.profile,
    { name: 'json', help: 'print the predictions as JSON (media/schema/whatif.schema.json)' },
  ],
};

/** `whatif <trace>`: what fixing each finding would save, simulated. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'trace file');
  const fix = flagString(args, 'fix');
  if (fix !== undefined && args.flags.has('all')) throw new UsageError('--fix and --all: give one of them');
  const ids = fix === undefined ? 'all' : fix.split(',').map((s) => s.trim().toUpperCase());
  if (ids !== 'all' && ids.some((id) => !/^F\d+(\+F\d+)*$/.test(id)))
    throw new UsageError(
      `--fix ${fix}: expected finding numbers as in F1,F3, or F1+F3 for both in one scenario (report lists the findings in order)`,
    );
  const { trace, memory } = await loadInput(file, io);
  const profile = (await readProfile(flagString(args, 'profile'), io)) ?? h200;
  // No window asked: the recorded window, whose iterations the report's savings per iteration share.
  const checked = windowOf(args, trace, file, 'simulate');
  const window = WINDOW_OPTIONS.some((o) => args.flags.has(o.name)) ? checked : undefined;
  const results = whatIf(trace, profile, ids, window, undefined, memory);
  if (ids !== 'all') {
    const n = analyze(trace).findings.length;
    const missing = ids
      .flatMap((id) => id.split('+'))
      .filter((id) => Number(id.slice(1)) < 1 || Number(id.slice(1)) > n);
    if (missing.length)
      throw new UsageError(
        `${file}: no finding ${missing.join(', ')}; the trace has ${n ? `F1 to F${n}` : 'no findings'} (syncscope report lists them)`,
      );
  }
  if (args.flags.has('json')) {
    io.stdout(JSON.stringify(whatIfJson(results, { file, profile: profile.name })) + '\n');
    return EXIT.ok;
  }
  const lines = [`${file}: fixes simulated with the ${profile.name} profile, largest predicted saving first`];
  if (!results.length) lines.push('no finding with a fix');
  for (const r of rankedBySaving(results)) lines.push(...describeFix(r));
  io.stdout(escapeControlsKeepLines(lines.join('\n')) + '\n');
  return EXIT.ok;
}
