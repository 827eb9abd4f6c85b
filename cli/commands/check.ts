import { analyze } from '../../core/analyze';
import { escapeControls } from '../../core/terminal';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs, userCodeFlag } from '../args';
import { CliIo, EXIT } from '../io';
import { loadInput } from '../input';

export const spec: CommandSpec = {
  name: 'check',
  synopsis: ['<scenario|trace> [options]'],
  summary: 'print the findings; exit 1 if any is of error severity',
  options: [OPTIONS.profile, OPTIONS.maxSteps, OPTIONS.userCode],
};

/** `check <scenario|trace>`: for CI. Prints the findings; exits 1 if any is of error severity. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'scenario or trace file');
  const input = await loadInput(file, io, {
    profile: flagString(args, 'profile'),
    maxSteps: flagString(args, 'max-steps'),
    userCode: userCodeFlag(args),
  });
  const { findings } = analyze(input.trace, { program: input.program, memory: input.memory });
  for (const f of findings) {
    const at = f.source ? `${file}:${f.source.line}:${f.source.column}` : file;
    io.stdout(escapeControls(`${at}: ${f.severity} ${f.rule} ${f.kind}: ${f.message}`) + '\n');
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  io.stdout(`${findings.length} finding(s), ${errors} error(s)\n`);
  return errors ? EXIT.findings : EXIT.ok;
}
