// `syncscope report`: every host wait, the findings and the metrics. The JSON shape is a stable,
// documented interface (media/schema/report.schema.json); the text form is for people.
import { releasedByLine } from './analyze/describe';
import type { Analysis } from './analyze/types';
import type { WaitGroups } from './analyze/wait-groups';
import { siteLabel } from './import/python-sites';
import { callSite, type CallSite, type Finding, type SourceFrame, type Trace } from './trace/model';
import { escapeControls } from './terminal';
import { formatNs, formatPct } from './units';

/** Where in the user's program a call was made (imported traces); a scenario's source is its step's line and column. */
export interface SiteSource {
  file: string;
  line: number;
  function: string;
  precision: CallSite['precision'];
}
/** A scenario step's position, or an imported call's site with its stack (innermost first). */
type Sourced<T extends { source?: unknown }> = Omit<T, 'source'> & {
  source?: T['source'] | SiteSource;
  stack?: SourceFrame[];
};
export type ReportWait = Sourced<Analysis['waits'][number]>;
export type ReportFinding = Sourced<Finding>;

export interface Report {
  source: string;
  name?: string;
  waits: ReportWait[];
  findings: ReportFinding[];
  metrics: { hostBlockedPct: number; gpuBusyPct: number; overlapPct: number };
  /** The waits grouped, when asked for (`report --group`). */
  groups?: WaitGroups;
}

export function buildReport(trace: Trace, analysis: Analysis): Report {
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    source: trace.meta.source,
    name: trace.meta.scenario?.name,
    waits: analysis.waits.map((w) => withSite(w, callSite(trace, w.id))),
    findings: analysis.findings.map((f) => withSite(f, firstSite(trace, f.calls))),
    metrics: {
      hostBlockedPct: round(analysis.metrics.hostBlockedPct),
      gpuBusyPct: round(analysis.metrics.gpuBusyPct),
      overlapPct: round(analysis.metrics.overlapPct),
    },
  };
}

/** An imported call's site in the report's shape; a scenario's own `source` is kept. */
function withSite<T extends { source?: unknown }>(row: T, site: CallSite | undefined): Sourced<T> {
  if (!site || row.source) return row;
  const { file, line, function: fn } = site.frame;
  return { ...row, source: { file, line, function: fn, precision: site.precision }, stack: site.stack };
}

function firstSite(trace: Trace, calls: number[]): CallSite | undefined {
  for (const c of calls) {
    const site = c < trace.calls.count ? callSite(trace, c) : undefined;
    if (site) return site;
  }
  return undefined;
}

/** "line 3:5" for a scenario step; "at train.py:42 in loop()" or "in loop() (train.py:8)" for an imported call. */
function where(s?: { line: number; column: number } | SiteSource): string {
  if (!s) return '';
  if (!('file' in s)) return `line ${s.line}:${s.column}`;
  const label = siteLabel({ frame: s, precision: s.precision, stack: [] });
  return s.precision === 'line' ? 'at ' + label : label;
}

/** The report as a person reads it in a terminal, control characters in names escaped. */
export function formatReport(r: Report, opts: { file?: string } = {}): string {
  const out: string[] = [];
  out.push(`${r.name ?? opts.file ?? 'trace'} (${r.source})`);
  out.push('');
  out.push(r.waits.length ? `Host waits (${r.waits.length}):` : 'Host waits: none');
  for (const w of r.waits) {
    const resumed =
      w.releasedBy?.length && w.unblockLatencyNs !== null ? `, host resumed ${formatNs(w.unblockLatencyNs)} later` : '';
    const released = releasedByLine(w.releasedBy) + resumed;
    out.push(
      `  #${w.id} ${w.kind}(${w.target}) on ${w.thread} at ${formatNs(w.beginNs)}: blocked ${formatNs(w.blockedNs)}`,
    );
    out.push(`      ${released}`);
    if (w.narrower)
      out.push(
        `      an event wait on op ${w.narrower.op} would have released the host ${formatNs(w.narrower.savedNs)} earlier`,
      );
    if (w.context) out.push(`      in ${w.context}`);
    const loc = where(w.source);
    if (loc || w.rules.length) out.push(`      ${[loc, w.rules.join(' ')].filter(Boolean).join('  ')}`);
  }
  out.push('');
  out.push(r.findings.length ? `Findings (${r.findings.length}):` : 'Findings: none');
  for (const f of r.findings) {
    const at = f.source && !('file' in f.source) ? 'at ' + where(f.source) : where(f.source);
    out.push(`  ${f.severity} ${f.rule} ${f.kind}${at ? ' ' + at : ''}: ${f.message}`);
    if (f.fix) out.push(`      fix: ${f.fix}`);
  }
  out.push('');
  out.push(
    `Metrics: host blocked ${formatPct(r.metrics.hostBlockedPct)}, GPU busy ${formatPct(r.metrics.gpuBusyPct)}, overlap ${formatPct(r.metrics.overlapPct)}`,
  );
  // Each entry is one line: a line break inside one came from a name, and is escaped with the rest.
  return out.map(escapeControls).join('\n') + '\n';
}
