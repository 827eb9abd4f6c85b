// The trace or scenario a tool names, loaded and analysed as `syncscope report` does. An agent asks
// several questions of one file in a row (its waits, then its findings, then one fix), so the last
// file stays loaded until it changes on disk or another is asked for.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { analyze } from '../../core/analyze';
import type { Analysis } from '../../core/analyze/types';
import { buildReport, type Report } from '../../core/report';
import type { Program } from '../../core/scenario/program';
import { h200 } from '../../core/simulate/profile';
import type { Trace } from '../../core/trace/model';
import { windowPredictions, type ReportPredictions } from '../../core/overview/predict';
import { loadInput } from '../input';
import { UsageError, type CliIo } from '../io';

export interface Loaded {
  trace: Trace;
  program?: Program;
  analysis: Analysis;
  report: Report;
  /** Every finding's fix simulated over the trace's recorded window (docs/overview.md), made on first read. */
  readonly predictions: ReportPredictions;
}

/** The simulator profile of every prediction: the built-in one, as `syncscope whatif` uses by default. */
export const PROFILE = h200;

let last: { key: string; loaded: Loaded } | undefined;

/** Loads `file` (resolved against `cwd`); a missing file or a directory is a UsageError that says so. */
export async function loadForTool(file: string, cwd: string): Promise<Loaded> {
  const full = resolve(cwd, file);
  const s = await stat(full).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new UsageError(`no such file: ${file} (looked for ${full})`);
    throw new UsageError(`cannot read ${file}: ${e.code ?? e.message}`);
  });
  if (!s.isFile()) throw new UsageError(`${file} is not a file; expected a trace or a *.scenario.json file`);
  const key = `${full}\0${s.mtimeMs}\0${s.size}`;
  if (last?.key === key) return last.loaded;
  last = undefined;
  const io: CliIo = { stdout: () => {}, stderr: () => {}, cwd };
  const { trace, program } = await loadInput(file, io);
  const analysis = analyze(trace, { program });
  let predictions: ReportPredictions | undefined;
  const loaded: Loaded = {
    trace,
    program,
    analysis,
    report: buildReport(trace, analysis),
    get predictions() {
      return (predictions ??= windowPredictions(trace, analysis, PROFILE));
    },
  };
  last = { key, loaded };
  return loaded;
}
