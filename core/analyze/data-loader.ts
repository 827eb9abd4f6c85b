// A DataLoader on a host thread, from the range torch's DataLoader iterator records around each
// batch it hands out (`enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__`), in any
// torch.profiler trace that records CPU activity. A pageable copy on that thread is most likely of
// the loader's batch, and the loader's own fix differs from pinning one tensor by hand.
import { CK } from '../trace/kinds';
import { str, type Trace } from '../trace/model';

/** How the loader on a thread makes its batches: in worker processes, or on the thread itself. */
export type LoaderKind = 'workers' | 'inline';

const LOADER_RANGE = /^enumerate\(DataLoader\)#_(MultiProcessing|SingleProcess)DataLoaderIter\.__next__$/;

/** The ranges, in begin order, in which a DataLoader handed out batches of worker processes. */
export interface BatchRanges {
  begin: Float64Array;
  end: Float64Array;
}

/** Per thread lane, its loader's kind and the ranges of the batches worker processes made for it. */
const byTrace = new WeakMap<Trace, Map<number, { kind: LoaderKind; batches: BatchRanges }>>();

function loaders(t: Trace): Map<number, { kind: LoaderKind; batches: BatchRanges }> {
  const known = byTrace.get(t);
  if (known) return known;
  const found = new Map<number, { kind: LoaderKind; rows: number[] }>();
  for (let i = 0; i < t.calls.count; i++) {
    if (t.calls.kind[i] !== CK.context) continue;
    const m = LOADER_RANGE.exec(str(t, t.calls.name[i]));
    if (!m) continue;
    const lane = t.calls.lane[i];
    const kind = m[1] === 'MultiProcessing' ? 'workers' : 'inline';
    const l = found.get(lane) ?? found.set(lane, { kind, rows: [] }).get(lane)!;
    // A thread that iterates both kinds takes batches from worker processes too.
    if (kind === 'workers') {
      l.kind = kind;
      l.rows.push(i);
    }
  }
  const lanes = new Map(
    [...found].map(([lane, l]) => {
      const rows = l.rows.sort((a, b) => t.calls.begin[a] - t.calls.begin[b]);
      const batches = {
        begin: Float64Array.from(rows, (i) => t.calls.begin[i]),
        end: Float64Array.from(rows, (i) => t.calls.end[i]),
      };
      return [lane, { kind: l.kind, batches }];
    }),
  );
  byTrace.set(t, lanes);
  return lanes;
}

/**
 * The DataLoader whose batches the host thread `lane` takes: where the trace shows one (its ranges),
 * or, on the script's first thread, where the plain steps timed that thread receiving batches from
 * worker processes (TraceMeta.plainStep.batchReceiveNs: a capture shows no loader).
 */
export const loaderOnLane = (t: Trace, lane: number): LoaderKind | undefined =>
  loaders(t).get(lane)?.kind ??
  (t.meta.plainStep?.batchReceiveNs !== undefined && t.lanes[lane]?.name === 'main' ? 'workers' : undefined);

/** The ranges in which a DataLoader handed out batches of worker processes on host thread `lane`; empty where it shows none. */
export const workerBatches = (t: Trace, lane: number): BatchRanges =>
  loaders(t).get(lane)?.batches ?? { begin: new Float64Array(), end: new Float64Array() };

/**
 * The fix for a pageable copy to the GPU on a thread that takes a DataLoader's batches: an inference,
 * said so. `receiveTimed`: the plain steps timed the thread receiving the batches (TraceMeta.plainStep.batchReceiveNs).
 */
export function loaderPinFix(kind: LoaderKind, blocking: boolean, receiveTimed: boolean): string {
  const copy = blocking
    ? ', and copy with non_blocking=True (a blocking copy synchronizes after it, pinned or not)'
    : '';
  const counted = receiveTimed
    ? 'which the predicted saving counts as the plain steps timed it'
    : 'which the predicted saving counts only where the plain steps timed it (syncscope profile or capture with --plain-steps)';
  const workers =
    kind === 'workers'
      ? `; that thread also takes over receiving the batches from the worker processes, which this thread does now, ${counted}`
      : '';
  return (
    `DataLoader(pin_memory=True): the loader pins each batch in a thread of its own${workers}${copy} ` +
    "(inferred: this thread takes a DataLoader's batches, and the trace does not say the copied tensor is one)"
  );
}
