// The tools for coding agents that read a trace, shared by `syncscope mcp` and the editor's
// language-model tools: each answers one question about a loaded trace with the core calls and the
// words of the CLI (`report`, `whatif`), as text for the model and as JSON. `path` is the file's
// name as the agent gave it (or the editor's for the trace it shows).
import { waitIndex } from '../analyze';
import { callSource, type SourceText } from '../analyze/describe';
import type { WaitExplanation } from '../analyze/types';
import { reportWaitOf, waitLines, where, type ReportFinding, type ReportWait } from '../report';
import { callKind, callSite, type SourceFrame } from '../trace/model';
import { formatNs, formatPct } from '../units';
import { describeFix } from '../whatif/fix-text';
import { NO_FIX, type FindingPrediction } from '../overview/predict';
import { rankFindings, savingText } from '../overview/rank';
import { savedNs, whatIf } from '../whatif/fixes';
import { traceWindow } from '../whatif/window';
import { clip, clipStrings, fitList, MAX_FRAMES, MAX_STRING, textOf, type Answer } from './answer';
import { ToolError } from './input';
import { PROFILE, type ToolSubject as Loaded } from './subject';
import type * as z from 'zod';
import type { INPUTS, OUTPUTS, ReadToolName, waitItem } from './schemas';

type WaitItem = z.infer<typeof waitItem>;
type Out<K extends keyof typeof OUTPUTS> = z.infer<(typeof OUTPUTS)[K]>;
/** A tool's arguments, with the file's name as `path` whichever way the adapter found it. */
type In<K extends keyof typeof INPUTS> = z.infer<(typeof INPUTS)[K]> & { path: string };

/** The analysis's waits by position: each one's call, explained only when listed. */
function waitsOf(l: Loaded): { calls: ArrayLike<number>; explain(k: number): WaitExplanation } {
  const index = waitIndex(l.analysis);
  if (index) return index;
  const waits = l.analysis.waits;
  return { calls: waits.map((w) => w.id), explain: (k) => waits[k] };
}

function countByKind(l: Loaded, calls: ArrayLike<number>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < calls.length; i++) {
    const k = callKind(l.trace, calls[i]);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

const kindsText = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');

/** One wait as JSON: the report's wait, its stack cut to its innermost frames, the releasing ops' stacks left out. */
function waitItemOf(w: ReportWait): WaitItem {
  const item: WaitItem = {
    id: w.id,
    kind: w.kind,
    thread: w.thread,
    target: w.target,
    beginNs: w.beginNs,
    blockedNs: w.blockedNs,
    releasedBy: w.releasedBy && w.releasedBy.map(({ stack: _stack, ...released }) => released),
    unblockLatencyNs: w.unblockLatencyNs,
    candidates: w.candidates,
    narrower: w.narrower,
    context: w.context,
    source: w.source,
    ...framesOf(w.stack),
  };
  return clipStrings(item);
}

function framesOf(stack: SourceFrame[] | undefined): { stack?: SourceFrame[]; stackLeftOut?: number } {
  if (!stack) return {};
  if (stack.length <= MAX_FRAMES) return { stack };
  return { stack: stack.slice(0, MAX_FRAMES), stackLeftOut: stack.length - MAX_FRAMES };
}

/** The same path, however each side spells it: equal, or one is the other's end after a slash. */
function sameFile(a: string, b: string): boolean {
  const [x, y] = [a, b].map((p) => p.replaceAll('\\', '/').replace(/^\.\//, ''));
  return x === y || x.endsWith('/' + y) || y.endsWith('/' + x);
}

/** Where a wait's call was made: every frame of its stack, or its scenario line (in the scenario file). */
function placesOf(l: Loaded, file: string, call: number): { file: string; line: number }[] {
  const site = callSite(l.trace, call);
  if (site) return [site.frame, ...site.stack];
  const s = callSource(l.trace, call);
  return s ? [{ file, line: s.line }] : [];
}

interface Ref {
  k: number;
  call: number;
  blockedNs: number;
}

const largestFirst = (a: Ref, b: Ref) => b.blockedNs - a.blockedNs || a.call - b.call;

/** The `limit` waits of `refs` that blocked longest, explained: as JSON, and as the report's lines for each. */
function listWaits(l: Loaded, refs: Ref[], limit: number, code: SourceText): { items: WaitItem[]; blocks: string[][] } {
  const { explain } = waitsOf(l);
  const waits = [...refs]
    .sort(largestFirst)
    .slice(0, limit)
    .map((r) => reportWaitOf(l.trace, explain(r.k)));
  const blocks = waits.map((w) => {
    const lines: string[] = [];
    waitLines(w, lines, code);
    return lines.map((line) => clip(line, MAX_STRING + 100));
  });
  return { items: waits.map(waitItemOf), blocks };
}

/** All the waits, by position, call and blocked time. */
function refsOf(l: Loaded): Ref[] {
  const blocked = l.trace.calls.blockedNs;
  return Array.from(waitsOf(l).calls, (call, k) => ({ k, call, blockedNs: blocked[call] }));
}

/** The user's lines that waited, most blocked first: what to offer where no wait is at the line asked about. */
function linesWithWaits(l: Loaded, file: string, refs: Ref[]): NonNullable<Out<'waits'>['linesWithWaits']> {
  const byLine = new Map<string, { file: string; line: number; waits: number; blockedNs: number }>();
  for (const r of refs) {
    const [at] = placesOf(l, file, r.call);
    if (!at) continue;
    const key = `${at.file}:${at.line}`;
    const row = byLine.get(key) ?? { file: at.file, line: at.line, waits: 0, blockedNs: 0 };
    row.waits++;
    row.blockedNs += r.blockedNs;
    byLine.set(key, row);
  }
  return [...byLine.values()].sort((a, b) => b.blockedNs - a.blockedNs).slice(0, 5);
}

export function waitsAnswer(l: Loaded, args: In<'waits'>, code: SourceText): Answer<Out<'waits'>> {
  const all = refsOf(l);
  const placeAsked = args.file !== undefined || args.line !== undefined;
  const atPlace = (r: Ref) =>
    placesOf(l, args.path, r.call).some(
      (p) =>
        (args.file === undefined || sameFile(p.file, args.file)) && (args.line === undefined || p.line === args.line),
    );
  const matched = all.filter(
    (r) => (args.kind === undefined || callKind(l.trace, r.call) === args.kind) && (!placeAsked || atPlace(r)),
  );
  const limit = args.limit ?? 10;
  const { items, blocks } = listWaits(l, matched, limit, code);
  const byKind = countByKind(l, waitsOf(l).calls);
  const data: Out<'waits'> = {
    file: args.path,
    totalWaits: all.length,
    byKind,
    matched: matched.length,
    leftOut: 0,
    waits: items,
  };
  if (!matched.length && placeAsked) data.linesWithWaits = clipStrings(linesWithWaits(l, args.path, all));
  data.leftOut = matched.length - items.length + fitList(data, 'waits', blocks);
  const filters = [
    args.file !== undefined ? `file ${args.file}` : '',
    args.line !== undefined ? `line ${args.line}` : '',
    args.kind !== undefined ? `kind ${args.kind}` : '',
  ].filter(Boolean);
  const head = [
    `${args.path}: ${all.length} host waits${all.length ? ` (${kindsText(byKind)})` : ''}`,
    filters.length ? `${matched.length} at ${filters.join(', ')}` : '',
    data.waits.length ? 'largest blocked time first:' : '',
  ];
  const text = [head.filter(Boolean).join('; '), ...blocks.flat()];
  if (data.leftOut) text.push(`${data.leftOut} more matching waits left out (limit ${limit})`);
  if (data.linesWithWaits?.length) text.push('No wait is there; the lines that wait most:');
  for (const p of data.linesWithWaits ?? [])
    text.push(`  waits at ${p.file}:${p.line}: ${p.waits}, blocked ${formatNs(p.blockedNs)} in all`);
  return { text: textOf(text), data };
}

type FindingOut = Out<'findings'>['findings'][number];

/** What the prediction says: the simulated edit, or why there is none. */
function predictionText(p: FindingPrediction): string {
  if (p.predictedSavingNs !== undefined) return p.edit ?? '';
  if (p.noSaving === NO_FIX || p.noSaving === undefined) return NO_FIX;
  return p.noSaving.startsWith('cannot') ? `${NO_FIX} (${p.noSaving})` : p.noSaving;
}

function findingItem(f: ReportFinding, index: number, p: FindingPrediction): FindingOut {
  return clipStrings({
    id: `F${index + 1}`,
    rule: f.rule,
    kind: f.kind,
    severity: f.severity,
    message: f.message,
    fix: f.fix,
    source: f.source,
    context: f.context,
    stack: framesOf(f.stack).stack,
    calls: f.calls.slice(0, 20),
    callCount: f.calls.length,
    predictedSavingNs: p.predictedSavingNs,
    predictedSavingPerIterationNs: p.perIterationNs,
    prediction: predictionText(p),
  });
}

export function findingsAnswer(l: Loaded, args: In<'findings'>): Answer<Out<'findings'>> {
  const { list, window } = l.predictions;
  const all = l.report.findings.map((f, i) => ({ index: i, severity: f.severity, ...list[i] }));
  const ranked = rankFindings(all).map((r) => findingItem(l.report.findings[r.index], r.index, list[r.index]));
  const limit = args.limit ?? 20;
  const data: Out<'findings'> = {
    file: args.path,
    profile: PROFILE.name,
    window,
    total: all.length,
    leftOut: 0,
    findings: ranked.slice(0, limit),
  };
  const blocks = data.findings.map(findingLines);
  data.leftOut = all.length - data.findings.length + fitList(data, 'findings', blocks);
  const text = [
    all.length
      ? `${args.path}: ${all.length} findings, largest predicted saving first (fixes simulated with the ${PROFILE.name} profile over ${window}):`
      : `${args.path}: no findings`,
    ...blocks.flat(),
  ];
  if (data.leftOut) text.push(`${data.leftOut} more findings left out (limit ${limit})`);
  return { text: textOf(text), data };
}

function findingLines(f: FindingOut): string[] {
  const at = f.source
    ? ` ${'file' in f.source ? where(f.source) : 'at ' + where(f.source)}`
    : f.context
      ? ` in ${f.context}`
      : '';
  const saving =
    f.predictedSavingNs === undefined ? '' : `${savingText(f.predictedSavingNs, f.predictedSavingPerIterationNs)}: `;
  return [
    `${f.id} ${f.severity} ${f.rule} ${f.kind}${at}: ${f.message}`,
    `    ${saving}${f.prediction}`,
    ...(f.fix ? [`    fix: ${f.fix}`] : []),
  ];
}

export function whatifAnswer(l: Loaded, args: In<'whatif'>): Answer<Out<'whatif'>> {
  const id = args.id.toUpperCase();
  const n = l.analysis.findings.length;
  if (Number(id.slice(1)) < 1 || Number(id.slice(1)) > n)
    throw new ToolError(
      `${args.path}: no finding ${id}; the trace has ${n > 1 ? `F1 to F${n}` : n ? 'F1 only' : 'no findings'} (the findings tool lists them)`,
    );
  const window =
    args.steps === undefined ? undefined : traceWindow(l.trace, args.path, 'simulate', { steps: args.steps });
  const [r] = whatIf(l.trace, PROFILE, [id], window, l.analysis);
  const data: Out<'whatif'> = clipStrings({
    file: args.path,
    id,
    kind: r.finding.kind,
    message: r.finding.message,
    profile: PROFILE.name,
    applied: r.applied,
    edit: r.edit,
    before: r.before,
    after: r.after,
    savingNs: savedNs(r),
    waits: r.waits.slice(0, 20),
    waitsLeftOut: Math.max(0, r.waits.length - 20),
  });
  return {
    text: textOf([`${args.path}: the fix simulated with the ${PROFILE.name} profile`, ...describeFix(r)]),
    data,
  };
}

export function reportAnswer(l: Loaded, args: In<'report'>, code: SourceText): Answer<Out<'report'>> {
  const refs = refsOf(l);
  const { items, blocks } = listWaits(l, refs, args.top ?? 5, code);
  const byKind = countByKind(l, waitsOf(l).calls);
  const { metrics, findings, source, name } = l.report;
  const data: Out<'report'> = {
    file: args.path,
    source,
    name: name === undefined ? undefined : clip(name),
    metrics,
    waits: refs.length,
    byKind,
    findings: findings.length,
    topWaits: items,
  };
  fitList(data, 'topWaits', blocks);
  const text = [
    `${data.name ?? args.path} (${source})`,
    `Metrics: host blocked ${formatPct(metrics.hostBlockedPct)}, GPU busy ${formatPct(metrics.gpuBusyPct)}, overlap ${formatPct(metrics.overlapPct)}`,
    refs.length ? `Host waits (${refs.length}): ${kindsText(byKind)}` : 'Host waits: none',
    ...(blocks.length ? [`The ${blocks.length} that blocked longest:`] : []),
    ...blocks.flat(),
    findings.length
      ? `Findings: ${findings.length} (the findings tool ranks them by predicted saving)`
      : 'Findings: none',
  ];
  return { text: textOf(text), data };
}

/** The answer of a tool that reads a trace, by its name: what both adapters call once the arguments are checked. */
export function readToolAnswer<K extends ReadToolName>(tool: K, l: Loaded, args: In<K>, code: SourceText): Answer {
  switch (tool) {
    case 'report':
      return reportAnswer(l, args as In<'report'>, code);
    case 'waits':
      return waitsAnswer(l, args as In<'waits'>, code);
    case 'findings':
      return findingsAnswer(l, args as In<'findings'>);
    default:
      return whatifAnswer(l, args as In<'whatif'>);
  }
}
