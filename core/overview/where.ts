// Where the overview says a wait or a finding happened: the user's line where the trace has it,
// a scenario's step line, else the framework op context the call ran in (docs/overview.md).
import { laneName } from '../analyze/describe';
import { callSite, str, type Finding, type Trace } from '../trace/model';
import type { OverviewWhere } from './types';

type LineWhere = Exclude<OverviewWhere, { context: string }>;

/** The profiler's step range, which differs in every step and says nothing of where. */
const STEP_RANGE = /^ProfilerStep#\d+$/;

/** A call's framework context, outermost first, without the profiler's step ranges; '' for none. */
export function contextOf(t: Trace, call: number): string {
  const id = t.calls.context[call];
  if (!id) return '';
  return str(t, id)
    .split(' > ')
    .filter((p) => !STEP_RANGE.test(p))
    .join(' > ');
}

/** A call's line: its site in the user's code, else its scenario step's line (in the scenario's file, where known). */
function lineOf(t: Trace, call: number): LineWhere | undefined {
  const site = callSite(t, call);
  if (site) {
    const { file, line, function: fn } = site.frame;
    return { file, line, function: fn, precision: site.precision };
  }
  const file = t.meta.scenario?.file;
  const line = t.calls.line[call];
  return file && line > 0 ? { file, line, function: '', precision: 'line' } : undefined;
}

/** Where a call was made: its line, else its context, else undefined. */
export function callWhere(t: Trace, call: number): OverviewWhere | undefined {
  const line = lineOf(t, call);
  if (line) return line;
  const context = contextOf(t, call);
  return context ? { context } : undefined;
}

/** A call's API name and thread: what a wait without a line or a context is grouped by. */
export const apiOnThread = (t: Trace, call: number): string =>
  `${str(t, t.calls.name[call]) || 'call'} on ${laneName(t, t.calls.lane[call])}`;

/** A finding's calls, those `counted` keeps (the window's) first, each group in the finding's order. */
export function findingCalls(t: Trace, f: Finding, counted: (call: number) => boolean = () => true): number[] {
  const calls = f.calls.filter((c) => c >= 0 && c < t.calls.count);
  return [...calls.filter(counted), ...calls.filter((c) => !counted(c))];
}

/** The first line of `calls` that is a line of its own, else the first known only by its function. */
function firstLine(t: Trace, calls: number[]): LineWhere | undefined {
  const lines = calls.map((c) => lineOf(t, c)).filter((w) => w !== undefined);
  return lines.find((w) => w.precision === 'line') ?? lines[0];
}

/**
 * Where a finding is: the line of its calls in the window (`counted`), else of its other calls (a
 * line of its own before one known only by its function), else the context of the first call that
 * has one; undefined where none of its calls has either.
 */
export function findingWhere(
  t: Trace,
  f: Finding,
  counted: (call: number) => boolean = () => true,
): OverviewWhere | undefined {
  const calls = findingCalls(t, f, counted);
  const line = firstLine(t, calls.filter(counted)) ?? firstLine(t, calls);
  if (line) return line;
  for (const c of calls) {
    const context = contextOf(t, c);
    if (context) return { context };
  }
  return undefined;
}

/** A where as one key: equal places, equal keys. */
export const whereKey = (w: OverviewWhere): string =>
  'context' in w
    ? `c\n${w.context}`
    : `l\n${w.file}\n${w.line}` + (w.calledFrom ? `\n${w.calledFrom.file}\n${w.calledFrom.line}` : '');
