// Waits whose releaser is in doubt (S16): a wait the data does not bind and whose candidates the
// rules and the timing bound could not narrow to one (`ambiguous-release`, the candidates listed,
// none picked), and an exact or deduced answer whose host resumed far later than this trace's
// hosts typically do (`suspect-release`: a GPU op the data does not show probably released it).
import {
  ambiguousCandidates,
  isSuspectRelease,
  issueByTime,
  releaseBound,
  SUSPECT_FLOOR_NS,
  type ReleaseBound,
} from '../trace/release-infer';
import { RELEASED_UNKNOWN, type Finding, type Trace } from '../trace/model';
import { formatNs } from '../units';
import { callTarget, candidateOp, candidatesText, opLabel } from './describe';

const target = (t: Trace, call: number) => (callTarget(t, call) ? ` on ${callTarget(t, call)}` : '');

export interface ReleaseDoubts {
  /** Candidate ops by wait, for the waits left ambiguous. */
  candidates: Map<number, number[]>;
  findings: Finding[];
}

/** `waits`: the host waits, in call order (WaitFacts.ids): every synchronize among them. */
export function releaseDoubts(t: Trace, waits: Int32Array): ReleaseDoubts {
  const candidates = new Map<number, number[]>();
  const findings: Finding[] = [];
  const c = t.calls;
  // The bound is a pass over every call of its own: taken only where an answer may be suspect,
  // which takes a latency above the floor whatever the bound, or where a wait is unknown.
  let known: ReleaseBound | undefined;
  const bound = () => (known ??= releaseBound(t));
  // Each call makes at most one finding, of a kind (a severity) of its own, so the order of the two
  // kinds here is not what orders the report. A suspect answer is a synchronize's: one of the waits.
  const { releasedBy, unblockNs } = c;
  for (const i of waits) {
    if (releasedBy[i] >= 0 && unblockNs[i] > SUSPECT_FLOOR_NS && isSuspectRelease(t, i, bound())) {
      const r = c.releasedBy[i];
      findings.push({
        rule: 'S16',
        kind: 'suspect-release',
        severity: 'warning',
        message: `the host resumed ${formatNs(c.unblockNs[i])} after ${opLabel(t, r)} ended, far beyond this trace's typical ${formatNs(bound().typicalNs)}: a GPU op the data does not show probably released it`,
        fix: 'record the program with a capture that follows every launch (CUDA graphs, driver API), or treat this releasing op as unknown',
        calls: [i],
        ops: [r],
      });
    }
  }
  // The calls left unknown, found by the engine's own search: a loop of ours over every call would
  // run unoptimized for most of them. They are judged with an index of the ops by issue time that
  // only they need.
  const unknown: number[] = [];
  for (let i = releasedBy.indexOf(RELEASED_UNKNOWN); i >= 0; i = releasedBy.indexOf(RELEASED_UNKNOWN, i + 1))
    unknown.push(i);
  if (unknown.length) ambiguousReleases(t, unknown, bound().boundNs, candidates, findings);
  return { candidates, findings };
}

/** The waits left unknown whose candidates the rules and the bound could not narrow to one. */
function ambiguousReleases(
  t: Trace,
  unknown: number[],
  boundNs: number,
  candidates: Map<number, number[]>,
  findings: Finding[],
): void {
  const index = issueByTime(t);
  for (const i of unknown) {
    const ops = ambiguousCandidates(t, index, i, boundNs);
    if (!ops.length) continue;
    candidates.set(i, ops);
    findings.push({
      rule: 'S16',
      kind: 'ambiguous-release',
      severity: 'info',
      message: `the trace does not say which op released this wait${target(t, i)}, and more than one could have; ${candidatesText(ops.map((op) => candidateOp(t, op)))}`,
      fix: "record with the profiler's cuda_sync events (PyTorch 2.4 or later) so that the trace names what the wait waited for",
      calls: [i],
      ops,
    });
  }
}
