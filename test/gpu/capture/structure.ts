// The structure two traces of the same program must share, whoever made them (capture, simulator):
// the calls each host thread made, which op released each wait, and the ordering edges. Calls and
// ops are named by position ("thread:index" of the issuing call), never by time.
import { CALL_KINDS, EDGE_KINDS, ANSWERS, type CallKind, type Trace } from '../../../core/trace/model';

/** The call kinds compared: the CUDA calls a scenario can make. */
export const COMPARED: CallKind[] = [
  'launch',
  'record',
  'streamWait',
  'query',
  'eventSync',
  'streamSync',
  'deviceSync',
  'elapsed',
  'memcpy',
  'memset',
  'hostFunc',
];

export interface Structure {
  /** Per host thread, the kinds of its compared calls, with a query's answer. */
  calls: string[][];
  /** Call id -> the id of the call that issued the op that released it ("" when nothing was pending). */
  releasedBy: Map<string, string>;
  /** Call id -> blocked ns, for choosing the waits worth comparing. */
  blockedNs: Map<string, number>;
  /** "kind from -> to" for stream, legacy and event edges between compared ops. */
  edges: Set<string>;
}

export interface StructureOptions {
  /** Leave out calls on lanes like this (the per-thread default stream the scenario cannot name). */
  skipLane?: (lane: number) => boolean;
  /** Per thread lane, how many compared calls to leave out at the start. */
  skipFirst?: (threadIndex: number) => number;
  /** Compare only the first this many host threads. */
  threads?: number;
}

export function structureOf(t: Trace, opts: StructureOptions = {}): Structure {
  const threads = t.lanes
    .filter((l) => l.kind === 'thread')
    .map((l) => l.id)
    .slice(0, opts.threads);
  const byLane = new Map<number, number[]>(threads.map((l) => [l, []]));
  const order = [...Array(t.calls.count).keys()].sort((a, b) => t.calls.begin[a] - t.calls.begin[b] || a - b);
  for (const c of order) {
    const kind = CALL_KINDS[t.calls.kind[c]];
    if (!COMPARED.includes(kind)) continue;
    if (t.calls.stream[c] >= 0 && opts.skipLane?.(t.calls.stream[c])) continue;
    byLane.get(t.calls.lane[c])?.push(c);
  }
  const id = new Map<number, string>();
  const calls = threads.map((lane, ti) => {
    const list = (byLane.get(lane) ?? []).slice(opts.skipFirst?.(ti) ?? 0);
    list.forEach((c, i) => id.set(c, `${ti}:${i}`));
    return list.map((c) => {
      const kind = CALL_KINDS[t.calls.kind[c]];
      return kind === 'query' ? `query ${ANSWERS[t.calls.answer[c]]}` : kind;
    });
  });
  const opId = (op: number): string | undefined => (op >= 0 ? id.get(t.ops.call[op]) : undefined);
  const releasedBy = new Map<string, string>();
  const blockedNs = new Map<string, number>();
  for (const [c, name] of id) {
    const r = t.calls.releasedBy[c];
    releasedBy.set(name, r >= 0 ? (opId(r) ?? '?') : '');
    blockedNs.set(name, t.calls.blockedNs[c]);
  }
  const edges = new Set<string>();
  for (let e = 0; e < t.edges.count; e++) {
    const kind = EDGE_KINDS[t.edges.kind[e]];
    if (kind !== 'stream' && kind !== 'legacy' && kind !== 'event') continue;
    const from = opId(t.edges.from[e]);
    const to = opId(t.edges.to[e]);
    if (from && to) edges.add(`${kind} ${from} -> ${to}`);
  }
  return { calls, releasedBy, blockedNs, edges };
}

/** Edges op -> op where the later op starts before the earlier one ends: causality violations. */
export function causalityViolations(t: Trace, toleranceNs = t.meta.alignmentErrorNs): string[] {
  const bad: string[] = [];
  for (let e = 0; e < t.edges.count; e++) {
    const kind = EDGE_KINDS[t.edges.kind[e]];
    if (kind !== 'stream' && kind !== 'legacy' && kind !== 'event') continue;
    const from = t.edges.from[e];
    const to = t.edges.to[e];
    const gap = t.ops.start[to] - t.ops.end[from];
    if (gap < -toleranceNs) bad.push(`${kind} edge op ${from} -> op ${to}: starts ${-gap} ns before it ends`);
  }
  for (let c = 0; c < t.calls.count; c++) {
    if (t.calls.releasedBy[c] >= 0 && t.calls.unblockNs[c] < -toleranceNs)
      bad.push(`call ${c} returned ${-t.calls.unblockNs[c]} ns before its releasing op ended`);
  }
  return bad;
}
