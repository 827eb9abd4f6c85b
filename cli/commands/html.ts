import { analyze } from '../../core/analyze';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs, userCodeFlag } from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { loadInput } from '../input';
import { writeHtmlFile } from '../output';

export const spec: CommandSpec = {
  name: 'html',
  synopsis: ['<trace|scenario> -o <timeline.html> [options]'],
  summary: 'write a self-contained timeline page (a scenario is simulated first)',
  options: [
    { name: 'out', short: 'o', value: 'timeline.html', help: 'where to write the page' },
    OPTIONS.profile,
    OPTIONS.maxSteps,
    OPTIONS.userCode,
  ],
};

/** `html <trace|scenario> -o timeline.html`: a self-contained timeline page (a scenario is simulated first). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'trace or scenario file');
  const out = flagString(args, 'out');
  if (!out) throw new UsageError('missing -o <file.html>: where to write the timeline');
  const input = await loadInput(file, io, {
    profile: flagString(args, 'profile'),
    maxSteps: flagString(args, 'max-steps'),
    userCode: userCodeFlag(args),
  });
  // A trace file may carry findings already; a fresh analysis adds them where it has none.
  if (!input.trace.findings.length)
    input.trace.findings = analyze(input.trace, { program: input.program, memory: input.memory }).findings;
  const title = input.trace.meta.scenario?.name ?? input.file;
  io.stderr(`timeline written to ${await writeHtmlFile(input.trace, title, out, io)}\n`);
  return EXIT.ok;
}
