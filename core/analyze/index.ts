// The stream-ordering debugger: every host wait explained, happens-before, hazards on declared
// buffers, ordering smells and metrics, from one Trace (SEMANTICS.md, "What debugging stream
// ordering checks").
import { linkBackwardReads } from './backward-reads';
import type { MemoryBudget } from '../memory';
import type { Program } from '../scenario/program';
import type { Finding, Trace } from '../trace/model';
import { accessIndex, type AccessIndex } from './accesses';
import { candidateOp, holdsEveryCall } from './describe';
import { eventSmells } from './event-smells';
import { happensBefore } from './hb';
import { findHazards } from './hazards';
import { copyRaces } from './copy-races';
import { legacyByTiming } from './legacy-timing';
import { hostSyncSmells } from './host-syncs';
import { loopSyncs } from './loop-syncs';
import { busyTimes, computeMetrics } from './metrics';
import { hostFuncStalls, serializationSmells } from './serialization';
import type { Analysis, Hazard, Metrics, WaitExplanation } from './types';
import { waitSmells } from './wait-smells';
import { releaseDoubts } from './release-doubts';
import { waitExplainer, waitFacts, type WaitFacts } from './waits';

export { happensBefore } from './hb';
export type { HappensBefore, NodeRef, NodeSet } from './hb';
export type { Analysis, Hazard, HazardAccess, Metrics, WaitExplanation, ReleasingOp } from './types';

const SEVERITY = { error: 0, warning: 1, info: 2 };

/** `memory`: what the analysis may allocate; its largest tables are checked against it before they are made. */
export function analyze(trace: Trace, opts: { program?: Program; memory?: MemoryBudget } = {}): Analysis {
  const program = opts.program;
  const access = accessIndex(trace);
  // Imported traces start mid-run and may miss records and launches: judge event use and
  // redundancy only where the trace holds every call of the program.
  const complete = holdsEveryCall(trace);
  const graphed = withGraph(trace, access, complete, program, opts.memory);
  const doubts = releaseDoubts(trace, graphed.facts.ids);
  // The happens-before graph is gone by now: the waits, one object each, never share the memory with it.
  const explained = waitExplainer(trace, graphed.facts, program);
  const explain = (k: number) => {
    const w = explained(k);
    const ops = doubts.candidates.get(w.id);
    if (ops) w.candidates = ops.map((op) => candidateOp(trace, op));
    return w;
  };
  const findings: Finding[] = [...graphed.findings, ...doubts.findings];
  findings.sort(
    (a, b) =>
      SEVERITY[a.severity] - SEVERITY[b.severity] ||
      (a.source?.line ?? Infinity) - (b.source?.line ?? Infinity) ||
      (a.calls[0] ?? 0) - (b.calls[0] ?? 0),
  );
  linkBackwardReads(trace, findings);
  let waits: WaitExplanation[] | undefined;
  const analysis: Analysis = {
    // Made on first read: `check`, `html` and `export` read only the findings, and a summary only a few waits.
    get waits() {
      return (waits ??= allWaits(graphed.facts.ids.length, explain));
    },
    findings,
    metrics: graphed.metrics,
    hazards: graphed.hazards,
  };
  waitIndexes.set(analysis, { calls: graphed.facts.ids, explain });
  return analysis;
}

function allWaits(n: number, explain: (k: number) => WaitExplanation): WaitExplanation[] {
  const waits: WaitExplanation[] = [];
  for (let k = 0; k < n; k++) waits.push(explain(k));
  return waits;
}

/** An analysis's waits before they are explained: each one's call, and its explanation made on demand. */
export interface WaitIndex {
  /** The waits' call ids, in the order of `waits`. */
  calls: Int32Array;
  /** The k-th wait explained, a new object each time: equal to `waits[k]`. */
  explain(k: number): WaitExplanation;
}

const waitIndexes = new WeakMap<Analysis, WaitIndex>();

/** The waits of an analysis made by `analyze`, without making them all. */
export const waitIndex = (a: Analysis): WaitIndex | undefined => waitIndexes.get(a);

/** Everything that reads the happens-before graph; the graph lives only while this runs. */
function withGraph(
  trace: Trace,
  access: AccessIndex,
  complete: boolean,
  program: Program | undefined,
  memory: MemoryBudget | undefined,
): { facts: WaitFacts; findings: Finding[]; hazards: Hazard[]; metrics: Metrics } {
  const hb = happensBefore(trace, undefined, memory);
  const facts = waitFacts(trace, hb, access);
  const declared = findHazards(trace, hb, access, memory);
  // A trace that declares no buffers (an imported one) shows its races by inference alone.
  const { hazards, findings: races } = trace.accesses.count || complete ? declared : copyRaces(trace, hb);
  const busy = busyTimes(trace);
  const hostSyncs = hostSyncSmells(trace, hb.graph.bindings, access, program);
  const findings: Finding[] = [
    ...races,
    ...(complete ? eventSmells(trace, hb, access, program) : []),
    ...serializationSmells(trace, hb, program),
    ...(complete ? [] : legacyByTiming(trace, hb)),
    ...hostFuncStalls(trace, hb),
    ...hostSyncs.findings,
    ...loopSyncs(trace, hb.graph.bindings, busy, hostSyncs.ownedSyncs),
    ...waitSmells(trace, hb, facts, waitExplainer(trace, facts, program), complete),
  ];
  return { facts, findings, hazards, metrics: computeMetrics(trace, hb, busy) };
}
