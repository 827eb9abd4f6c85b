// Every host wait explained (S12..S14, S16..S19): what it waited for, which op released it, how
// long the host was blocked, and whether an event wait on the op the code needed next would have
// released the host earlier than the stream or device wait it used.
import type { Program } from '../scenario/program';
import { CK, isWait } from '../trace/kinds';
import { COPY_KINDS, Trace, callKind, str } from '../trace/model';
import type { AccessIndex } from './accesses';
import { boundRecord, namesEvent, NEVER_RECORDED, NOT_EVENT_CALL, recordOpOf } from './bindings';
import { callRules, callTarget, holdsEveryCall, isAsyncCall, laneName, releasingOps } from './describe';
import { rowEnd, rowFirst } from './csr';
import { lanePrev } from './graph';
import type { HappensBefore } from './hb';
import type { WaitExplanation } from './types';

/** What explaining the waits needs from the happens-before graph, so that the graph can go first. */
export interface WaitFacts {
  /** The host waits' call ids, in call order. */
  ids: Int32Array;
  /** Per wait: PENDING and NEVER_RECORDED bits. */
  flags: Uint8Array;
  /** The narrower waits of pending stream and device synchronizes that have one, by call. */
  narrower: Map<number, NonNullable<WaitExplanation['narrower']>>;
}

const PENDING = 1;
const NEVER_RECORDED_EVENT = 2;

export function waitFacts(t: Trace, hb: HappensBefore, access: AccessIndex): WaitFacts {
  const c = t.calls;
  const b = hb.graph.bindings;
  const complete = holdsEveryCall(t);
  // The host waits, less the framework ranges: found as the calls were replayed.
  const ids = b.waits;
  const n = ids.length;
  const flags = new Uint8Array(n);
  const narrower: WaitFacts['narrower'] = new Map();
  for (let k = 0; k < n; k++) {
    const i = ids[k];
    const r = c.releasedBy[i];
    let pending = c.blockedNs[i] > 0 || (r >= 0 && t.ops.end[r] > c.begin[i]);
    for (let q = rowFirst(b.awaits, i), end = rowEnd(b.awaits, i); q < end; q++)
      if (t.ops.end[b.awaits.ids[q]] > c.begin[i]) pending = true;
    const neverRecorded = c.kind[i] === CK.eventSync && boundRecord(b, i) === NEVER_RECORDED && complete;
    flags[k] = (pending ? PENDING : 0) | (neverRecorded ? NEVER_RECORDED_EVENT : 0);
    if (pending && (c.kind[i] === CK.streamSync || c.kind[i] === CK.deviceSync)) {
      const w = narrowerWait(t, hb, access, i);
      if (w) narrower.set(i, w);
    }
  }
  return { ids, flags, narrower };
}

/** The explanation of the k-th wait of `facts`, made on demand: a caller may read only a few. */
export function waitExplainer(t: Trace, facts: WaitFacts, program?: Program): (k: number) => WaitExplanation {
  const c = t.calls;
  const rulesOf = internedRules();
  const sourceOf = internedSources();
  return (k) => {
    const i = facts.ids[k];
    const w = waitRecord(
      i,
      callKind(t, i),
      laneName(t, c.lane[i]),
      callTarget(t, i),
      c.begin[i],
      c.end[i],
      c.blockedNs[i],
      releasingOps(t, i),
      Number.isNaN(c.unblockNs[i]) ? null : c.unblockNs[i],
      (facts.flags[k] & PENDING) !== 0,
      rulesOf(t, i, program, (facts.flags[k] & NEVER_RECORDED_EVENT) !== 0),
      c.context[i] ? undefined : sourceOf(t, i),
    );
    if (c.context[i]) {
      w.context = str(t, c.context[i]);
      const within = sourceOf(t, i);
      if (within) w.source = within;
    }
    const narrower = facts.narrower.size ? facts.narrower.get(i) : undefined;
    if (narrower) w.narrower = narrower;
    return w;
  };
}

/**
 * A wait's rules (callRules, plus S9 where the event was never recorded). The waits of a long run
 * share a handful of distinct lists, so each list is made once and shared, not kept once per wait.
 * The lists are keyed by what callRules reads: the call's kind, whether a copy was asynchronous,
 * whether it blocked (S19), whether the trace names its releasing op (S16), and S9.
 */
function internedRules(): (t: Trace, call: number, program: Program | undefined, neverRecorded: boolean) => string[] {
  const lists = new Map<number, string[]>();
  return (t, call, program, neverRecorded) => {
    const c = t.calls;
    const kind = c.kind[call];
    const key =
      kind * 16 +
      (kind === CK.memcpy && isAsyncCall(t, call, program) ? 8 : 0) +
      (c.blockedNs[call] > 0 ? 4 : 0) +
      (c.releasedBy[call] >= 0 ? 2 : 0) +
      (neverRecorded ? 1 : 0);
    const shared = lists.get(key);
    if (shared) return shared;
    const rules = callRules(t, call, program);
    if (neverRecorded) rules.push('S9');
    lists.set(key, rules);
    return rules;
  };
}

/**
 * One wait, its source (when it has one) written in the same literal: an object of one shape, not
 * one that grows a property store per wait. The key order is the report's: source after rules.
 */
function waitRecord(
  id: number,
  kind: string,
  thread: string,
  target: string,
  beginNs: number,
  endNs: number,
  blockedNs: number,
  releasedBy: WaitExplanation['releasedBy'],
  unblockLatencyNs: number | null,
  pending: boolean,
  rules: string[],
  source: WaitExplanation['source'],
): WaitExplanation {
  return source
    ? { id, kind, thread, target, beginNs, endNs, blockedNs, releasedBy, unblockLatencyNs, pending, rules, source }
    : { id, kind, thread, target, beginNs, endNs, blockedNs, releasedBy, unblockLatencyNs, pending, rules };
}

/**
 * A wait's source position (callSource). The waits of an unrolled loop come from a few scenario
 * lines, so each position is one object shared by its waits, not one object per wait.
 */
function internedSources(): (t: Trace, call: number) => WaitExplanation['source'] {
  const sources = new Map<number, NonNullable<WaitExplanation['source']>>();
  return (t, call) => {
    const line = t.calls.line[call];
    if (!(line > 0)) return undefined;
    const column = t.calls.column[call];
    const key = line * 2 ** 21 + column;
    const shared = sources.get(key);
    if (shared) return shared;
    const src = { line, column };
    sources.set(key, src);
    return src;
  };
}

/** How far back a wait's covered ops are searched, so that one wait never costs a pass over the trace. */
const SCAN = 4096;

/**
 * The ops this wait newly covered that the host needed afterwards: copies touching host memory,
 * records whose events the thread uses next (query, elapsed, synchronize), and writes (or reads)
 * of buffers that the thread's next GPU work on another stream touches before its next host wait.
 */
export function neededOps(t: Trace, hb: HappensBefore, access: AccessIndex, w: number): number[] {
  const g = hb.graph;
  const b = g.bindings;
  const C = g.calls;
  const candidates: number[] = [];
  const known = lanePrev(g, w);
  for (let q = rowFirst(b.awaits, w), end = rowEnd(b.awaits, w); q < end; q++) {
    // Going back from the last awaited op in stream order: the ops this wait newly covers, the
    // ones the host did not know to be complete (a needed op may have finished already).
    for (
      let n = C + b.awaits.ids[q], k = 0;
      n >= C && k < SCAN && !(known >= 0 && hb.beforeNode(n, known));
      n = lanePrev(g, n), k++
    )
      candidates.push(n - C);
  }
  if (!candidates.length) return [];
  const needed = new Set<number>();
  const hostCopy = (j: number) =>
    t.ops.hostMemory[j] !== 0 ||
    t.ops.copy[j] === COPY_KINDS.indexOf('DtoH') ||
    t.ops.copy[j] === COPY_KINDS.indexOf('HtoH');
  for (const j of candidates) if (hostCopy(j)) needed.add(j);

  // The buffers the candidates touch, and for each, which lanes the thread's next work writes
  // and touches: a candidate is needed if work on another lane conflicts with it.
  // A trace that declares no buffer accesses (an imported one) has none to compare.
  const touched = new Map<number, { writes: Set<number>; all: Set<number> }>();
  if (t.accesses.count)
    for (const j of candidates) {
      for (let k = access.start[j]; k < access.start[j + 1]; k++)
        touched.set(t.accesses.buffer[access.rows[k]], { writes: new Set(), all: new Set() });
    }
  // Made at the first call that names an event: most calls name none, and most waits meet none.
  let candidateSet: Set<number> | undefined;
  const isCandidate = (op: number) => (candidateSet ??= new Set(candidates)).has(op);
  const lane = g.lane[w];
  for (let k = g.laneStart[lane] + g.seq[w]; k < g.laneStart[lane + 1]; k++) {
    const call = g.order[k];
    if (isWait(t, call)) break;
    if (namesEvent(b, call)) {
      const start = boundRecord(b, call);
      if (start >= 0 && isCandidate(recordOpOf(b, start))) needed.add(recordOpOf(b, start));
      const end = b.bound2.get(call) ?? NOT_EVENT_CALL;
      if (end >= 0 && isCandidate(recordOpOf(b, end))) needed.add(recordOpOf(b, end));
    }
    if (!touched.size) continue;
    for (let q = b.opsStart[call]; q < b.opsStart[call + 1]; q++) {
      const y = b.opsOf[q];
      for (let k2 = access.start[y]; k2 < access.start[y + 1]; k2++) {
        const row = access.rows[k2];
        const use = touched.get(t.accesses.buffer[row]);
        if (!use) continue;
        use.all.add(t.ops.lane[y]);
        if (t.accesses.write[row] === 1) use.writes.add(t.ops.lane[y]);
      }
    }
  }
  if (!touched.size) return [...needed];
  const elsewhere = (lanes: Set<number>, own: number) => lanes.size > 1 || (lanes.size === 1 && !lanes.has(own));
  for (const x of candidates) {
    for (let k = access.start[x]; k < access.start[x + 1]; k++) {
      const row = access.rows[k];
      const use = touched.get(t.accesses.buffer[row])!;
      if (elsewhere(t.accesses.write[row] === 1 ? use.all : use.writes, t.ops.lane[x])) needed.add(x);
    }
  }
  return [...needed];
}

function narrowerWait(t: Trace, hb: HappensBefore, access: AccessIndex, w: number): WaitExplanation['narrower'] {
  const needed = neededOps(t, hb, access, w);
  if (!needed.length) return undefined;
  let last = needed[0];
  for (const j of needed) if (t.ops.end[j] > t.ops.end[last]) last = j;
  const latency = Number.isNaN(t.calls.unblockNs[w]) ? 0 : t.calls.unblockNs[w];
  const savedNs = t.calls.end[w] - (Math.max(t.calls.begin[w], t.ops.end[last]) + latency);
  if (!(savedNs > 0)) return undefined;
  return t.accesses.count
    ? { kind: 'eventSync', savedNs, op: last }
    : { kind: 'eventSync', savedNs, op: last, deduced: true };
}
