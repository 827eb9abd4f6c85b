// Host waits grouped by where they come from (scenario line, framework context) or by call kind,
// with how many there were and how long they blocked the host. The report's `--group` and the
// timeline's waits table both group through here, so the two always agree.
import { RELEASED_UNKNOWN, ReleaseHow, Trace, callKind, callSite, releaseHow, str } from '../trace/model';
import { formatNs } from '../units';
import { callSource, callTarget, laneName } from './describe';
import { CK, isWait } from '../trace/kinds';

/**
 * How a wait's releasing op is known: named by the data (`exact`), left by the rules (`deduced`),
 * inferred from timing (`timing`, labelled "likely"), or not at all (`unknown`).
 */
export type ReleaseBasis = ReleaseHow | 'unknown';

export const RELEASE_BASIS_LABEL: Record<ReleaseBasis, string> = {
  exact: 'exact',
  deduced: 'deduced',
  timing: 'likely',
  unknown: 'unknown',
};

/** From a report's `releasedBy`: null means the trace cannot tell. */
export const releaseBasisOf = (releasedBy: readonly { how?: ReleaseHow }[] | null): ReleaseBasis =>
  releasedBy === null ? 'unknown' : (releasedBy[0]?.how ?? 'exact');

/** What grouping needs of a wait: the report's WaitExplanation and the timeline's WaitRow both fit. */
export interface GroupableWait {
  id: number;
  kind: string;
  blockedNs: number;
  context?: string;
  /** A scenario step's position, or (report of an imported trace) the call's site in the user's program. */
  source?: { line: number; column: number } | { file: string; line: number };
}

/** One host wait as the timeline's table shows it, read from the trace's columns. */
export interface WaitRow extends GroupableWait {
  target: string;
  thread: string;
  beginNs: number;
  /** The releasing op's id; -1 when nothing was pending; null when the trace cannot tell. */
  releasedBy: number | null;
  basis: ReleaseBasis;
  unblockNs: number | null;
}

/** Every host wait of the trace, in call order. */
export function waitRows(t: Trace): WaitRow[] {
  const c = t.calls;
  const out: WaitRow[] = [];
  for (let i = 0; i < c.count; i++) {
    if (c.kind[i] === CK.context || !isWait(t, i)) continue;
    const r = c.releasedBy[i];
    const row: WaitRow = {
      id: i,
      kind: callKind(t, i),
      target: callTarget(t, i),
      thread: laneName(t, c.lane[i]),
      beginNs: c.begin[i],
      blockedNs: c.blockedNs[i],
      releasedBy: r === RELEASED_UNKNOWN ? null : Math.max(r, -1),
      basis: r === RELEASED_UNKNOWN ? 'unknown' : releaseHow(t, i),
      unblockNs: Number.isFinite(c.unblockNs[i]) ? c.unblockNs[i] : null,
    };
    if (c.context[i]) row.context = str(t, c.context[i]);
    // A scenario step's position, else the user's own line where the trace has it (a function-only
    // site names no line of the call, so it does not group with the calls made on that line).
    const src = callSource(t, i);
    const site = callSite(t, i);
    if (src) row.source = src;
    else if (site?.precision === 'line') row.source = { file: site.frame.file, line: site.frame.line };
    out.push(row);
  }
  return out;
}

export const WAIT_GROUPINGS = ['source', 'context', 'kind'] as const;
export type WaitGrouping = (typeof WAIT_GROUPINGS)[number];

export const GROUPING_TITLE: Record<WaitGrouping, string> = {
  source: 'source line',
  context: 'context',
  kind: 'call kind',
};

export interface WaitGroup {
  /** "line 12", a framework context, or a call kind; NO_KEY[by] for waits without one. */
  key: string;
  count: number;
  totalBlockedNs: number;
  p50BlockedNs: number;
  p95BlockedNs: number;
  /** Call ids of the group's waits, in the order given. */
  waits: number[];
}

export interface WaitGroups {
  by: WaitGrouping;
  groups: WaitGroup[];
}

export const NO_KEY: Record<WaitGrouping, string> = {
  source: '(no source line)',
  context: '(no context)',
  kind: '(no kind)',
};

export function groupKey(w: GroupableWait, by: WaitGrouping): string {
  if (by === 'source')
    return !w.source
      ? NO_KEY.source
      : 'file' in w.source
        ? `${w.source.file}:${w.source.line}`
        : `line ${w.source.line}`;
  if (by === 'context') return w.context || NO_KEY.context;
  return w.kind || NO_KEY.kind;
}

/** Nearest rank: the smallest value with at least p percent of the values at or below it. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Groups in order of total blocked time, largest first (ties by key). */
export function groupWaits(waits: readonly GroupableWait[], by: WaitGrouping): WaitGroups {
  const members = new Map<string, GroupableWait[]>();
  for (const w of waits) {
    const key = groupKey(w, by);
    const list = members.get(key);
    if (list) list.push(w);
    else members.set(key, [w]);
  }
  const groups: WaitGroup[] = [];
  for (const [key, list] of members) {
    const blocked = Float64Array.from(list, (w) => w.blockedNs).sort();
    groups.push({
      key,
      count: list.length,
      totalBlockedNs: blocked.reduce((s, v) => s + v, 0),
      p50BlockedNs: percentile(blocked, 50),
      p95BlockedNs: percentile(blocked, 95),
      waits: list.map((w) => w.id),
    });
  }
  groups.sort((a, b) => b.totalBlockedNs - a.totalBlockedNs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { by, groups };
}

/** The groups as a person reads them in a terminal, one line each. */
export function formatWaitGroups(g: WaitGroups): string {
  const out = [
    g.groups.length
      ? `Host waits by ${GROUPING_TITLE[g.by]} (${g.groups.length}):`
      : `Host waits by ${GROUPING_TITLE[g.by]}: none`,
  ];
  const width = Math.max(0, ...g.groups.map((x) => x.key.length));
  for (const x of g.groups) {
    out.push(
      `  ${x.key.padEnd(width)}  ${x.count} wait${x.count === 1 ? '' : 's'}, blocked ${formatNs(x.totalBlockedNs)} in all, ` +
        `p50 ${formatNs(x.p50BlockedNs)}, p95 ${formatNs(x.p95BlockedNs)}`,
    );
  }
  return out.join('\n') + '\n';
}
