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
  const replay = new Replay(t);
  const order = replay.timeOrder;
  for (let k = 0; k < order.length; k++) replay.call(order[k]);
  return replay.result();
}

/** The calls replayed in time order: the state each call sees, and what it binds to. */
class Replay {
  readonly timeOrder: Int32Array;
  private readonly c: Trace['calls'];
  private readonly opsStart: Int32Array;
  private readonly opsOf: Int32Array;
  private readonly bound: Int32Array;
  private readonly bound2 = new Map<number, number>();
  private readonly recordOp: Int32Array;
  private readonly replaced: Int32Array;
  private readonly consumers: Int32Array;
  private readonly eventFrom: number[] = [];
  private readonly eventTo: number[] = [];
  private readonly streams: Trace['lanes'];
  private readonly lastOp: Int32Array;
  private readonly opLane: Trace['ops']['lane'];
  /** Record ops that the next op issued to a stream must follow (stream waits not yet met by an op). */
  private readonly pendingWaits: number[][];
  private readonly current = new Map<number, number>(); // event string id -> record call
  /** Host waits as (call, op) pairs in replay order, grouped by call at the end. */
  private readonly awaitCall: number[] = [];
  private readonly awaitOp: number[] = [];
  private readonly ready = ANSWERS.indexOf('ready');

  constructor(private readonly t: Trace) {
    const C = t.calls.count;
    this.c = t.calls;
    const { start, ids } = groupOps(t);
    this.opsStart = start;
    this.opsOf = ids;
    this.timeOrder = timeOrderedCalls(t);
    this.bound = new Int32Array(C).fill(NOT_EVENT_CALL);
    this.recordOp = new Int32Array(C).fill(-1);
    this.replaced = new Int32Array(C).fill(-1);
    this.consumers = new Int32Array(C);
    this.streams = t.lanes.filter((l) => l.kind === 'stream');
    this.lastOp = new Int32Array(t.lanes.length).fill(-1);
    this.opLane = t.ops.lane;
    this.pendingWaits = t.lanes.map(() => []);
  }

  private bind(event: number): number {
    const r = this.current.get(event) ?? NEVER_RECORDED;
    if (r >= 0) this.consumers[r]++;
    return r;
  }

  /** Replays call `i`: what it binds to and awaits, then the ops it issued, then its record. */
  call(i: number): void {
    const kind = this.c.kind[i];
    this.awaits(i, kind);
    this.issue(i);
    if (kind === CK.record && this.c.event[i]) this.record(i);
    // A copy or memset that blocked until its own op completed (S17, S18), as opposed to one
    // that waited for room in the launch queue (S19).
    const c = this.c;
    if (
      (kind === CK.memcpy || kind === CK.memset) &&
      c.blockedNs[i] > 0 &&
      c.releasedBy[i] >= 0 &&
      this.t.ops.call[c.releasedBy[i]] === i
    ) {
      for (let q = this.opsStart[i]; q < this.opsStart[i + 1]; q++) this.await(i, this.opsOf[q]);
    }
  }

  private await(call: number, op: number): void {
    this.awaitCall.push(call);
    this.awaitOp.push(op);
  }

  /** The event binding of call `i`, and the ops it waits for when it is a host wait. */
  private awaits(i: number, kind: number): void {
    const { c, bound, lastOp } = this;
    if (kind === CK.streamWait || kind === CK.eventSync || kind === CK.query) {
      const r = (bound[i] = this.bind(c.event[i]));
      const op = r >= 0 ? this.recordOp[r] : -1;
      if (op >= 0 && kind === CK.streamWait && c.stream[i] >= 0) this.pendingWaits[c.stream[i]].push(op);
      if (op >= 0 && (kind === CK.eventSync || (kind === CK.query && c.answer[i] === this.ready))) this.await(i, op);
    } else if (kind === CK.elapsed) {
      bound[i] = this.bind(c.event[i]);
      this.bound2.set(i, this.bind(c.event2[i]));
    } else if (kind === CK.streamSync) {
      const s = c.stream[i];
      if (s >= 0 && lastOp[s] >= 0) this.await(i, lastOp[s]);
    } else if (kind === CK.deviceSync) {
      // S21: the device the call names; traces that do not say (device 0) mean the thread's device.
      const device = c.device[i] || (this.t.lanes[c.lane[i]]?.device ?? 0);
      for (const s of this.streams) if (s.device === device && lastOp[s.id] >= 0) this.await(i, lastOp[s.id]);
    }
  }

  /** The ops call `i` issued: each follows the stream waits pending on its stream (S8). */
  private issue(i: number): void {
    const { opsStart, opsOf, opLane } = this;
    for (let q = opsStart[i]; q < opsStart[i + 1]; q++) {
      const j = opsOf[q];
      const lane = opLane[j];
      const waits = this.pendingWaits[lane];
      if (waits.length) {
        for (const from of waits) {
          this.eventFrom.push(from);
          this.eventTo.push(j);
        }
        waits.length = 0;
      }
      this.lastOp[lane] = j;
    }
  }

  /** A record call: the op marking its captured point, and the record it replaced (S7). */
  private record(i: number): void {
    const ev = this.c.event[i];
    let op = -1;
    for (let q = this.opsStart[i]; q < this.opsStart[i + 1] && op < 0; q++)
      if (this.t.ops.kind[this.opsOf[q]] === OK.eventRecord) op = this.opsOf[q];
    if (op < 0 && this.c.stream[i] >= 0) op = this.lastOp[this.c.stream[i]];
    this.recordOp[i] = op;
    this.replaced[i] = this.current.get(ev) ?? -1;
    this.current.set(ev, i);
  }

  result(): Bindings {
    const C = this.c.count;
    // Grouped by call, each call's ops in the order it awaited them.
    const awaitStart = new Int32Array(C + 1);
    for (const call of this.awaitCall) awaitStart[call + 1]++;
    for (let i = 0; i < C; i++) awaitStart[i + 1] += awaitStart[i];
    const fill = awaitStart.slice(0, C);
    const awaited = new Int32Array(this.awaitOp.length);
    for (let k = 0; k < this.awaitOp.length; k++) awaited[fill[this.awaitCall[k]]++] = this.awaitOp[k];
    return {
      timeOrder: this.timeOrder,
      opsStart: this.opsStart,
      opsOf: this.opsOf,
      bound: this.bound,
      bound2: this.bound2,
      recordOp: this.recordOp,
      replaced: this.replaced,
      consumers: this.consumers,
      awaitStart,
      awaited,
      eventFrom: this.eventFrom,
      eventTo: this.eventTo,
    };
  }
}
