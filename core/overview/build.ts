// The overview of a trace (docs/overview.md): the recorded window, each iteration's host and GPU
// time, the lines that block the host longest and the findings ranked by predicted saving.
import type { Analysis } from '../analyze/types';
import type { MemoryBudget } from '../memory';
import type { SimProfile } from '../simulate/profile';
import type { Finding, Trace } from '../trace/model';
import { iterationTimes } from './iteration-time';
import { overviewLines } from './lines';
import { predictSavings, type FindingPrediction, type Predicted } from './predict';
import { rankFindings } from './rank';
import type { Overview, OverviewFinding } from './types';
import { findingCalls, findingWhere } from './where';
import { recordedWindow, spanAt, type RecordedWindow } from './window';

export interface OverviewOptions {
  /** The window, where the caller found it already (recordedWindow); found here otherwise. */
  window?: RecordedWindow;
  /** What the simulations may allocate (core/memory.ts). */
  memory?: MemoryBudget;
  /** The predictions, where the caller made them already (predictSavings over the same window). */
  predictions?: Predicted;
}

/** One finding as the overview lists it. */
export function overviewFinding(
  t: Trace,
  f: Finding,
  index: number,
  p: FindingPrediction,
  counted?: (call: number) => boolean,
): OverviewFinding {
  const out: OverviewFinding = {
    index,
    id: `F${index + 1}`,
    kind: f.kind,
    severity: f.severity,
    message: f.message,
    isCost: p.isCost,
  };
  const where = findingWhere(t, f, counted);
  if (where) out.where = where;
  if (p.predictedSavingNs !== undefined) out.predictedSavingNs = p.predictedSavingNs;
  if (p.perIterationNs !== undefined) out.perIterationNs = p.perIterationNs;
  if (p.noSaving !== undefined) out.noSaving = p.noSaving;
  const [call] = findingCalls(t, f, counted);
  if (call !== undefined) out.call = call;
  return out;
}

export function buildOverview(
  trace: Trace,
  analysis: Analysis,
  profile: SimProfile,
  opts: OverviewOptions = {},
): Overview {
  const rw = opts.window ?? recordedWindow(trace);
  const iterations = rw.summary.detectedBy === 'none' ? undefined : rw.spans.length;
  const counted = (call: number) => spanAt(rw.spans, trace.calls.begin[call]) >= 0;
  const predicted = opts.predictions ?? predictSavings(trace, analysis, profile, rw, opts.memory);
  const predictions = predicted.list;
  return {
    window: rw.summary,
    ...(predicted.overWhy
      ? { simulatedPart: `Fixes simulated over ${predicted.over.summary.text}: ${predicted.overWhy}.` }
      : {}),
    iterations: rw.thread >= 0 ? iterationTimes(trace, rw.thread, rw.spans) : [],
    lines: overviewLines(trace, counted, iterations),
    findings: rankFindings(analysis.findings.map((f, k) => overviewFinding(trace, f, k, predictions[k], counted))),
    profile: profile.name,
  };
}
