// What a trace does not state but its data shows, for the scenario made from it (docs/whatif.md):
// a stream whose work ran alongside the legacy default stream's is non-blocking (S3 would have
// ordered the two), and a synchronize whose target the trace does not name waits for the op the
// import bound it to by deduction or timing (core/trace/release-infer.ts). Both are marked as
// inferred where the scenario uses them.
import { CK } from '../trace/kinds';
import { GPU_WORK } from '../trace/stream-flags';
import { RELEASED_UNKNOWN, releaseHow, type ReleaseHow, type Trace } from '../trace/model';
import { ambiguousCandidates, issueByTime, releaseBound } from '../trace/release-infer';
import type { IssueIndex } from '../import/issue-order';

export { nonBlockingByOverlap } from '../trace/stream-flags';

/** The op a synchronize without a named target was bound to, and how; undefined where the import found none. */
export function inferredRelease(t: Trace, call: number): { op: number; how: Exclude<ReleaseHow, 'exact'> } | undefined {
  const op = t.calls.releasedBy[call];
  const how = releaseHow(t, call);
  return op >= 0 && how !== 'exact' ? { op, how } : undefined;
}

/** Each trace's issue index and release bound, made once: a what-if makes a scenario per fix. */
const releaseViews = new WeakMap<Trace, { index: IssueIndex; boundNs: number }>();

/**
 * The ops that could have released an event synchronize the import left unknown (none alone ended
 * within the trace's bound before the host resumed), and the one of them that ended last: a record
 * completes when the last op before it does and the host resumes after that, so the last to end
 * asks the shortest wake-up of the host. A scenario that must wait for something waits for it,
 * inferred by timing and said so. Undefined where the wait is not such a one.
 */
export function latestCandidate(t: Trace, call: number): { op: number; candidates: number[] } | undefined {
  if (t.calls.kind[call] !== CK.eventSync || t.calls.releasedBy[call] !== RELEASED_UNKNOWN) return undefined;
  let view = releaseViews.get(t);
  if (!view) releaseViews.set(t, (view = { index: issueByTime(t), boundNs: releaseBound(t).boundNs }));
  const candidates = ambiguousCandidates(t, view.index, call, view.boundNs);
  const ended = candidates.filter((j) => t.ops.end[j] <= t.calls.end[call]);
  if (!ended.length) return undefined;
  const op = ended.reduce((a, b) => (t.ops.end[b] > t.ops.end[a] ? b : a));
  return { op, candidates };
}

/**
 * Stream waits whose event the trace does not say who recorded (a torch.profiler trace's records
 * name no event and no stream), paired with the record call made just before them on their thread,
 * nothing but calls that issue no event between: Stream.wait_stream records on the other stream and
 * waits at once, and a record names no stream only because the trace leaves it out. The record was
 * made on the stream the thread had issued its work to (a framework's current stream): the stream of
 * the thread's last op before the record. It captured that stream's work issued before it: the op
 * returned for each wait, by the wait's call id. A record on the waiting stream itself orders
 * nothing, and gives none. Deduced from call order, and marked so where used.
 */
export function recordedBeforeWaits(t: Trace, calls: readonly number[]): Map<number, number> {
  const c = t.calls;
  const o = t.ops;
  const opsOf = new Map<number, number[]>();
  for (let j = 0; j < o.count; j++)
    if (o.call[j] >= 0) (opsOf.get(o.call[j]) ?? opsOf.set(o.call[j], []).get(o.call[j])!).push(j);
  // Per stream, the last op issued so far; per thread, its last op and its pending record's capture.
  const lastOnLane = new Map<number, number>();
  const lastOfThread = new Map<number, number>();
  const pending = new Map<number, number>();
  const out = new Map<number, number>();
  for (const i of calls) {
    const thread = c.lane[i];
    if (c.kind[i] === CK.record) {
      const last = lastOfThread.get(thread);
      const captured = c.stream[i] < 0 && last !== undefined ? lastOnLane.get(o.lane[last]) : undefined;
      if (captured === undefined) pending.delete(thread);
      else pending.set(thread, captured);
    } else if (c.kind[i] === CK.streamWait) {
      const op = pending.get(thread);
      pending.delete(thread);
      if (op !== undefined && c.stream[i] >= 0 && o.lane[op] !== c.stream[i]) out.set(i, op);
    } else if (c.kind[i] === CK.eventSync || c.kind[i] === CK.query) pending.delete(thread);
    for (const j of opsOf.get(i) ?? []) {
      if (!GPU_WORK.has(o.kind[j])) continue;
      lastOnLane.set(o.lane[j], j);
      lastOfThread.set(thread, j);
    }
  }
  return out;
}
