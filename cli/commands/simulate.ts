import { analyze } from '../../core/analyze';
import type { MemoryBudget } from '../../core/memory';
import { processMemoryBudget } from '../../node/memory-limits';
import { buildReport, reportJsonChunks, reportTextChunks, waitCount } from '../../core/report';
import { sourceTextReader } from '../../node/source-text';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs, SUMMARY_ABOVE, userCodeFlag } from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { Input, isScenarioPath, loadInput, readProfile } from '../input';
import { h200 } from '../../core/simulate/profile';
import { checkTraceOutputs, writeHtmlFile, writeTraceOutputs } from '../output';

export const spec: CommandSpec = {
  name: 'simulate',
  synopsis: ['<scenario> [options]'],
  summary: 'run a scenario in the simulator and print the wait report',
  options: [
    OPTIONS.traceOut,
    OPTIONS.parquet,
    OPTIONS.html,
    OPTIONS.profile,
    OPTIONS.maxSteps,
    OPTIONS.json,
    OPTIONS.all,
  ],
};

/** `simulate <scenario>`: run the scenario in the simulator, print the wait report, write the files asked for. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  checkTraceOutputs(args);
  const file = onePositional(args, 'scenario file');
  if (!isScenarioPath(file)) throw new UsageError(`expected a *.scenario.json file, got ${file}`);
  const input = await loadAnalysisInput(file, io, args);
  return finishRun(input.trace, input.program, file, args, io, input.memory);
}

/** The input, a scenario simulated with the options `simulate` and `report` share. */
export function loadAnalysisInput(file: string, io: CliIo, args: ReturnType<typeof parseArgs>): Promise<Input> {
  return loadInput(file, io, {
    profile: flagString(args, 'profile'),
    maxSteps: flagString(args, 'max-steps'),
    userCode: userCodeFlag(args),
  });
}

/**
 * Shared by `simulate`, `run`, `capture` and `profile`: analyze, print, and write --out / --html.
 * `memory`: what the analysis may allocate, taken before the input was read where the caller did.
 */
export async function finishRun(
  trace: import('../../core/trace/model').Trace,
  program: import('../../core/scenario/program').Program | undefined,
  file: string,
  args: ReturnType<typeof parseArgs>,
  io: CliIo,
  memory: MemoryBudget = processMemoryBudget(file),
): Promise<number> {
  printReport(trace, program, memory, file, args, io);
  for (const path of await writeTraceOutputs(trace, args, io)) io.stderr(`trace written to ${path}\n`);
  const html = flagString(args, 'html');
  if (html) {
    const profile = (await readProfile(flagString(args, 'profile'), io)) ?? h200;
    const title = trace.meta.scenario?.name ?? file;
    io.stderr(`timeline written to ${await writeHtmlFile(trace, title, html, io, { profile, program, memory })}\n`);
  }
  return EXIT.ok;
}

/**
 * Analyses the trace (its findings stay on it) and prints the report. The waits' explanations are
 * dropped when it returns, so that they are not held while the trace files are written.
 */
function printReport(
  trace: import('../../core/trace/model').Trace,
  program: import('../../core/scenario/program').Program | undefined,
  memory: MemoryBudget,
  file: string,
  args: ReturnType<typeof parseArgs>,
  io: CliIo,
): void {
  const analysis = analyze(trace, { program, memory });
  trace.findings = analysis.findings;
  const report = buildReport(trace, analysis);
  const summary = waitCount(report) > SUMMARY_ABOVE && !args.flags.has('all');
  const chunks = args.flags.has('json')
    ? reportJsonChunks(report)
    : reportTextChunks(report, { file, summary, code: sourceTextReader(io.cwd) });
  for (const chunk of chunks) io.stdout(chunk);
}
