// The lines that block the host longest in the recorded window (docs/overview.md, "Lines"): waits
// with a line of the user's code by that line (core/analyze/site-lines.ts), the others by the op
// context they ran in; each with the op that released most of its blocked time and where that op
// was launched.
import { groupReleasedByText, releasingOps } from '../analyze/describe';
import { siteLines } from '../analyze/site-lines';
import type { SiteSource } from '../analyze/types';
import { shortKernelName } from '../trace/kernel-names';
import { CK, isWait } from '../trace/kinds';
import type { Trace } from '../trace/model';
import type { OverviewLine, OverviewRelease } from './types';
import { apiOnThread, callWhere, whereKey } from './where';
import type { OverviewWhere } from './types';

interface Group {
  where: OverviewWhere;
  calls: number[];
}

/**
 * The op that released the most of these waits' blocked time, as its name and stream (op ids differ
 * between iterations), described from the wait of that op that blocked longest.
 */
function mainRelease(t: Trace, calls: number[]): OverviewRelease | undefined {
  const byOp = new Map<string, { ns: number; wait: number }>();
  for (const c of calls) {
    const [op] = releasingOps(t, c) ?? [];
    if (!op) continue;
    const key = `${op.name}\n${op.stream}`;
    const row = byOp.get(key) ?? byOp.set(key, { ns: 0, wait: c }).get(key)!;
    row.ns += t.calls.blockedNs[c];
    if (t.calls.blockedNs[c] > t.calls.blockedNs[row.wait]) row.wait = c;
  }
  let best: { ns: number; wait: number } | undefined;
  for (const row of byOp.values()) if (!best || row.ns > best.ns) best = row;
  if (!best) return undefined;
  const [op] = releasingOps(t, best.wait)!;
  const release: OverviewRelease = {
    name: op.name,
    shortName: shortKernelName(op.name),
    stream: op.stream,
    how: op.how,
  };
  if (op.source) release.launch = launchOf(op.source);
  const q = op.queuedBehind;
  if (q) {
    release.queuedBehind = { name: q.name, shortName: shortKernelName(q.name), ops: q.ops };
    if (q.source) release.queuedBehind.launch = launchOf(q.source);
  }
  return release;
}

const launchOf = (s: SiteSource) => ({
  file: s.file,
  line: s.line,
  function: s.function,
  precision: s.precision,
  ...(s.deduced ? { deduced: s.deduced } : {}),
});

/** The waits (calls that blocked) that `counted` keeps, by line or context, largest blocked time first. */
export function overviewLines(t: Trace, counted: (call: number) => boolean, iterations?: number): OverviewLine[] {
  const blocked = (i: number) => t.calls.kind[i] !== CK.context && isWait(t, i) && t.calls.blockedNs[i] > 0;
  const keep = (i: number) => blocked(i) && counted(i);
  // A helper's waits count once, split by the lines that called it: each is a place to fix.
  const groups: Group[] = siteLines(t, keep)
    .filter((s) => !s.callers)
    .map((s) => ({
      where: s.via
        ? { ...s.via, precision: 'line', calledFrom: { file: s.file, line: s.line, function: s.function } }
        : { file: s.file, line: s.line, function: s.function, precision: s.precision },
      calls: s.calls,
    }));
  const others = new Map<string, Group>();
  for (let i = 0; i < t.calls.count; i++) {
    if (!keep(i) || t.calls.site[i]) continue;
    const where = callWhere(t, i) ?? { context: apiOnThread(t, i) };
    const key = whereKey(where);
    (others.get(key) ?? others.set(key, { where, calls: [] }).get(key)!).calls.push(i);
  }
  groups.push(...others.values());
  let total = 0;
  for (const g of groups) for (const c of g.calls) total += t.calls.blockedNs[c];
  const lines = groups.map((g): OverviewLine => {
    let blockedNs = 0;
    let longest = g.calls[0];
    for (const c of g.calls) {
      blockedNs += t.calls.blockedNs[c];
      if (t.calls.blockedNs[c] > t.calls.blockedNs[longest]) longest = c;
    }
    const line: OverviewLine = {
      where: g.where,
      blockedNs,
      share: total > 0 ? blockedNs / total : 0,
      waits: g.calls.length,
      longest,
      releasedByText: groupReleasedByText(t, g.calls),
    };
    if (iterations) line.perIterationNs = blockedNs / iterations;
    const release = mainRelease(t, g.calls);
    if (release) line.releasedBy = release;
    return line;
  });
  return lines.sort((a, b) => b.blockedNs - a.blockedNs || a.longest - b.longest);
}
