// `syncscope report`: every host wait, the findings and the metrics. The JSON shape is a stable,
// documented interface (media/schema/report.schema.json); the text form is for people.
import { candidatesText, releasedByLine } from './analyze/describe';
import type { Analysis } from './analyze/types';
import type { WaitGroups } from './analyze/wait-groups';
import type { Finding, Trace } from './trace/model';
import { escapeControls } from './terminal';
import { formatNs, formatPct } from './units';

export interface Report {
  source: string;
  name?: string;
  waits: Analysis['waits'];
  findings: Finding[];
  metrics: { hostBlockedPct: number; gpuBusyPct: number; overlapPct: number };
  /** The waits grouped, when asked for (`report --group`). */
  groups?: WaitGroups;
}

export function buildReport(trace: Trace, analysis: Analysis): Report {
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    source: trace.meta.source,
    name: trace.meta.scenario?.name,
    waits: analysis.waits,
    findings: analysis.findings,
    metrics: {
      hostBlockedPct: round(analysis.metrics.hostBlockedPct),
      gpuBusyPct: round(analysis.metrics.gpuBusyPct),
      overlapPct: round(analysis.metrics.overlapPct),
    },
  };
}

const where = (s?: { line: number; column: number }) => (s ? `line ${s.line}:${s.column}` : '');

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
    if (w.candidates) out.push(`      ${candidatesText(w.candidates)}`);
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
    out.push(`  ${f.severity} ${f.rule} ${f.kind}${f.source ? ' at ' + where(f.source) : ''}: ${f.message}`);
    if (f.fix) out.push(`      fix: ${f.fix}`);
  }
  out.push('');
  out.push(
    `Metrics: host blocked ${formatPct(r.metrics.hostBlockedPct)}, GPU busy ${formatPct(r.metrics.gpuBusyPct)}, overlap ${formatPct(r.metrics.overlapPct)}`,
  );
  // Each entry is one line: a line break inside one came from a name, and is escaped with the rest.
  return out.map(escapeControls).join('\n') + '\n';
}
