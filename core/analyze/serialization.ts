// Implicit serialization: GPU work that started late only because of the legacy default stream
// (S3) or a synchronous copy on it (S18), orderings the program never asked for; and streams
// held by host functions (S20).
import type { Program } from '../scenario/program';
import { OK } from '../trace/kinds';
import { CALL_KINDS, EDGE_KINDS, Finding, Trace } from '../trace/model';
import { FindingList, opPlaceKey } from './collect';
import { rowsWhere } from './csr';
import { atLine, callSource, isAsyncCall, opName, opStream, workAt } from './describe';
import { laneNext, lanePrev } from './graph';
import type { HappensBefore } from './hb';
import { formatNs } from '../units';

/** Delays below this are launch jitter, not serialization. */
export const MIN_DELAY_NS = 1000;

export function serializationSmells(t: Trace, hb: HappensBefore, program?: Program): Finding[] {
  const g = hb.graph;
  const C = g.calls;
  const legacy = EDGE_KINDS.indexOf('legacy');
  // Most traces have no legacy edges: then there is nothing to judge, and no edge to gather.
  if (!g.edgeCounts[legacy]) return [];
  const byTarget = new Map<number, number[]>();
  const { kind: edgeKind, from, to, count: edges } = t.edges;
  for (let k = 0; k < edges; k++) {
    if (edgeKind[k] !== legacy) continue;
    const list = byTarget.get(to[k]) ?? [];
    list.push(from[k]);
    byTarget.set(to[k], list);
  }
  const syncCopy = (op: number) => {
    const call = t.ops.call[op];
    const kind = call >= 0 ? CALL_KINDS[t.calls.kind[call]] : '';
    return (kind === 'memcpy' || kind === 'memset') && !isAsyncCall(t, call, program);
  };
  const legacyLane = (op: number) => t.lanes[t.ops.lane[op]]?.legacyDefault === true;
  const out = new FindingList();

  // What else made each target wait: its stream predecessor, its launch, and explicit edges.
  const explicit = new Map<number, number[]>();
  const addExplicit = (from: number, to: number) => {
    if (byTarget.has(to)) explicit.set(to, [...(explicit.get(to) ?? []), from]);
  };
  const [stream, event] = [EDGE_KINDS.indexOf('stream'), EDGE_KINDS.indexOf('event')];
  for (let k = 0; k < edges; k++) if (edgeKind[k] === stream || edgeKind[k] === event) addExplicit(from[k], to[k]);
  const b = g.bindings;
  for (let k = 0; k < b.eventFrom.length; k++) addExplicit(b.eventFrom[k], b.eventTo[k]);

  for (const [y, froms] of byTarget) {
    let x = froms[0];
    for (const f of froms) if (t.ops.end[f] > t.ops.end[x]) x = f;
    // When y would have been ready without the legacy edges. A call that issues an op and then
    // blocks on it (a synchronous copy) made it ready before it blocked.
    const call = t.ops.call[y];
    let ready = call >= 0 ? t.calls.end[call] - t.calls.blockedNs[call] : -Infinity;
    const prev = lanePrev(g, C + y);
    if (prev >= 0) ready = Math.max(ready, t.ops.end[prev - C]);
    for (const p of explicit.get(y) ?? []) ready = Math.max(ready, t.ops.end[p]);
    const delay = Math.min(t.ops.start[y], t.ops.end[x]) - ready;
    if (!(delay >= MIN_DELAY_NS)) continue;
    const copy = syncCopy(y) ? y : syncCopy(x) ? x : -1;
    const kind = copy >= 0 ? 'sync-copy-serialization' : 'legacy-serialization';
    const shown = workAt(t, g, x);
    const cx = t.ops.call[shown];
    const cy = t.ops.call[y];
    const where = (op: number) => (legacyLane(op) ? 'the legacy default stream' : `blocking stream ${opStream(t, op)}`);
    const src = callSource(t, cy);
    // The place is the work waited for, as the message names it: the op that ended last can be a
    // record, whose name is new each pass.
    out.add([kind, opPlaceKey(t, y), opPlaceKey(t, shown)].join('|'), {
      rule: copy >= 0 ? 'S18' : 'S3',
      kind,
      severity: 'warning',
      calls: [cy, cx].filter((n) => n >= 0),
      ops: shown === x ? [y, x] : [y, shown, x],
      ...(src ? { source: src } : {}),
      message:
        `"${opName(t, y)}" on ${where(y)}${atLine(t, cy)} waited ${formatNs(delay)} for "${opName(t, shown)}" on ${where(x)}${atLine(t, cx)}` +
        (copy >= 0
          ? `: the synchronous ${opName(t, copy)} runs on the legacy default stream, which orders it with every blocking stream`
          : ': the legacy default stream orders it with every blocking stream') +
        ', and nothing in the program asked for this order',
      fix:
        copy >= 0
          ? 'use an asynchronous copy ("async": true, cudaMemcpyAsync) from pinned memory on a non-blocking stream, and order it with an event where needed'
          : `make ${legacyLane(y) ? opStream(t, x) : opStream(t, y)} a non-blocking stream ("nonBlocking": true) or enable per-thread default streams, and order with an event where an order is needed`,
    });
  }
  return out.list();
}

/** S20: a host function holds its stream until it returns; work queued behind it waits. */
export function hostFuncStalls(t: Trace, hb: HappensBefore): Finding[] {
  const g = hb.graph;
  const out = new FindingList();
  for (const j of rowsWhere(t.ops.kind, t.ops.count, OK.hostFunc)) {
    const next = laneNext(g, g.calls + j) - g.calls;
    const queued = next >= 0 && t.ops.call[next] >= 0 && t.calls.begin[t.ops.call[next]] < t.ops.end[j];
    if (!queued) continue;
    const held = Math.min(t.ops.start[next], t.ops.end[j]) - t.ops.start[j];
    if (!(held >= MIN_DELAY_NS)) continue;
    const call = t.ops.call[j];
    const src = callSource(t, call);
    out.add(`hostfunc|${opPlaceKey(t, j)}`, {
      rule: 'S20',
      kind: 'host-func-stall',
      severity: 'warning',
      calls: call >= 0 ? [call] : [],
      ops: [j, next],
      ...(src ? { source: src } : {}),
      message:
        `host function "${opName(t, j)}"${atLine(t, call)} held stream ${opStream(t, j)} for ${formatNs(held)} while ` +
        `"${opName(t, next)}" waited behind it: a stream waits for its host functions to return`,
      fix: 'record an event instead, and let the host query or synchronize it when it needs to know',
    });
  }
  return out.list();
}
