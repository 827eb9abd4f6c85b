// Waits whose releaser is in doubt (S16): a wait the data does not bind and whose candidates the
// rules and the timing bound could not narrow to one (`ambiguous-release`, the candidates listed,
// none picked), and an exact or deduced answer whose host resumed far later than this trace's
// hosts typically do (`suspect-release`: a GPU op the data does not show probably released it).
import { ambiguousCandidates, isSuspectRelease, issueByTime, releaseBound } from '../trace/release-infer';
import { RELEASED_UNKNOWN, type Finding, type Trace } from '../trace/model';
import { formatNs } from '../units';
import { callTarget, candidateOp, candidatesText, opLabel } from './describe';

const target = (t: Trace, call: number) => (callTarget(t, call) ? ` on ${callTarget(t, call)}` : '');

export interface ReleaseDoubts {
  /** Candidate ops by wait, for the waits left ambiguous. */
  candidates: Map<number, number[]>;
  findings: Finding[];
}

export function releaseDoubts(t: Trace): ReleaseDoubts {
  const candidates = new Map<number, number[]>();
  const findings: Finding[] = [];
  const c = t.calls;
  const bound = releaseBound(t);
  let unknown = false;
  const { releasedBy, count } = c;
  for (let i = 0; i < count && !unknown; i++) unknown = releasedBy[i] === RELEASED_UNKNOWN;
  const index = unknown ? issueByTime(t) : undefined;
  for (let i = 0; i < count; i++) {
    if (index && releasedBy[i] === RELEASED_UNKNOWN) {
      const ops = ambiguousCandidates(t, index, i, bound.boundNs);
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
    } else if (releasedBy[i] >= 0 && isSuspectRelease(t, i, bound)) {
      const r = c.releasedBy[i];
      findings.push({
        rule: 'S16',
        kind: 'suspect-release',
        severity: 'warning',
        message: `the host resumed ${formatNs(c.unblockNs[i])} after ${opLabel(t, r)} ended, far beyond this trace's typical ${formatNs(bound.typicalNs)}: a GPU op the data does not show probably released it`,
        fix: 'record the program with a capture that follows every launch (CUDA graphs, driver API), or treat this releasing op as unknown',
        calls: [i],
        ops: [r],
      });
    }
  }
  return { candidates, findings };
}
