// `syncscope report`: every host wait, the findings and the metrics. The JSON shape is a stable,
// documented interface (media/schema/report.schema.json); the text form is for people.
import {
  candidatesText,
  NARROWER_DEDUCED,
  releasedByLine,
  siteLabel,
  siteSource,
  waitSentence,
  type SourceText,
} from './analyze/describe';
import { waitIndex } from './analyze';
import type { Analysis, WaitExplanation } from './analyze/types';
import type { WaitGroups } from './analyze/wait-groups';
import { callKind, callSite, type CallSite, type Finding, type SourceFrame, type Trace } from './trace/model';
import type { FindingPrediction, ReportPredictions } from './overview/predict';
import { rankFindings, savingText } from './overview/rank';
import { contextOf } from './overview/where';
import { escapeControls } from './terminal';
import { formatNs, formatPct } from './units';

import type { SiteSource } from './analyze/types';

export type { SiteSource };
/** A scenario step's position, or an imported call's site with its stack (innermost first). */
type Sourced<T extends { source?: unknown }> = Omit<T, 'source'> & {
  source?: T['source'] | SiteSource;
  stack?: SourceFrame[];
  /** A capture of a Python program: why the call has no line. */
  noSource?: string;
};
export type ReportWait = Sourced<Analysis['waits'][number]>;
export type ReportFinding = Sourced<Finding> & {
  /** The context of its first call that has one, where none of its calls has a line (imported traces). */
  context?: string;
  /** Host time its fix is predicted to save over the recorded window (docs/overview.md); negative: a cost. */
  predictedSavingNs?: number;
  /** The same over each iteration of the window, where iterations were found. */
  predictedSavingPerIterationNs?: number;
  /** Why no saving is predicted: no fix to simulate, the reason it cannot apply, or that it was not simulated. */
  noPrediction?: string;
};

export interface Report {
  source: string;
  name?: string;
  waits: ReportWait[];
  findings: ReportFinding[];
  metrics: { hostBlockedPct: number; gpuBusyPct: number; overlapPct: number };
  /** The waits grouped, when asked for (`report --group`). */
  groups?: WaitGroups;
  /** Where the findings carry predicted savings: the profile and the window they were simulated over. */
  predictedOver?: { profile: string; window: string };
}

export function buildReport(trace: Trace, analysis: Analysis, predictions?: ReportPredictions): Report {
  const round = (n: number) => Math.round(n * 100) / 100;
  const index = waitIndex(analysis);
  let waits: ReportWait[] | undefined;
  const reportWait = (w: WaitExplanation) => reportWaitOf(trace, w);
  const report: Report = {
    source: trace.meta.source,
    name: trace.meta.scenario?.name,
    // Made on first read: a summary reads every wait's kind and blocked time, and explains only a few.
    get waits() {
      return (waits ??= analysis.waits.map(reportWait));
    },
    findings: analysis.findings.map((f, k) => reportFinding(trace, f, predictions?.list[k])),
    metrics: {
      hostBlockedPct: round(analysis.metrics.hostBlockedPct),
      gpuBusyPct: round(analysis.metrics.gpuBusyPct),
      overlapPct: round(analysis.metrics.overlapPct),
    },
  };
  if (predictions) report.predictedOver = { profile: predictions.profile, window: predictions.window };
  if (index) {
    const blocked = trace.calls.blockedNs;
    unreadWaits.set(report, {
      read: () => waits !== undefined,
      count: index.calls.length,
      kind: (k) => callKind(trace, index.calls[k]),
      blockedNs: (k) => blocked[index.calls[k]],
      wait: (k) => reportWait(index.explain(k)),
    });
  }
  return report;
}

/** A report's waits as the counts and the summary read them: by position, each one made only when asked for. */
interface WaitView {
  count: number;
  kind(k: number): string;
  blockedNs(k: number): number;
  wait(k: number): ReportWait;
}

/** The waits of reports whose `waits` may not be made yet, and whether they are. */
const unreadWaits = new WeakMap<Report, WaitView & { read(): boolean }>();

function waitView(r: Report): WaitView {
  const unread = unreadWaits.get(r);
  if (unread && !unread.read()) return unread;
  const waits = r.waits;
  return {
    count: waits.length,
    kind: (k) => waits[k].kind,
    blockedNs: (k) => waits[k].blockedNs,
    wait: (k) => waits[k],
  };
}

/** How many waits a report holds, without making them. */
export const waitCount = (r: Report): number => waitView(r).count;

/** One wait in the report's shape: an imported call's site and stack added. */
export const reportWaitOf = (trace: Trace, w: WaitExplanation): ReportWait => {
  const site = callSite(trace, w.id);
  const why = site ? undefined : noSourceReason(trace, w.id);
  return why ? { ...w, noSource: why } : withSite(w, site);
};

/** An imported call's site in the report's shape; a scenario's own `source` is kept. */
function withSite<T extends { source?: unknown }>(row: T, site: CallSite | undefined): Sourced<T> {
  if (!site || row.source) return row;
  return { ...row, source: siteSource(site), stack: site.stack };
}

/**
 * Why a call of a Python program has no line. In a profile with line markers: no marker covered it.
 * In a capture: its stacks were not read (the reason the capture gave), its stack holds no frame of
 * the user's code (the library frames are its context), or it was made where no Python ran.
 */
function noSourceReason(trace: Trace, call: number): string | undefined {
  const py = trace.meta.python;
  if (!py) return undefined;
  if (py.markers)
    return "no line marker of the user's code covers it: it was made before the script's code began, after it ended (the profiler's own stop), or on a thread that ran none of it";
  if (!py.read) return `Python stacks were not read: ${py.text}`;
  return trace.calls.context[call]
    ? "no frame of its Python stack is in the user's code (--user-code adds paths)"
    : 'no Python code ran where it was made (a thread of the runtime or of a library)';
}

/** A finding in the report's shape: its site, else its context; its predicted saving where there is one. */
function reportFinding(trace: Trace, f: Finding, p: FindingPrediction | undefined): ReportFinding {
  const out: ReportFinding = withSite(f, firstSite(trace, f.calls));
  if (!out.source) {
    const call = f.calls.find((c) => c < trace.calls.count && contextOf(trace, c));
    if (call !== undefined) out.context = contextOf(trace, call);
  }
  if (p?.predictedSavingNs !== undefined) out.predictedSavingNs = Math.round(p.predictedSavingNs);
  if (p?.perIterationNs !== undefined) out.predictedSavingPerIterationNs = Math.round(p.perIterationNs);
  if (p?.noSaving !== undefined) out.noPrediction = p.noSaving;
  return out;
}

function firstSite(trace: Trace, calls: number[]): CallSite | undefined {
  for (const c of calls) {
    const site = c < trace.calls.count ? callSite(trace, c) : undefined;
    if (site) return site;
  }
  return undefined;
}

/** "line 3:5" for a scenario step; "at train.py:42 in loop()" or "in loop() (train.py:8)" for an imported call. */
export function where(s?: { line: number; column: number } | SiteSource): string {
  if (!s) return '';
  if (!('file' in s)) return `line ${s.line}:${s.column}`;
  const label = siteLabel({ frame: s, precision: s.precision, stack: [] });
  return s.precision === 'line' ? 'at ' + label : label;
}

/** Waits per chunk of streamed output: large enough to amortize, small enough that no chunk is a large string. */
const CHUNK_WAITS = 1000;

/**
 * The report as JSON, indented as `JSON.stringify(r, null, 2)` writes it but for the waits, one
 * line each (a million waits stay greppable and half the size), in chunks of about a thousand
 * waits, so that a report of millions of waits never becomes one string.
 */
export function* reportJsonChunks(r: Report): Generator<string> {
  // A key's quotes inside a string value are escaped, so this exact text can only be the key itself.
  const [head, tail] = splitOnce(JSON.stringify({ ...r, waits: [] }, null, 2), '\n  "waits": []');
  if (!r.waits.length) {
    yield head + '\n  "waits": []' + tail + '\n';
    return;
  }
  let buf = head + '\n  "waits": [';
  for (let i = 0; i < r.waits.length; i++) {
    buf += (i ? ',\n    ' : '\n    ') + JSON.stringify(r.waits[i]);
    if ((i + 1) % CHUNK_WAITS === 0) {
      yield buf;
      buf = '';
    }
  }
  yield buf + '\n  ]' + tail + '\n';
}

function splitOnce(text: string, marker: string): [string, string] {
  const at = text.indexOf(marker);
  return [text.slice(0, at), text.slice(at + marker.length)];
}

/** How many waits `summary` lists by name: the ones that blocked the host longest. */
export const SUMMARY_WAITS = 20;

export interface ReportTextOptions {
  file?: string;
  summary?: boolean;
  /** The text of the user's lines, quoted in each wait's sentence where it can be read. */
  code?: SourceText;
}

/** The report as a person reads it in a terminal, control characters in names escaped. */
export function formatReport(r: Report, opts: ReportTextOptions = {}): string {
  return [...reportTextChunks(r, opts)].join('');
}

/**
 * The text report in chunks. With `summary`, the waits are counted by kind and only the
 * SUMMARY_WAITS longest are listed, so that a run of a million waits prints a screenful.
 */
export function* reportTextChunks(r: Report, opts: ReportTextOptions = {}): Generator<string> {
  // Each entry is one line: a line break inside one came from a name, and is escaped with the rest.
  const text = (lines: string[]) => lines.map(escapeControls).join('\n') + '\n';
  const head = [`${r.name ?? opts.file ?? 'trace'} (${r.source})`, ''];
  const view = opts.summary ? waitView(r) : undefined;
  const listed = view && view.count > SUMMARY_WAITS ? longestWaits(view, SUMMARY_WAITS).map(view.wait) : r.waits;
  const count = view?.count ?? listed.length;
  if (!count) head.push('Host waits: none');
  else if (view && listed.length < count) {
    head.push(`Host waits (${count}): ${waitCounts(view)}`);
    head.push(`The ${listed.length} that blocked longest (all of them with --all):`);
  } else head.push(`Host waits (${count}):`);
  let out = head;
  for (let i = 0; i < listed.length; i++) {
    waitLines(listed[i], out, opts.code);
    if ((i + 1) % CHUNK_WAITS === 0) {
      yield text(out);
      out = [];
    }
  }
  out.push('');
  findingLines(r, out);
  out.push('');
  out.push(
    `Metrics: host blocked ${formatPct(r.metrics.hostBlockedPct)}, GPU busy ${formatPct(r.metrics.gpuBusyPct)}, overlap ${formatPct(r.metrics.overlapPct)}`,
  );
  yield text(out);
}

/**
 * The findings as the text report prints them: ranked by predicted saving (core/overview/rank.ts),
 * each with its id F1..Fn, the analysis order that `whatif --fix` takes.
 */
function findingLines(r: Report, out: string[]): void {
  if (!r.findings.length) {
    out.push('Findings: none');
    return;
  }
  const by = r.predictedOver
    ? `, largest predicted saving first (fixes simulated with the ${r.predictedOver.profile} profile over ${r.predictedOver.window})`
    : '';
  out.push(`Findings (${r.findings.length})${by}:`);
  const ranked = rankFindings(
    r.findings.map((f, index) => ({ ...f, index, perIterationNs: f.predictedSavingPerIterationNs })),
  );
  for (const f of ranked) {
    const at = f.source && !('file' in f.source) ? 'at ' + where(f.source) : where(f.source);
    const place = at || (f.context ? `in ${f.context}` : '');
    out.push(`  F${f.index + 1} ${f.severity} ${f.rule} ${f.kind}${place ? ' ' + place : ''}: ${f.message}`);
    if (f.predictedSavingNs !== undefined)
      out.push(`      ${savingText(f.predictedSavingNs, f.predictedSavingPerIterationNs)}`);
    else if (f.noPrediction) out.push(`      no prediction: ${f.noPrediction}`);
    if (f.fix) out.push(`      fix: ${f.fix}`);
  }
}

/** One wait as the text report prints it, line by line (names not yet escaped). */
export function waitLines(w: Report['waits'][number], out: string[], code?: SourceText): void {
  const resumed =
    w.releasedBy?.length && w.unblockLatencyNs !== null ? `, host resumed ${formatNs(w.unblockLatencyNs)} later` : '';
  const released = releasedByLine(w.releasedBy) + resumed;
  out.push(
    `  #${w.id} ${w.kind}(${w.target}) on ${w.thread} at ${formatNs(w.beginNs)}: blocked ${formatNs(w.blockedNs)}`,
  );
  const sentence = waitSentence(w, code);
  if (sentence) out.push(`      ${sentence}`);
  // A line's sentence already says that nothing was pending; a releasing op's line adds its full name.
  if (!sentence || w.releasedBy?.length !== 0) out.push(`      ${released}`);
  if (w.candidates) out.push(`      ${candidatesText(w.candidates)}`);
  if (w.narrower)
    out.push(
      `      an event wait on op ${w.narrower.op} would have released the host ${formatNs(w.narrower.savedNs)} earlier` +
        (w.narrower.deduced ? ` (deduced: ${NARROWER_DEDUCED})` : ''),
    );
  if (w.context) out.push(`      in ${w.context}`);
  if (w.noSource) out.push(`      no line: ${w.noSource}`);
  const loc = where(w.source);
  if (loc || w.rules.length) out.push(`      ${[loc, w.rules.join(' ')].filter(Boolean).join('  ')}`);
}

/** The positions of the `n` waits that blocked longest, in trace order (ties: the earlier wait). One pass, no full sort. */
function longestWaits(waits: WaitView, n: number): number[] {
  const top: number[] = []; // positions, longest first
  for (let i = 0; i < waits.count; i++) {
    const b = waits.blockedNs(i);
    if (top.length === n && b <= waits.blockedNs(top[n - 1])) continue;
    let k = Math.min(top.length, n - 1);
    while (k > 0 && waits.blockedNs(top[k - 1]) < b) k--;
    top.splice(k, 0, i);
    if (top.length > n) top.pop();
  }
  return top.sort((a, b) => a - b);
}

/** `1,000,000 (999,996 launch, 4 streamSync)`-style counts by kind, the most common first. */
function waitCounts(waits: WaitView): string {
  const byKind = new Map<string, number>();
  for (let i = 0; i < waits.count; i++) byKind.set(waits.kind(i), (byKind.get(waits.kind(i)) ?? 0) + 1);
  return [...byKind]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
}
