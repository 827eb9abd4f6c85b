// What the tools for coding agents answer over: a trace (or a scenario's simulated trace) with its
// analysis and report as `syncscope report` makes them, and every finding's fix simulated, made on
// first read since only the findings tool needs them. The adapters load the file; this is the rest.
import { analyze } from '../analyze';
import type { Analysis } from '../analyze/types';
import { buildReport, type Report } from '../report';
import type { Program } from '../scenario/program';
import { h200 } from '../simulate/profile';
import type { Trace } from '../trace/model';
import { windowPredictions, type ReportPredictions } from '../overview/predict';

export interface ToolSubject {
  trace: Trace;
  program?: Program;
  analysis: Analysis;
  report: Report;
  /** Every finding's fix simulated over the trace's recorded window (docs/overview.md), made on first read. */
  readonly predictions: ReportPredictions;
}

/** The simulator profile of every prediction: the built-in one, as `syncscope whatif` uses by default. */
export const PROFILE = h200;

export function toolSubject(trace: Trace, program?: Program, analysis = analyze(trace, { program })): ToolSubject {
  let predictions: ReportPredictions | undefined;
  return {
    trace,
    program,
    analysis,
    report: buildReport(trace, analysis),
    get predictions() {
      return (predictions ??= windowPredictions(trace, analysis, PROFILE));
    },
  };
}
