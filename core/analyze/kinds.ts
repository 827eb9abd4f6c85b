// Kind indices looked up once: the analyses test kinds in loops over millions of rows.
import { CALL_KINDS, CallKind, OP_KINDS, OpKind, Trace } from '../trace/model';

export const CK = Object.fromEntries(CALL_KINDS.map((k, i) => [k, i])) as Record<CallKind, number>;
export const OK = Object.fromEntries(OP_KINDS.map((k, i) => [k, i])) as Record<OpKind, number>;

/** The same as the model's isWait: synchronize calls, and any call that spent time blocked. */
export function isHostWait(t: Trace, i: number): boolean {
  const k = t.calls.kind[i];
  return k === CK.eventSync || k === CK.streamSync || k === CK.deviceSync || t.calls.blockedNs[i] > 0;
}
