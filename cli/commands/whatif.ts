import { analyze } from '../../core/analyze';
import { h200 } from '../../core/simulate/profile';
import { escapeControlsKeepLines } from '../../core/terminal';
import { formatNs } from '../../core/units';
import { rankedBySaving, savedNs, savedPerIterationNs, whatIf, type FixResult } from '../../core/whatif/fixes';
import { overheadText } from '../../core/whatif/overhead';
import { whatIfJson } from '../../core/whatif/whatif-json';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs } from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { loadInput, readProfile } from '../input';
import { windowOf, WINDOW_OPTIONS } from './scenario';

export const spec: CommandSpec = {
  name: 'whatif',
  synopsis: ['<trace> [--fix F1,F2,... | --all] [--from ns --to ns | --steps a:b]'],
  summary:
    "simulate each finding's fix on the trace's scenario, largest predicted saving first: host and GPU time before and after",
  options: [
    { name: 'fix', value: 'F1,F2', help: 'the findings to fix, numbered in the order report lists them' },
    { name: 'all', help: 'every finding that has a fix (the default)' },
    ...WINDOW_OPTIONS,
    OPTIONS.profile,
    { name: 'json', help: 'print the predictions as JSON (media/schema/whatif.schema.json)' },
  ],
};

const change = (a: number, b: number) =>
  `${formatNs(a)} -> ${formatNs(b)} (${b <= a ? '-' : '+'}${formatNs(Math.abs(b - a))})`;

/** One fix's prediction as `whatif` prints it (the MCP server's `whatif` tool too). */
export function describeFix(r: FixResult): string[] {
  const head = `${r.id} ${r.finding.kind}: ${r.finding.message.slice(0, 160)}`;
  const saved = savedNs(r);
  if (!r.after || saved === undefined) return [head, `    ${r.edit}`];
  const each = savedPerIterationNs(r);
  const lines = [
    head,
    `    edit: ${r.edit}`,
    `    host time ${change(r.before.hostNs, r.after.hostNs)}; GPU busy ${change(r.before.gpuBusyNs, r.after.gpuBusyNs)}`,
    r.isCost
      ? `    cost of the fix: ${formatNs(Math.max(0, -saved))} more host time`
      : `    predicted saving: ${saved >= 0 ? formatNs(saved) : `none (${formatNs(-saved)} longer)`}`,
    ...(each !== undefined && saved > 0 && !r.isCost
      ? [`    per iteration: ${formatNs(each)} (${r.iterations} iterations)`]
      : []),
    `    ${overheadText(r.overhead)}`,
  ];
  for (const w of r.waits.slice(0, 8))
    lines.push(
      `    call ${w.call} ${w.name}: blocked ${formatNs(w.beforeNs)} -> ${w.afterNs === undefined ? 'gone' : formatNs(w.afterNs)}`,
    );
  if (r.waits.length > 8) lines.push(`    ... and ${r.waits.length - 8} more waits`);
  return lines;
}

/** `whatif <trace>`: what fixing each finding would save, simulated. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'trace file');
  const fix = flagString(args, 'fix');
  if (fix !== undefined && args.flags.has('all')) throw new UsageError('--fix and --all: give one of them');
  const ids = fix === undefined ? 'all' : fix.split(',').map((s) => s.trim().toUpperCase());
  if (ids !== 'all' && ids.some((id) => !/^F\d+$/.test(id)))
    throw new UsageError(`--fix ${fix}: expected finding numbers as in F1,F3 (report lists the findings in order)`);
  const { trace, memory } = await loadInput(file, io);
  const profile = (await readProfile(flagString(args, 'profile'), io)) ?? h200;
  const results = whatIf(trace, profile, ids, windowOf(args, trace, file, 'simulate'), undefined, memory);
  if (ids !== 'all') {
    const missing = ids.filter((id) => !results.some((r) => r.id === id));
    const n = analyze(trace).findings.length;
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
