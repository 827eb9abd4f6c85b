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
      continue;
    }
    if (settleRelease(b, call, d.op, d.how)) counts.skew++;
    counts[d.how]++;
  }
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
