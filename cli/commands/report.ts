import { analyze } from '../../core/analyze';
import { buildReport, formatReport } from '../../core/report';
import { CommandSpec, onePositional, OPTIONS, parseArgs, flagString } from '../args';
import { CliIo, EXIT } from '../io';
import { loadInput } from '../input';

export const spec: CommandSpec = {
  name: 'report',
  synopsis: ['<scenario|trace> [options]'],
  summary: 'every host wait, the findings and the metrics',
  // The report's own options (how to group or select waits) belong in this list.
  options: [OPTIONS.profile, OPTIONS.json],
};

/** `report <scenario|trace> [--json]`: every host wait, the findings and the metrics. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'scenario or trace file');
  const input = await loadInput(file, io, { profile: flagString(args, 'profile') });
  const report = buildReport(input.trace, analyze(input.trace, { program: input.program }));
  io.stdout(args.flags.has('json') ? JSON.stringify(report, null, 2) + '\n' : formatReport(report, { file }));
  return EXIT.ok;
}
