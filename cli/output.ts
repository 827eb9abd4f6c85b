import { resolve } from 'node:path';
import { flagString, type ParsedArgs } from './args';
import type { Trace } from '../core/trace/model';
import { analyze } from '../core/analyze';
import type { MemoryBudget } from '../core/memory';
import { buildOverview } from '../core/overview/build';
import type { Program } from '../core/scenario/program';
import type { SimProfile } from '../core/simulate/profile';
import { writeFileAtomic } from '../node/atomic-write';
import { saveTraceFile } from '../node/trace-file';
import { timelineHtmlChunks } from './html-page';
import { UsageError, type CliIo } from './io';

/** The Parquet directory written beside a trace by `--parquet`: its name with the trace suffix replaced. */
export const parquetBeside = (out: string): string =>
  /\.parquet$/i.test(out) ? out : out.replace(/(\.syncscope(\.json)?|\.json)?$/i, '.parquet');

/** Refuses `--parquet` without `--out` before any work is done. */
export function checkTraceOutputs(args: ParsedArgs): void {
  if (args.flags.has('parquet') && !flagString(args, 'out'))
    throw new UsageError(
      '--parquet writes the Parquet tables beside the trace; give its name with --out <x.syncscope>',
    );
}

/**
 * Writes what `--out` (and `--parquet`, the Parquet directory beside it) ask for; returns the paths
 * written. `--out x.parquet` writes the Parquet directory instead of a trace file. The trace is
 * streamed to disk in chunks (large traces never become one string); both outputs are written
 * before either is renamed into place, and share one write id.
 */
export async function writeTraceOutputs(trace: Trace, args: ParsedArgs, io: CliIo): Promise<string[]> {
  checkTraceOutputs(args);
  const out = flagString(args, 'out');
  if (!out) return [];
  const paths = [out];
  const beside = parquetBeside(out);
  if (args.flags.has('parquet') && beside !== out) paths.push(beside);
  const full = paths.map((p) => resolve(io.cwd, p));
  await saveTraceFile(trace, ...full);
  return full;
}

/**
 * Writes a self-contained timeline page that opens on the trace's overview. The trace's findings are
 * the analysis's where it has none yet; the overview ranks them by the savings `profile` predicts.
 */
export async function writeHtmlFile(
  trace: Trace,
  title: string,
  path: string,
  io: CliIo,
  made: { profile: SimProfile; program?: Program; memory?: MemoryBudget },
): Promise<string> {
  const analysis = analyze(trace, { program: made.program, memory: made.memory });
  // A trace file may carry findings already: the page's finding numbers are those.
  if (trace.findings.length) analysis.findings = trace.findings;
  else trace.findings = analysis.findings;
  const overview = buildOverview(trace, analysis, made.profile, { memory: made.memory });
  const full = resolve(io.cwd, path);
  await writeFileAtomic(full, timelineHtmlChunks(trace, title, { overview }));
  return full;
}
