// Which op released a host wait when the data does not bind the wait to its target (imported
// traces: a stream sync without its stream, an event sync without its record). The candidates
// follow from S13, S12 and S16 alone; a timing bound taken from the trace's own exact waits then
// picks the one op that ended just before the host resumed, or leaves the wait ambiguous.
// docs/import.md ("Attribution where the trace does not name the target") states the rules.
import { issueIndex, type IssueIndex } from '../import/issue-order';
import { CK, SYNC_CALL_KINDS } from './kinds';
import { RELEASE_HOW, RELEASED_NONE, RELEASED_UNKNOWN, type CALL_COLUMNS, type Lane, type OP_COLUMNS } from './model';
import type { Table } from './table';

/** The columns inference reads: a finished Trace, or a TraceBuilder's tables as they stand. */
export interface ReleaseView {
  lanes: readonly Lane[];
  calls: Table<typeof CALL_COLUMNS>;
  ops: Table<typeof OP_COLUMNS>;
}

/** The bound used when the trace has too few exact waits to derive one: a host thread resumes within tens of µs. */
export const DEFAULT_RELEASE_BOUND_NS = 50_000;
/** Exact waits needed before the trace's own latencies are trusted for the bound. */
export const MIN_BOUND_SAMPLES = 4;
/** The derived bound is this many times the 90th percentile of the exact latencies, and at least MIN_BOUND_NS. */
export const BOUND_FACTOR = 2;
export const MIN_BOUND_NS = 5_000;
/** An exact answer is suspect when its unblock latency is this many times the typical one, and above SUSPECT_FLOOR_NS. */
export const SUSPECT_FACTOR = 20;
export const SUSPECT_FLOOR_NS = 100_000;
/** The typical latency without exact waits, and the most a trace's own median may count as typical. */
export const DEFAULT_TYPICAL_NS = 25_000;

const HOW_EXACT = RELEASE_HOW.indexOf('exact');

export interface ReleaseBound {
  /** How long before the host resumed an op may have ended and still be taken as its releaser. */
  boundNs: number;
  /** The median unblock latency of the exact waits, at most DEFAULT_TYPICAL_NS. */
  typicalNs: number;
  /** How many exact waits the bound was derived from (0: the default). */
  samples: number;
}

/**
 * The bound from the trace's exact synchronize waits. Blocking copies are left out: their host
 * side stages data after the GPU work, so their latency is not the time a host takes to resume.
 */
export function releaseBound(t: ReleaseView): ReleaseBound {
  const c = t.calls;
  const lat: number[] = [];
  for (let i = 0; i < c.count; i++)
    if (
      c.releasedBy[i] >= 0 &&
      SYNC_CALL_KINDS.has(c.kind[i]) &&
      c.how[i] === HOW_EXACT &&
      Number.isFinite(c.unblockNs[i])
    )
      lat.push(c.unblockNs[i]);
  lat.sort((a, b) => a - b);
  const at = (l: number[], q: number) => l[Math.min(l.length - 1, Math.floor(q * l.length))];
  // A few waits released by an op the data does not show must not make their latency the norm:
  // the typical latency is at most the default's, and suspect latencies do not widen the bound.
  const typicalNs = lat.length ? Math.min(at(lat, 0.5), DEFAULT_TYPICAL_NS) : DEFAULT_TYPICAL_NS;
  const kept = lat.filter((l) => l <= suspectAbove(typicalNs));
  if (kept.length < MIN_BOUND_SAMPLES) return { boundNs: DEFAULT_RELEASE_BOUND_NS, typicalNs, samples: 0 };
  return { boundNs: Math.max(MIN_BOUND_NS, BOUND_FACTOR * at(kept, 0.9)), typicalNs, samples: kept.length };
}

const suspectAbove = (typicalNs: number) => Math.max(SUSPECT_FLOOR_NS, SUSPECT_FACTOR * typicalNs);

/** When each op was issued: its launching call's begin, or its own start when the call is not in the trace. */
export function issueByTime(t: ReleaseView): IssueIndex {
  const { calls, ops, lanes } = t;
  const at = new Float64Array(ops.count);
  for (let op = 0; op < ops.count; op++) at[op] = ops.call[op] >= 0 ? calls.begin[ops.call[op]] : ops.start[op];
  return issueIndex(
    ops.count,
    at,
    ops.end,
    (op) => ops.lane[op],
    (op) => lanes[ops.lane[op]]?.device ?? 0,
  );
}

export interface Candidates {
  /** Ops that may have released the wait: pending when it began, ended before the host resumed. */
  ops: number[];
  /** Whether "nothing was pending" is still possible (a target whose work had all ended). */
  nonePossible: boolean;
}

/**
 * What could have released a wait whose target the data does not name. A stream sync waited for
 * one stream's work issued before it (S13): each stream of the device offers its last-ending op,
 * unless that op ended after the host resumed (then it was not that stream), and a stream with
 * nothing pending offers "nothing". An event sync waited for the work before one record (S12): on
 * each stream, an op that ended later than every op issued before it, inside the wait.
 */
export function releaseCandidates(t: ReleaseView, index: IssueIndex, call: number, device: number): Candidates {
  const c = t.calls;
  const ends = t.ops.end;
  const begin = c.begin[call];
  const end = c.end[call];
  const out: Candidates = { ops: [], nonePossible: false };
  for (const [lane, list] of index.byStream) {
    if (t.lanes[lane]?.device !== device) continue;
    const n = below(list.corr, begin);
    if (c.kind[call] === CK.eventSync) {
      out.nonePossible = true;
      for (let k = n - 1; k >= 0 && ends[list.best[k]] > begin; k--)
        if (list.best[k] === list.ops[k] && ends[list.ops[k]] <= end) out.ops.push(list.ops[k]);
      continue;
    }
    const op = n ? list.best[n - 1] : -1;
    if (op < 0 || ends[op] <= begin) out.nonePossible = true;
    else if (ends[op] <= end) out.ops.push(op);
  }
  // Streams that ran nothing in the trace could be the target too; for a stream sync they too offer "nothing".
  if (c.kind[call] === CK.streamSync && streamsOn(t, device) > index.byStream.size) out.nonePossible = true;
  out.ops.sort((a, b) => ends[a] - ends[b] || a - b);
  return out;
}

const streamsOn = (t: ReleaseView, device: number) =>
  t.lanes.filter((l) => l.kind === 'stream' && l.device === device).length;

function below(sorted: Float64Array, bound: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export type Inference =
  { how: 'deduced'; op: number } | { how: 'timing'; op: number } | { how: 'ambiguous'; candidates: number[] };

/**
 * The answer the candidates allow. One op and no "nothing": deduced. No op: nothing was pending,
 * deduced. Otherwise the one op that ended within the bound before the host resumed: timing.
 * Anything else is ambiguous, with the candidates (those within the bound when several are).
 */
export function decide(t: ReleaseView, call: number, cand: Candidates, boundNs: number): Inference {
  if (!cand.ops.length) return { how: 'deduced', op: RELEASED_NONE };
  if (cand.ops.length === 1 && !cand.nonePossible) return { how: 'deduced', op: cand.ops[0] };
  const end = t.calls.end[call];
  const near = cand.ops.filter((op) => end - t.ops.end[op] <= boundNs);
  if (near.length === 1) return { how: 'timing', op: near[0] };
  return { how: 'ambiguous', candidates: near.length ? near : cand.ops };
}

/** The candidates of a wait left unknown: what the report lists for it. */
export function ambiguousCandidates(t: ReleaseView, index: IssueIndex, call: number, boundNs: number): number[] {
  if (t.calls.releasedBy[call] !== RELEASED_UNKNOWN) return [];
  const device = t.lanes[t.calls.lane[call]]?.device ?? 0;
  const d = decide(t, call, releaseCandidates(t, index, call, device), boundNs);
  return d.how === 'ambiguous' ? d.candidates : [];
}

/** An exact (or deduced) synchronize answer whose host resumed far later than this trace's hosts typically do. */
export function isSuspectRelease(t: ReleaseView, call: number, bound: ReleaseBound): boolean {
  const c = t.calls;
  return (
    SYNC_CALL_KINDS.has(c.kind[call]) &&
    c.releasedBy[call] >= 0 &&
    RELEASE_HOW[c.how[call]] !== 'timing' &&
    c.unblockNs[call] > suspectAbove(bound.typicalNs)
  );
}
