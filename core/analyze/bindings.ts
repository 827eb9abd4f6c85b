// What each host call referred to at the moment it was made: the record an event held (S7), the
// work a synchronize covered (S12..S14), and the ordering a stream wait adds (S8). The trace
// stores calls and ops; these facts follow from replaying the calls in time order, so that
// analyses do not depend on which edges a producer chose to write.
import { CK, OK } from '../trace/kinds';
import { ANSWERS, Trace } from '../trace/model';

export const NOT_EVENT_CALL = -2;
export const NEVER_RECORDED = -1;

export interface Bindings {
  /** Calls in time order (begin, then id), context calls left out. */
  timeOrder: Int32Array;
  /** Ops issued by each call: opsOf[opsStart[c] .. opsStart[c + 1]). */
  opsStart: Int32Array;
  opsOf: Int32Array;
  /** For calls naming an event: the record call it held then, NEVER_RECORDED, or NOT_EVENT_CALL. */
  bound: Int32Array;
  /** For `elapsed`, the same for its end event. */
  bound2: Int32Array;
  /** For record calls: the op that marks the captured point, or -1. */
  recordOp: Int32Array;
  /** For record calls: the record of the same event that this one replaced, or -1. */
  replaced: Int32Array;
  /** For record calls: how many later calls bound to it. */
  consumers: Int32Array;
  /** For host waits: the ops whose completion the call waited for (CSR like opsOf). */
  awaitStart: Int32Array;
  awaited: Int32Array;
  /** Orderings that follow from the semantics: record op -> first op after a stream wait (S8). */
  eventFrom: number[];
  eventTo: number[];
}

/** Ops grouped by the call that issued them. */
function groupOps(t: Trace): { start: Int32Array; ids: Int32Array } {
  const C = t.calls.count;
  const start = new Int32Array(C + 1);
  const call = t.ops.call;
  for (let j = 0; j < t.ops.count; j++) if (call[j] >= 0 && call[j] < C) start[call[j] + 1]++;
  for (let c = 0; c < C; c++) start[c + 1] += start[c];
  const fill = start.slice(0, C);
  const ids = new Int32Array(start[C]);
  for (let j = 0; j < t.ops.count; j++) if (call[j] >= 0 && call[j] < C) ids[fill[call[j]]++] = j;
  return { start, ids };
}

export function timeOrderedCalls(t: Trace): Int32Array {
  const c = t.calls;
  const context = CK.context;
  let n = 0;
  for (let i = 0; i < c.count; i++) if (c.kind[i] !== context) n++;
  const ids = new Int32Array(n);
  let sorted = true;
  for (let i = 0, k = 0; i < c.count; i++) {
    if (c.kind[i] === context) continue;
    if (k > 0 && c.begin[ids[k - 1]] > c.begin[i]) sorted = false;
    ids[k++] = i;
  }
  if (!sorted) ids.sort((a, b) => c.begin[a] - c.begin[b] || a - b);
  return ids;
}

export function bindEvents(t: Trace): Bindings {
  const c = t.calls;
  const C = c.count;
  const { start: opsStart, ids: opsOf } = groupOps(t);
  const timeOrder = timeOrderedCalls(t);
  const bound = new Int32Array(C).fill(NOT_EVENT_CALL);
  const bound2 = new Int32Array(C).fill(NOT_EVENT_CALL);
  const recordOp = new Int32Array(C).fill(-1);
  const replaced = new Int32Array(C).fill(-1);
  const consumers = new Int32Array(C);
  const awaitStart = new Int32Array(C + 1);
  const awaited: number[] = [];
  const eventFrom: number[] = [];
  const eventTo: number[] = [];

  const streams = t.lanes.filter((l) => l.kind === 'stream');
  const lastOp = new Int32Array(t.lanes.length).fill(-1);
  /** Record ops that the next op issued to a stream must follow (stream waits not yet met by an op). */
  const pendingWaits: number[][] = t.lanes.map(() => []);
  const current = new Map<number, number>(); // event string id -> record call
  const recordKind = OK.eventRecord;
  const ready = ANSWERS.indexOf('ready');

  const bind = (event: number): number => {
    const r = current.get(event) ?? NEVER_RECORDED;
    if (r >= 0) consumers[r]++;
    return r;
  };
  const awaitLists: (number[] | undefined)[] = new Array(C);

  for (let k = 0; k < timeOrder.length; k++) {
    const i = timeOrder[k];
    const kind = c.kind[i];
    const ev = c.event[i];
    let wait: number[] | undefined;
    if (kind === CK.streamWait || kind === CK.eventSync || kind === CK.query) {
      const r = (bound[i] = bind(ev));
      const op = r >= 0 ? recordOp[r] : -1;
      if (op >= 0 && kind === CK.streamWait && c.stream[i] >= 0) pendingWaits[c.stream[i]].push(op);
      if (op >= 0 && (kind === CK.eventSync || (kind === CK.query && c.answer[i] === ready))) wait = [op];
    } else if (kind === CK.elapsed) {
      bound[i] = bind(ev);
      bound2[i] = bind(c.event2[i]);
    } else if (kind === CK.streamSync) {
      const s = c.stream[i];
      wait = s >= 0 && lastOp[s] >= 0 ? [lastOp[s]] : [];
    } else if (kind === CK.deviceSync) {
      // S21: the device the call names; traces that do not say (device 0) mean the thread's device.
      const device = c.device[i] || (t.lanes[c.lane[i]]?.device ?? 0);
      wait = [];
      for (const s of streams) if (s.device === device && lastOp[s.id] >= 0) wait.push(lastOp[s.id]);
    }
    for (let q = opsStart[i]; q < opsStart[i + 1]; q++) {
      const j = opsOf[q];
      const lane = t.ops.lane[j];
      const waits = pendingWaits[lane];
      if (waits.length) {
        for (const from of waits) {
          eventFrom.push(from);
          eventTo.push(j);
        }
        waits.length = 0;
      }
      lastOp[lane] = j;
    }
    if (kind === CK.record && ev) {
      let op = -1;
      for (let q = opsStart[i]; q < opsStart[i + 1] && op < 0; q++)
        if (t.ops.kind[opsOf[q]] === recordKind) op = opsOf[q];
      if (op < 0 && c.stream[i] >= 0) op = lastOp[c.stream[i]];
      recordOp[i] = op;
      replaced[i] = current.get(ev) ?? -1;
      current.set(ev, i);
    }
    // A copy or memset that blocked until its own op completed (S17, S18), as opposed to one
    // that waited for room in the launch queue (S19).
    if (
      (kind === CK.memcpy || kind === CK.memset) &&
      c.blockedNs[i] > 0 &&
      c.releasedBy[i] >= 0 &&
      t.ops.call[c.releasedBy[i]] === i
    ) {
      wait = [];
      for (let q = opsStart[i]; q < opsStart[i + 1]; q++) wait.push(opsOf[q]);
    }
    if (wait) awaitLists[i] = wait;
  }
  for (let i = 0; i < C; i++) {
    const w = awaitLists[i];
    if (w) for (const op of w) awaited.push(op);
    awaitStart[i + 1] = awaited.length;
  }
  return {
    timeOrder,
    opsStart,
    opsOf,
    bound,
    bound2,
    recordOp,
    replaced,
    consumers,
    awaitStart,
    awaited: Int32Array.from(awaited),
    eventFrom,
    eventTo,
  };
}
