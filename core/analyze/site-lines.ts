// A trace's host waits and findings by the line of the user's code that made them (calls.site),
// for the editor: one entry per (file, line), with how often and how long the host waited there,
// and who released it, in describe.ts's words.
import type { CallKind } from '../trace/kinds';
import { CK, isWait } from '../trace/kinds';
import { CallSite, Finding, Severity, SourceFrame, Trace, callKind, callSite } from '../trace/model';
import { formatNs } from '../units';
import { rankFindings, type Rankable } from '../overview/rank';
import type { OverviewWhere } from '../overview/types';
import { findingWhere } from '../overview/where';
import { groupReleasedByText } from './describe';

export interface SiteLine {
  file: string;
  /** 1-based; for `precision: 'function'`, the line where the function was entered. */
  line: number;
  function: string;
  precision: CallSite['precision'];
  count: number;
  totalBlockedNs: number;
  maxBlockedNs: number;
  /** The wait that blocked longest: the one shown first. */
  longest: number;
  /** Every wait made there, in call order. */
  calls: number[];
  /** Their call kinds, each once, in order of first appearance. */
  kinds: CallKind[];
  releasedBy: string;
  /**
   * On a line that called a function of the user's that waits on behalf of several lines (a
   * helper): that function's line where these waits were made. These waits are also its own line's.
   */
  via?: SourceFrame;
  /** On such a helper's line: how many lines called it (each has its own entry, with `via`). */
  callers?: number;
}

export interface SiteProblem {
  file: string;
  line: number;
  precision: CallSite['precision'];
  severity: Severity;
  finding: Finding;
  /** The finding's index in the trace's findings: F(index + 1). */
  index: number;
  /** Host time its fix is predicted to save (core/overview/predict.ts), where known. */
  predictedSavingNs?: number;
}

const keyOf = (f: SourceFrame): string => `${f.line}\n${f.file}`;

const emptyLine = (frame: SourceFrame, precision: CallSite['precision'], first: number): SiteLine => ({
  file: frame.file,
  line: frame.line,
  function: frame.function,
  precision,
  count: 0,
  totalBlockedNs: 0,
  maxBlockedNs: -1,
  longest: first,
  calls: [],
  kinds: [],
  releasedBy: '',
});

function addWait(t: Trace, g: SiteLine, i: number): void {
  const blocked = t.calls.blockedNs[i];
  g.count++;
  g.totalBlockedNs += blocked;
  if (blocked > g.maxBlockedNs) {
    g.maxBlockedNs = blocked;
    g.longest = i;
  }
  g.calls.push(i);
  const kind = callKind(t, i);
  if (!g.kinds.includes(kind)) g.kinds.push(kind);
}

/**
 * Every line of user code where the host waited, in order of first wait; with `keep`, only the waits
 * it keeps (those of a window). Waits without a site are left out. A line whose waits were all made
 * on behalf of two or more calling lines (a helper of the user's, called from several places) is
 * followed by an entry for each of those lines, with `via`: each call site is a place to fix.
 */
export function siteLines(t: Trace, keep?: (call: number) => boolean): SiteLine[] {
  const byKey = new Map<string, SiteLine>();
  const c = t.calls;
  for (let i = 0; i < c.count; i++) {
    if (c.kind[i] === CK.context || !isWait(t, i) || (keep && !keep(i))) continue;
    const site = callSite(t, i);
    if (!site) continue;
    const key = keyOf(site.frame);
    const g = byKey.get(key) ?? byKey.set(key, emptyLine(site.frame, site.precision, i)).get(key)!;
    addWait(t, g, i);
  }
  const out: SiteLine[] = [];
  for (const g of byKey.values()) out.push(g, ...callerLines(t, g));
  for (const g of out) g.releasedBy = groupReleasedByText(t, g.calls);
  return out;
}

/** A helper's line split by the lines that called it, where every wait there has one and they are two or more. */
function callerLines(t: Trace, g: SiteLine): SiteLine[] {
  if (g.precision !== 'line') return [];
  const byCaller = new Map<string, SiteLine>();
  const via: SourceFrame = { file: g.file, line: g.line, function: g.function };
  for (const i of g.calls) {
    const caller = callSite(t, i)?.caller;
    if (!caller) return [];
    const key = keyOf(caller);
    const line = byCaller.get(key) ?? byCaller.set(key, { ...emptyLine(caller, 'line', i), via }).get(key)!;
    addWait(t, line, i);
  }
  if (byCaller.size < 2) return [];
  g.callers = byCaller.size;
  return [...byCaller.values()];
}

/**
 * `host blocked 15 ms, 3 waits of up to 7.5 ms: eventSync, released by "gemm" on stream 13`: the
 * total first (what the line costs), then how it splits; a function-level site says so. Without
 * `releasedBy`, the words stop before the releaser, for a caller that names it otherwise.
 */
export function siteLineText(s: SiteLine, releasedBy = true): string {
  const times = s.count > 1 ? `, ${s.count} waits of up to ${formatNs(s.maxBlockedNs)}` : '';
  const where = s.via ? ` in ${viaText(s)}` : s.precision === 'function' ? ' in this function' : '';
  const by = releasedBy ? `, ${s.releasedBy}` : '';
  return `host blocked ${formatNs(s.totalBlockedNs)}${where}${times}: ${s.kinds.join(', ')}${by}`;
}

/** "to_host() (line 11)", or "to_host() (util.py:11)" in another file: the helper a caller's line waited in. */
const viaText = (s: SiteLine): string => `${s.via!.function}() (${lineRef(s.via!, s.file)})`;

/** A path's last component, whichever separator it uses. */
export const baseName = (file: string): string =>
  file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);

/** "line 11" where `at` is in the file `from`, else "util.py:11": a line named beside another line. */
export const lineRef = (at: { file: string; line: number }, from: string): string =>
  at.file === from ? `line ${at.line}` : `${baseName(at.file)}:${at.line}`;

/**
 * The findings that name a call with a site, each on the site of its first such call, in the ranked
 * order (core/overview/rank.ts): by the predictions of `ranked` (the overview's findings, by index)
 * where given, else by severity.
 */
export function siteProblems(t: Trace, ranked?: readonly (Rankable & { where?: OverviewWhere })[]): SiteProblem[] {
  const order: readonly (Rankable & { where?: OverviewWhere })[] =
    ranked ?? rankFindings(t.findings.map((f, index) => ({ index, severity: f.severity })));
  const out: SiteProblem[] = [];
  for (const { index, predictedSavingNs, where: given } of order) {
    const finding = t.findings[index];
    if (!finding) continue;
    // The overview's place where it gave one (a line in the recorded window), else the finding's
    // first line of its own, before one known only by its function.
    const where = given ?? findingWhere(t, finding);
    if (where && 'file' in where)
      out.push({
        file: where.file,
        line: where.line,
        precision: where.precision,
        severity: finding.severity,
        finding,
        index,
        ...(predictedSavingNs !== undefined ? { predictedSavingNs } : {}),
      });
  }
  return out;
}

const parts = (path: string): string[] => path.split(/[\\/]+/).filter(Boolean);

/** How many trailing path components two paths share. */
export function sharedTail(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  let n = 0;
  while (n < x.length && n < y.length && x[x.length - 1 - n] === y[y.length - 1 - n]) n++;
  return n;
}

/**
 * Which of `candidates` (files of the workspace) a site's file names: the same absolute path, else
 * the one sharing the longest path tail (at least the file name), provided no other shares as much.
 */
export function matchSiteFile(siteFile: string, candidates: readonly string[]): string | undefined {
  if (candidates.includes(siteFile)) return siteFile;
  let best: string | undefined;
  let bestTail = 0;
  let tie = false;
  for (const c of candidates) {
    const n = sharedTail(siteFile, c);
    if (n > bestTail) [best, bestTail, tie] = [c, n, false];
    else if (n === bestTail && n > 0) tie = true;
  }
  return tie ? undefined : best;
}
