// The trace's kind vocabulary: the call and op kinds, the value each has in a `kind` column, and
// what counts as a host wait. Every reader looks kinds up here, so that no module keeps its own
// table and no two modules disagree on what a wait is. It imports nothing: the model imports it.

/** Host-side API call kinds. `context` is an enclosing framework op (aten::item, a user range). */
export const CALL_KINDS = [
  'launch',
  'record',
  'streamWait',
  'query',
  'eventSync',
  'streamSync',
  'deviceSync',
  'elapsed',
  'memcpy',
  'memset',
  'hostFunc',
  'hostWork',
  'context',
  'api',
] as const;
export type CallKind = (typeof CALL_KINDS)[number];

export const OP_KINDS = ['kernel', 'memcpy', 'memset', 'eventRecord', 'waitEvent', 'hostFunc'] as const;
export type OpKind = (typeof OP_KINDS)[number];

/** Finding kinds (docs/analysis.md lists when each is reported). */
export const FINDING_KINDS = [
  'race',
  'no-op-wait',
  'elapsed-unrecorded',
  'stale-wait',
  'legacy-serialization',
  'sync-copy-serialization',
  'host-func-stall',
  'pageable-async-copy',
  'launch-queue-stall',
  'hidden-sync',
  'loop-sync',
  'redundant-wait',
  'device-wide-wait',
  'timing-dependent-query',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

const indexOfEach = <K extends string>(kinds: readonly K[]): Readonly<Record<K, number>> =>
  Object.freeze(Object.fromEntries(kinds.map((k, i) => [k, i])) as Record<K, number>);

/** A call kind's value in `calls.kind`: `t.calls.kind[i] === CK.eventSync`. Looked up once, for loops over millions of rows. */
export const CK = indexOfEach(CALL_KINDS);
/** An op kind's value in `ops.kind`. */
export const OK = indexOfEach(OP_KINDS);

/** The synchronize calls (S12 to S14): event, stream and device synchronize, which wait for the GPU and do nothing else. */
export const SYNC_CALL_KINDS: ReadonlySet<number> = new Set([CK.eventSync, CK.streamSync, CK.deviceSync]);

/** Host waits: the synchronize calls (S12 to S14), and any call that spent time blocked on the GPU (S17 to S19). */
export function isWait(t: { calls: { kind: ArrayLike<number>; blockedNs: ArrayLike<number> } }, i: number): boolean {
  return SYNC_CALL_KINDS.has(t.calls.kind[i]) || t.calls.blockedNs[i] > 0;
}
