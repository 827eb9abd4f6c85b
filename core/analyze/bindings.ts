// What each host call referred to at the moment it was made: the record an event held (S7), the
// work a synchronize covered (S12..S14), and the ordering a stream wait adds (S8). The trace
// stores calls and ops; these facts follow from replaying the calls in time order, so that
// analyses do not depend on which edges a producer chose to write.
import { CK, OK } from '../trace/kinds';
import { ANSWERS, Trace } from '../trace/model';
import { groupByKey, IntList } from './csr';

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
  /** For `elapsed` calls only (few), the same for the end event. */
  bound2: ReadonlyMap<number, number>;
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
  eventFrom: Int32Array;
  eventTo: Int32Array;
}

export function timeOrderedCalls(t: Trace): Int32Array {
  const { kind, begin, count } = t.calls;
  const context = CK.context;
  let n = 0;
  for (let i = 0; i < count; i++) if (kind[i] !== context) n++;
  const ids = new Int32Array(n);
  let sorted = true;
  let last = -Infinity;
  for (let i = 0, k = 0; i < count; i++) {
    if (kind[i] === context) continue;
    if (last > begin[i]) sorted = false;
    last = begin[i];
    ids[k++] = i;
  }
  if (!sorted) ids.sort((a, b) => begin[a] - begin[b] || a - b);
  return ids;
}

// Kinds read once: the replay compares them for every call.
const {
  deviceSync: deviceSyncKind,
  elapsed: elapsedKind,
  eventSync: eventSyncKind,
  memcpy: memcpyKind,
  memset: memsetKind,
  query: queryKind,
  record: recordKind,
  streamSync: streamSyncKind,
  streamWait: streamWaitKind,
} = CK;
const eventRecordOp = OK.eventRecord;

/** The calls replayed in time order: the state each call sees, what it binds to and what it awaits. */
export function bindEvents(t: Trace): Bindings {
  const c = t.calls;
  const C = c.count;
  const { kind, event, event2, stream, answer, blockedNs, releasedBy } = c;
  const { call: opCall, lane: opLane, kind: opKind } = t.ops;
  const { start: opsStart, ids: opsOf } = groupByKey(t.ops.call, t.ops.count, C);
  const timeOrder = timeOrderedCalls(t);
  const bound = new Int32Array(C).fill(NOT_EVENT_CALL);
  const bound2 = new Map<number, number>();
  const recordOp = new Int32Array(C).fill(-1);
  const replaced = new Int32Array(C).fill(-1);
  const consumers = new Int32Array(C);
  const eventFrom = new IntList();
  const eventTo = new IntList();
  const streams = t.lanes.filter((l) => l.kind === 'stream');
  const lastOp = new Int32Array(t.lanes.length).fill(-1);
  // Record ops that the next op issued to a stream must follow (stream waits not yet met by an op).
  const pendingWaits: number[][] = t.lanes.map(() => []);
  let events = 0;
  for (let i = 0; i < C; i++) events = Math.max(events, event[i] + 1, event2[i] + 1);
  const current = new Int32Array(events).fill(NEVER_RECORDED); // event string id -> record call
  // Host waits as (call, op) pairs in replay order, grouped by call at the end.
  const awaitCall = new IntList();
  const awaitOp = new IntList();
  const ready = ANSWERS.indexOf('ready');
  const wait = (call: number, op: number) => {
    awaitCall.push(call);
    awaitOp.push(op);
  };
  const bind = (ev: number): number => {
    const r = current[ev];
    if (r >= 0) consumers[r]++;
    return r;
  };

  // One call at a time: a small function that the engine optimizes as a whole.
  const replay = (i: number): void => {
    const ki = kind[i];
    // What call i binds to and awaits, then the ops it issued, then its record.
    if (ki === streamWaitKind || ki === eventSyncKind || ki === queryKind) {
      const r = (bound[i] = bind(event[i]));
      const op = r >= 0 ? recordOp[r] : -1;
      if (op >= 0 && ki === streamWaitKind && stream[i] >= 0) pendingWaits[stream[i]].push(op);
      if (op >= 0 && (ki === eventSyncKind || (ki === queryKind && answer[i] === ready))) wait(i, op);
    } else if (ki === elapsedKind) {
      bound[i] = bind(event[i]);
      bound2.set(i, bind(event2[i]));
    } else if (ki === streamSyncKind) {
      const s = stream[i];
      if (s >= 0 && lastOp[s] >= 0) wait(i, lastOp[s]);
    } else if (ki === deviceSyncKind) {
      // S21: the device the call names; traces that do not say (device 0) mean the thread's device.
      const device = c.device[i] || (t.lanes[c.lane[i]]?.device ?? 0);
      for (const s of streams) if (s.device === device && lastOp[s.id] >= 0) wait(i, lastOp[s.id]);
    }
    issue(i, opsStart, opsOf, opLane, pendingWaits, lastOp, eventFrom, eventTo);
    // A record call: the op marking its captured point, and the record it replaced (S7).
    if (ki === recordKind && event[i]) {
      let op = -1;
      for (let q = opsStart[i]; q < opsStart[i + 1] && op < 0; q++)
        if (opKind[opsOf[q]] === eventRecordOp) op = opsOf[q];
      if (op < 0 && stream[i] >= 0) op = lastOp[stream[i]];
      recordOp[i] = op;
      replaced[i] = current[event[i]];
      current[event[i]] = i;
    }
    // A copy or memset that blocked until its own op completed (S17, S18), as opposed to one
    // that waited for room in the launch queue (S19).
    if (
      (ki === memcpyKind || ki === memsetKind) &&
      blockedNs[i] > 0 &&
      releasedBy[i] >= 0 &&
      opCall[releasedBy[i]] === i
    ) {
      for (let q = opsStart[i]; q < opsStart[i + 1]; q++) wait(i, opsOf[q]);
    }
  };
  for (let k = 0; k < timeOrder.length; k++) replay(timeOrder[k]);
  const { start: awaitStart, ids: awaited } = groupByKey(awaitCall.view(), awaitCall.length, C, awaitOp.view());
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
    awaited,
    eventFrom: eventFrom.view(),
    eventTo: eventTo.view(),
  };
}

/** The ops call `i` issued, each following the stream waits pending on its stream (S8). */
function issue(
  i: number,
  opsStart: Int32Array,
  opsOf: Int32Array,
  opLane: ArrayLike<number>,
  pendingWaits: number[][],
  lastOp: Int32Array,
  eventFrom: IntList,
  eventTo: IntList,
): void {
  for (let q = opsStart[i]; q < opsStart[i + 1]; q++) {
    const j = opsOf[q];
    const lane = opLane[j];
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
}
