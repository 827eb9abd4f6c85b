// Attribution where Kineto does not name a wait's target: sound deduction first, then timing
// inference, and never a silent pick (docs/import.md, "Attribution where the trace does not name
// the target"). Runs after resolveWaits, on the waits it left unknown.
import { CK, RELEASED_UNKNOWN, TraceBuilder } from '../trace/model';
import { decide, issueByTime, releaseBound, releaseCandidates, type ReleaseView } from '../trace/release-infer';
import { settleRelease, type WaitCounts } from './pytorch-waits';

/** ATen ops that copy to the host on the current stream and then synchronize that stream. */
const COPY_THEN_SYNC = ['aten::_local_scalar_dense', 'aten::copy_'];
/** How many calls back on the thread the copy before such a sync is looked for. */
const COPY_LOOKBACK = 32;

export const builderView = (b: TraceBuilder): ReleaseView => ({
  lanes: b.lanes,
  calls: { ...b.calls.cols, count: b.calls.count },
  ops: { ...b.ops.cols, count: b.ops.count },
});

/** `device`: the trace's only device, or -1 (then nothing is inferred: a thread's device is not in the data). */
export function inferReleases(b: TraceBuilder, device: number, counts: WaitCounts): void {
  // resolveWaits counted the waits it left unknown: with none, there is nothing to infer.
  if (device < 0 || !counts.unknown) return;
  const c = b.calls.cols;
  const view = builderView(b);
  const index = issueByTime(view);
  const bound = releaseBound(view);
  const ambiguous: number[] = [];
  for (let call = 0; call < b.calls.count; call++) {
    if (c.releasedBy[call] !== RELEASED_UNKNOWN) continue;
    const k = c.kind[call];
    if (k !== CK.streamSync && k !== CK.eventSync && k !== CK.deviceSync) continue;
    counts.unknown--;
    const copyStream = k === CK.streamSync ? streamOfCopyBefore(b, call) : -1;
    if (copyStream >= 0) {
      c.stream[call] = copyStream;
      if (settleRelease(b, call, index.lastOnStream(copyStream, c.begin[call]), 'deduced')) counts.skew++;
      counts.deduced++;
      continue;
    }
    const d = decide(view, call, releaseCandidates(view, index, call, device), bound.boundNs);
    if (d.how === 'ambiguous') {
      counts.unknown++;
      counts.ambiguous++;
      ambiguous.push(call);
      continue;
    }
    if (settleRelease(b, call, d.op, d.how)) counts.skew++;
    counts[d.how]++;
  }
  if (!ambiguous.length) return;
  // An event sync names its event where cuda_sync events are on; a recurring event is recorded on
  // one stream (EMA's, a copy stream's) step after step. Where the event's other syncs were settled
  // on one stream, that stream's candidate alone is this one's, by the same timing.
  const streams = eventStreams(b);
  for (const call of ambiguous) {
    const stream = streams.get(c.event[call]);
    if (c.kind[call] !== CK.eventSync || stream === undefined || stream < 0) continue;
    const cand = releaseCandidates(view, index, call, device);
    const d = decide(
      view,
      call,
      { ops: cand.ops.filter((op) => b.ops.cols.lane[op] === stream), nonePossible: true },
      bound.boundNs,
    );
    if (d.how !== 'timing') continue;
    if (settleRelease(b, call, d.op, 'timing')) counts.skew++;
    counts.unknown--;
    counts.ambiguous--;
    counts.timing++;
  }
}

/** Per event named by event syncs: the stream of the ops that released its settled syncs; -1 where they differ. */
function eventStreams(b: TraceBuilder): Map<number, number> {
  const c = b.calls.cols;
  const out = new Map<number, number>();
  for (let call = 0; call < b.calls.count; call++) {
    if (c.kind[call] !== CK.eventSync || !c.event[call] || c.releasedBy[call] < 0) continue;
    const lane = b.ops.cols.lane[c.releasedBy[call]];
    const seen = out.get(c.event[call]);
    out.set(c.event[call], seen === undefined || seen === lane ? lane : -1);
  }
  return out;
}

/**
 * A stream sync made inside `aten::_local_scalar_dense` (`.item()`) or `aten::copy_` (`.cpu()`,
 * `.to()`) synchronizes the stream its copy was just issued to: the copy call before it on the
 * same thread, in the same ATen op.
 */
function streamOfCopyBefore(b: TraceBuilder, call: number): number {
  const c = b.calls.cols;
  const context = b.strings.get(c.context[call]);
  const at = context.lastIndexOf(' > ');
  const inner = at < 0 ? context : context.slice(at + 3);
  if (!COPY_THEN_SYNC.includes(inner)) return -1;
  for (let j = call - 1, seen = 0; j >= 0 && seen < COPY_LOOKBACK; j--) {
    if (c.lane[j] !== c.lane[call] || c.kind[j] === CK.context) continue;
    seen++;
    if (c.context[j] !== c.context[call] || c.end[j] > c.begin[call]) return -1;
    if (c.kind[j] === CK.streamSync || c.kind[j] === CK.deviceSync || c.kind[j] === CK.eventSync) return -1;
    if (c.kind[j] === CK.memcpy) return c.stream[j];
  }
  return -1;
}
