// What each host call referred to at the moment it was made: the record an event held (S7), the
// work a synchronize covered (S12..S14), and the ordering a stream wait adds (S8). The trace
// stores calls and ops; these facts follow from replaying the calls in time order, so that
// analyses do not depend on which edges a producer chose to write.
import { CK, isWait, OK } from '../trace/kinds';
import { ANSWERS, COPY_KINDS, Trace } from '../trace/model';
import { groupByKey, int32Tables, IntList, sparseRows, type SparseRows } from './csr';
import { viaKernel } from './graph-kernel';

export const NOT_EVENT_CALL = -2;
export const NEVER_RECORDED = -1;

export interface Bindings {
  /** Calls in time order (begin, then id), context calls left out. */
  timeOrder: Int32Array;
  /** Ops issued by each call: opsOf[opsStart[c] .. opsStart[c + 1]). */
  opsStart: Int32Array;
  opsOf: Int32Array;
  /** Per call, what boundRecord reads, plus BOUND_BIAS. */
  biasedBound: Int32Array;
  /** For `elapsed` calls only (few), the same for the end event (not biased). */
  bound2: ReadonlyMap<number, number>;
  /** Per record call, what recordOpOf reads, plus ID_BIAS. */
  biasedRecordOp: Int32Array;
  /** Per record call, what replacedRecord reads, plus ID_BIAS. */
  biasedReplaced: Int32Array;
  /** For record calls: how many later calls bound to it. */
  consumers: Int32Array;
  /** The host waits (isWait), context calls left out, in call order. */
  waits: Int32Array;
  /**
   * Pairs (stream synchronize, the device-to-host copy its lane made last before it, or -1), in
   * time order: the copy whose result a synchronize may have waited for (S17).
   */
  syncCopies: Int32Array;
  /** For host waits: the ops whose completion the call waited for, in a row per waiting call. */
  awaits: SparseRows;
  /** Orderings that follow from the semantics: record op -> first op after a stream wait (S8). */
  eventFrom: Int32Array;
  eventTo: Int32Array;
}

// The per-call facts are stored biased, so that their usual value is 0: a new array is zeros, and
// the calls that name no event (most of an imported trace) then cost no write. A fill of every
// call's entry would touch every page of the array, which costs more than the replay itself.
const BOUND_BIAS = -NOT_EVENT_CALL;
const ID_BIAS = 1;

/** Whether a call names an event (a stream wait, an event synchronize, a query or an elapsed): it has a boundRecord. */
export const namesEvent = (b: Bindings, call: number): boolean => b.biasedBound[call] !== 0;

/** For a call naming an event: the record call it held then, or NEVER_RECORDED; NOT_EVENT_CALL for any other call. */
export const boundRecord = (b: Bindings, call: number): number => b.biasedBound[call] - BOUND_BIAS;
/** For a record call: the op that marks the captured point, or -1. */
export const recordOpOf = (b: Bindings, record: number): number => b.biasedRecordOp[record] - ID_BIAS;
/** For a record call: the record of the same event that this one replaced, or -1. */
export const replacedRecord = (b: Bindings, record: number): number => b.biasedReplaced[record] - ID_BIAS;

export function timeOrderedCalls(t: Trace): Int32Array {
  const { kind, begin, count } = t.calls;
  const context = CK.context;
  // Room for every call, in one pass: the pages past the last id taken are never touched.
  const ids = new Int32Array(count);
  let n = 0;
  let sorted = true;
  let last = -Infinity;
  for (let i = 0; i < count; i++) {
    if (kind[i] === context) continue;
    if (last > begin[i]) sorted = false;
    last = begin[i];
    ids[n++] = i;
  }
  const order = ids.subarray(0, n);
  if (!sorted) order.sort((a, b) => begin[a] - begin[b] || a - b);
  return order;
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
const dtoh = COPY_KINDS.indexOf('DtoH');

/**
 * The calls replayed in time order: the state each call sees, what it binds to and what it awaits.
 * `timeOrder`: the calls in time order (timeOrderedCalls), where the caller has them already.
 */
export function bindEvents(t: Trace, timeOrder = timeOrderedCalls(t)): Bindings {
  return nativeBindings(t, timeOrder) ?? bindHere(t, timeOrder);
}

/** bindEvents by the native half (graph-kernel.ts), where there is one and it takes the trace. */
function nativeBindings(t: Trace, timeOrder: Int32Array): Bindings | undefined {
  return viaKernel((k) => {
    const streams = t.lanes.filter((l) => l.kind === 'stream');
    const made = k.hbBind({
      calls: t.calls.count,
      ops: t.ops.count,
      lanes: t.lanes.length,
      strings: t.strings.length,
      kind: t.calls.kind,
      answer: t.calls.answer,
      device: t.calls.device,
      event: t.calls.event,
      event2: t.calls.event2,
      stream: t.calls.stream,
      releasedBy: t.calls.releasedBy,
      lane: t.calls.lane,
      blockedNs: t.calls.blockedNs,
      opCall: t.ops.call,
      opLane: t.ops.lane,
      opKind: t.ops.kind,
      copyKind: t.ops.copy,
      laneDevice: Int32Array.from(t.lanes, (l) => l?.device ?? -1),
      streamLane: Int32Array.from(streams, (s) => s.id),
      streamDevice: Int32Array.from(streams, (s) => s.device ?? -1),
      timeOrder,
      kinds: {
        streamWait: streamWaitKind,
        eventSync: eventSyncKind,
        query: queryKind,
        elapsed: elapsedKind,
        streamSync: streamSyncKind,
        deviceSync: deviceSyncKind,
        record: recordKind,
        memcpy: memcpyKind,
        memset: memsetKind,
        eventRecordOp,
        dtoh,
        ready: ANSWERS.indexOf('ready'),
      },
    });
    const bound2 = new Map<number, number>();
    for (let q = 0; q < made.bound2.length; q += 2) bound2.set(made.bound2[q], made.bound2[q + 1]);
    return { ...made, timeOrder, bound2 };
  });
}

/** bindEvents in TypeScript: the reference, and where there is no native half. */
function bindHere(t: Trace, timeOrder: Int32Array): Bindings {
  const c = t.calls;
  const C = c.count;
  const { kind, event, event2, stream, answer } = c;
  const { call: opCall, lane: opLane, kind: opKind, copy: copyKind } = t.ops;
  const { start: opsStart, ids: opsOf } = groupByKey(t.ops.call, t.ops.count, C);
  const [bound, recordOp, replaced, consumers] = int32Tables(C, C, C, C);
  const bound2 = new Map<number, number>();
  const eventFrom = new IntList();
  const eventTo = new IntList();
  const streams = t.lanes.filter((l) => l.kind === 'stream');
  const lastOp = new Int32Array(t.lanes.length).fill(-1);
  // Record ops that the next op issued to a stream must follow (stream waits not yet met by an op).
  const pendingWaits: number[][] = t.lanes.map(() => []);
  // Event string id -> the record call that holds it, biased like recordOp (0: never recorded).
  // Event ids are string ids: the table grows only for a trace that names one beyond its strings.
  let current: Int32Array = new Int32Array(t.strings.length);
  const waits = new IntList();
  // Per lane, its last device-to-host copy call; lanes the trace does not list share the last slot.
  const lastCopy = new Int32Array(t.lanes.length + 1).fill(-1);
  const copySlot = (i: number) => Math.min(c.lane[i], t.lanes.length);
  const syncCopies = new IntList();
  // Host waits as (call, op) pairs in replay order, grouped by call at the end.
  const awaitCall = new IntList();
  const awaitOp = new IntList();
  const ready = ANSWERS.indexOf('ready');
  const wait = (call: number, op: number) => {
    awaitCall.push(call);
    awaitOp.push(op);
  };
  const bind = (ev: number): number => {
    const r = (ev >= 0 && ev < current.length ? current[ev] : 0) - ID_BIAS;
    if (r >= 0) consumers[r]++;
    return r;
  };
  const record = (ev: number, call: number): void => {
    if (ev >= current.length) current = grown(current, ev + 1);
    replaced[call] = current[ev];
    current[ev] = call + ID_BIAS;
  };

  // One call at a time: a small function that the engine optimizes as a whole.
  const replay = (i: number): void => {
    const ki = kind[i];
    if (isWait(t, i)) waits.push(i);
    // What call i binds to and awaits, then the ops it issued, then its record.
    if (ki === streamWaitKind || ki === eventSyncKind || ki === queryKind) {
      const r = bind(event[i]);
      bound[i] = r + BOUND_BIAS;
      const op = r >= 0 ? recordOp[r] - ID_BIAS : -1;
      if (op >= 0 && ki === streamWaitKind && stream[i] >= 0) pendingWaits[stream[i]].push(op);
      if (op >= 0 && (ki === eventSyncKind || (ki === queryKind && answer[i] === ready))) wait(i, op);
    } else if (ki === elapsedKind) {
      bound[i] = bind(event[i]) + BOUND_BIAS;
      bound2.set(i, bind(event2[i]));
    } else if (ki === streamSyncKind) {
      const s = stream[i];
      if (s >= 0 && lastOp[s] >= 0) wait(i, lastOp[s]);
      syncCopies.push(i);
      syncCopies.push(lastCopy[copySlot(i)]);
    } else if (ki === deviceSyncKind) {
      // S21: the device the call names; traces that do not say (device 0) mean the thread's device.
      const device = c.device[i] || (t.lanes[c.lane[i]]?.device ?? 0);
      for (const s of streams) if (s.device === device && lastOp[s.id] >= 0) wait(i, lastOp[s.id]);
    }
    issue(i, opsStart, opsOf, opLane, pendingWaits, lastOp, eventFrom, eventTo);
    // A record call: the op marking its captured point, and the record it replaced (S7).
    if (ki === recordKind && event[i]) {
      recordOp[i] = capturedOp(i, opsStart, opsOf, opKind, stream[i] >= 0 ? lastOp[stream[i]] : -1) + ID_BIAS;
      record(event[i], i);
    }
    if (ki === memcpyKind && opsStart[i + 1] > opsStart[i] && copyKind[opsOf[opsStart[i]]] === dtoh)
      lastCopy[copySlot(i)] = i;
    if (blockedOnOwnOps(c, opCall, i)) for (let q = opsStart[i]; q < opsStart[i + 1]; q++) wait(i, opsOf[q]);
  };
  replayAll(timeOrder, replay);
  const awaits = sparseRows(awaitCall.view(), awaitOp.view(), awaitCall.length, C);
  return {
    timeOrder,
    opsStart,
    opsOf,
    biasedBound: bound,
    bound2,
    biasedRecordOp: recordOp,
    biasedReplaced: replaced,
    consumers,
    waits: ascending(waits.view()),
    syncCopies: syncCopies.view(),
    awaits,
    eventFrom: eventFrom.view(),
    eventTo: eventTo.view(),
  };
}

/** The op marking a record call's captured point: its event-record op, else its stream's last op. */
function capturedOp(
  i: number,
  opsStart: Int32Array,
  opsOf: Int32Array,
  opKind: Uint8Array,
  streamLast: number,
): number {
  for (let q = opsStart[i]; q < opsStart[i + 1]; q++) if (opKind[opsOf[q]] === eventRecordOp) return opsOf[q];
  return streamLast;
}

/**
 * A copy or memset that blocked until its own op completed (S17, S18), as opposed to one that
 * waited for room in the launch queue (S19).
 */
function blockedOnOwnOps(c: Trace['calls'], opCall: Int32Array, i: number): boolean {
  const k = c.kind[i];
  return (
    (k === memcpyKind || k === memsetKind) &&
    c.blockedNs[i] > 0 &&
    c.releasedBy[i] >= 0 &&
    opCall[c.releasedBy[i]] === i
  );
}

/**
 * Each call replayed in turn: the loop in a function of its own, small, which the engine optimizes
 * (with `replay` in it) after a few thousand calls; inside bindEvents, a large function, it would
 * run unoptimized for far longer.
 */
function replayAll(order: Int32Array, replay: (i: number) => void): void {
  for (let k = 0; k < order.length; k++) replay(order[k]);
}

/** `ids` sorted, in place where they are not in order already (calls replayed in time order). */
function ascending(ids: Int32Array): Int32Array {
  for (let k = 1; k < ids.length; k++) if (ids[k - 1] > ids[k]) return ids.sort();
  return ids;
}

/** `a` copied into a zeroed array of `n` entries. */
function grown(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(Math.max(n, 2 * a.length));
  b.set(a);
  return b;
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
