import { h200 } from '../../core/simulate/profile';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs, userCodeFlag } from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { loadInput, readProfile } from '../input';
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
  const title = input.trace.meta.scenario?.name ?? input.file;
  const profile = (await readProfile(flagString(args, 'profile'), io)) ?? h200;
  const { program, memory } = input;
  const page = await writeHtmlFile(input.trace, title, out, io, { profile, program, memory });
  io.stderr(`timeline written to ${page}\n`);
  return EXIT.ok;
}
