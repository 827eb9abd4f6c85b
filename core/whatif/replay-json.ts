// `syncscope replay --json` (media/schema/replay.schema.json): per host thread and per iteration the
// measured and replayed span, per wait the measured and replayed blocked time and releasing op, and
// whether each matches within the bounds (docs/whatif.md).
import { callSiteText, laneName, opName, opStream } from '../analyze/describe';
import { RELEASED_NONE, releaseHow, traceExtent, type ReleaseHow, type Trace } from '../trace/model';
import { LONG_WAIT_NS, SPAN_TOLERANCE, WAIT_TOLERANCE, type Replay, type WaitReplay } from './replay';

/** An op of the trace, "none" (nothing was pending) or "unknown" (the data cannot tell). */
export type OpRef = { op: number; name: string; stream: string; how?: ReleaseHow } | 'none' | 'unknown';

export interface ReplayJson {
  trace: string;
  profile: string;
  bounds: { spanPct: number; waitPct: number; longWaitNs: number };
  summary: {
    threads: number;
    threadsWithin: number;
    iterations: number;
    iterationsWithin: number;
    worstIterationError: number | null;
    longWaits: number;
    longWaitsMatching: number;
    worstLongWaitError: number | null;
    listedWaits: 'long' | 'all';
  };
  scenario: { marked: number; inferred: number };
  threads: { thread: string; measuredNs: number; replayedNs: number; error: number | null; matches: boolean }[];
  iterationsFrom: 'ProfilerStep' | 'loop' | null;
  iterations: {
    thread: string;
    label: string;
    firstCall: number;
    lastCall: number;
    measuredNs: number;
    replayedNs: number;
    error: number | null;
    matches: boolean;
    why?: string;
  }[];
  waits: WaitJson[];
}

export interface WaitJson {
  call: number;
  name: string;
  thread: string;
  beginNs: number;
  where?: string;
  measured: { blockedNs: number; releasedBy: OpRef };
  replayed: { blockedNs: number; releasedBy: OpRef };
  error: number | null;
  sameReleaser: boolean;
  /** The trace leaves the releaser among several ops, and the replay's is one of them. */
  amongCandidates?: true;
  matches: boolean;
  inferred?: 'deduced' | 'timing';
  leftOut?: string;
  readAs?: 'copy';
  why?: string;
}

/** Whether a replayed wait is within the bounds: blocked time within WAIT_TOLERANCE and the same releasing op. */
export const waitMatches = (w: WaitReplay): boolean => Math.abs(w.error) <= WAIT_TOLERANCE && w.sameReleaser;

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

function opRef(t: Trace, op: number, how?: ReleaseHow): OpRef {
  if (op === RELEASED_NONE) return 'none';
  if (op < 0 || op >= t.ops.count) return 'unknown';
  return { op, name: opName(t, op), stream: opStream(t, op), ...(how ? { how } : {}) };
}

const worst = (errors: number[]): number | null =>
  errors.length ? errors.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a)) : null;

/** The replay of `t` as JSON; `all`: every wait, not only those that blocked over LONG_WAIT_NS. */
export function replayJson(t: Trace, r: Replay, o: { file: string; profile: string; all?: boolean }): ReplayJson {
  const start = traceExtent(t).start;
  const long = r.waits.filter((w) => w.measuredNs > LONG_WAIT_NS);
  const listed = o.all ? r.waits : long;
  const itsWithin = r.iterations.filter((i) => Math.abs(i.error) <= SPAN_TOLERANCE).length;
  return {
    trace: o.file,
    profile: o.profile,
    bounds: { spanPct: SPAN_TOLERANCE * 100, waitPct: WAIT_TOLERANCE * 100, longWaitNs: LONG_WAIT_NS },
    summary: {
      threads: r.spans.length,
      threadsWithin: r.spans.filter((s) => Math.abs(s.error) <= SPAN_TOLERANCE).length,
      iterations: r.iterations.length,
      iterationsWithin: itsWithin,
      worstIterationError: finite(worst(r.iterations.map((i) => i.error)) ?? NaN),
      longWaits: long.length,
      longWaitsMatching: long.filter(waitMatches).length,
      worstLongWaitError: finite(worst(long.map((w) => w.error)) ?? NaN),
      listedWaits: o.all ? 'all' : 'long',
    },
    scenario: { marked: r.scenario.marked, inferred: r.scenario.inferred },
    threads: r.spans.map((s) => ({ ...s, error: finite(s.error), matches: Math.abs(s.error) <= SPAN_TOLERANCE })),
    iterationsFrom: r.iterationsFrom ?? null,
    iterations: r.iterations.map((i) => ({
      ...i,
      error: finite(i.error),
      matches: Math.abs(i.error) <= SPAN_TOLERANCE,
    })),
    waits: listed.map((w) => waitJson(t, w, start)),
  };
}

function waitJson(t: Trace, w: WaitReplay, start: number): WaitJson {
  const c = t.calls;
  const where = callSiteText(t, w.call);
  return {
    call: w.call,
    name: w.name,
    thread: laneName(t, c.lane[w.call]),
    beginNs: c.begin[w.call] - start,
    ...(c.site[w.call] || c.context[w.call] ? { where } : {}),
    measured: { blockedNs: w.measuredNs, releasedBy: opRef(t, w.measuredBy, releaseHow(t, w.call)) },
    replayed: { blockedNs: w.replayedNs, releasedBy: opRef(t, w.replayedBy) },
    error: finite(w.error),
    sameReleaser: w.sameReleaser,
    ...(w.amongCandidates ? { amongCandidates: true as const } : {}),
    matches: waitMatches(w),
    ...(w.inferred ? { inferred: w.inferred } : {}),
    ...(w.leftOut ? { leftOut: w.leftOut } : {}),
    ...(w.readAs ? { readAs: w.readAs } : {}),
    ...(w.why ? { why: w.why } : {}),
  };
}
