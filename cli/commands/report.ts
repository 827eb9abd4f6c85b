import { analyze } from '../../core/analyze';
import { buildReport, formatReport } from '../../core/report';
import { onePositional, parseArgs, flagString } from '../args';
import { CliIo, EXIT } from '../io';
import { loadInput } from '../input';

/** `report <scenario|trace> [--json]`: every host wait, the findings and the metrics. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { valued: ['profile'], bare: ['json'] });
  const file = onePositional(args, 'scenario or trace file');
  const input = await loadInput(file, io, { profile: flagString(args, 'profile') });
  const report = buildReport(input.trace, analyze(input.trace, { program: input.program }));
  io.stdout(args.flags.has('json') ? JSON.stringify(report, null, 2) + '\n' : formatReport(report, { file }));
  return EXIT.ok;
}
