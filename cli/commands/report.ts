import { analyze } from '../../core/analyze';
import { formatWaitGroups, groupWaits, WAIT_GROUPINGS, WaitGrouping } from '../../core/analyze/wait-groups';
import { windowPredictions } from '../../core/overview/predict';
import { buildReport, reportJsonChunks, reportTextChunks } from '../../core/report';
import { h200 } from '../../core/simulate/profile';
import { escapeControlsKeepLines } from '../../core/terminal';
import { CommandSpec, onePositional, OPTIONS, parseArgs, flagString } from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { readProfile } from '../input';
import { loadAnalysisInput } from './simulate';
import { sourceTextReader } from '../../node/source-text';

export const spec: CommandSpec = {
  name: 'report',
  synopsis: ['<scenario|trace> [options]'],
  summary: 'every host wait, the findings and the metrics',
  options: [
    OPTIONS.profile,
    OPTIONS.maxSteps,
    {
      name: 'group',
      value: WAIT_GROUPINGS.join('|'),
      help: 'also group the waits, with count, total and p50/p95 blocked time',
    },
    OPTIONS.userCode,
    OPTIONS.json,
  ],
};

/** `report <scenario|trace> [--group source|context|kind] [--json]`: every host wait, the findings and the metrics. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'scenario or trace file');
  const by = grouping(flagString(args, 'group'));
  const input = await loadAnalysisInput(file, io, args);
  const analysis = analyze(input.trace, { program: input.program, memory: input.memory });
  const profile = (await readProfile(flagString(args, 'profile'), io)) ?? h200;
  const report = buildReport(input.trace, analysis, windowPredictions(input.trace, analysis, profile, input.memory));
  if (by) report.groups = groupWaits(report.waits, by);
  if (args.flags.has('json')) for (const chunk of reportJsonChunks(report)) io.stdout(chunk);
  else {
    for (const chunk of reportTextChunks(report, { file, code: sourceTextReader(io.cwd) })) io.stdout(chunk);
    if (report.groups) io.stdout('\n' + escapeControlsKeepLines(formatWaitGroups(report.groups)));
  }
  return EXIT.ok;
}

function grouping(value: string | undefined): WaitGrouping | undefined {
  if (value === undefined) return undefined;
  if (!(WAIT_GROUPINGS as readonly string[]).includes(value))
    throw new UsageError(`--group takes ${WAIT_GROUPINGS.join(', ')}, not "${value}"`);
  return value as WaitGrouping;
}
