// The GPU side of the simulator: streams that run their ops in order (S1), the legacy default
// stream's implicit ordering (S3, S4), SM slots shared by kernels of all streams (S2) and handed
// out by stream priority (S5), one copy engine per direction, and the queue of pending launches (S19).
import type { StreamDecl } from '../scenario/program';
import type { OpInit, TraceBuilder } from '../trace/model';
import { Agenda, GPU } from './queue';
import type { SimProfile } from './profile';

export const READY = 0;
export const END = 1;
export const BLOCKS_END = 2;

/** How an op takes time: blocks on SMs, a copy engine, or a fixed span that needs no resource. */
export type Work =
  | { on: 'sms'; grid: number; block: number; blockNs: number }
  | { on: 'engine'; engine: 0 | 1; ns: number }
  | { on: 'none'; ns: number };

/** What the issuing call says about an op. */
export type OpArgs = Pick<OpInit, 'kind' | 'name' | 'grid' | 'block' | 'bytes' | 'copy' | 'hostMemory' | 'event'>;

export const ENGINE_HTOD = 0;
export const ENGINE_DTOH = 1;

/** Called back when host threads can go on. */
export interface HostSide {
  /** `op` completed at `now` and was the last op `thread` was waiting for. */
  released(thread: number, op: number, now: number): void;
  /** A queued op started, so the launch queue has room. */
  roomFreed(now: number): void;
}

// Per-op state, packed per op so that issuing one op touches two cache lines, not a dozen arrays:
// a million-op run then allocates two buffers instead of millions of objects.
/** Float64 fields: earliest start (submission, raised to each dependency's end), duration (a
 * block's, for kernels), blocks not yet placed, block groups running. */
const GATE = 0, DUR = 1, BLOCKS_LEFT = 2, RUNNING = 3, F = 4;
/** Int32 fields: dependencies not yet completed, head of the dependents list, flags. */
const WAITS = 0, DEP_HEAD = 1, FLAGS = 2, I = 3;
/** FLAGS: what the op runs on (the low two bits), whether it takes a launch-queue entry. */
const ON_SMS = 0, ON_HTOD = 1, ON_DTOH = 2, ON_NONE = 3, COUNTED = 4;

export class Device {
  /** The last op issued to each stream, or -1. */
  readonly lastOp: number[];
  /** Issued work that has not started yet: what fills the launch queue. */
  queued = 0;
  /** The op that completed most recently. */
  lastCompleted = -1;
  dispatchPending = false;

  private readonly f: Float64Array;
  private readonly i: Int32Array;
  /** Block slots one block of each kernel takes. */
  private readonly slots: Int32Array;
  /** Dependents as linked lists: an entry's target is an op, or -1 - thread for a waiting host thread. */
  private depNext: Int32Array;
  private depTarget: Int32Array;
  private deps = 0;
  /** Ready kernels with blocks left to place, by priority then readiness. */
  private readonly kernels: number[] = [];
  private readonly engineQueue: number[][] = [[], []];
  private readonly engineBusy = [false, false];
  private readonly prioOfLane: number[] = [];
  private freeSlots: number;
  /** For S3, to skip repeated edges: per stream, its last op that the legacy stream was ordered
   * after, and the last legacy op that it was ordered after. */
  private readonly intoLegacy: number[];
  private readonly fromLegacy: number[];
  private readonly legacy: number;

  constructor(
    private readonly b: TraceBuilder,
    private readonly agenda: Agenda,
    private readonly profile: SimProfile,
    private readonly streams: readonly StreamDecl[],
    private readonly laneOf: readonly number[],
    private readonly host: HostSide,
    /** How many ops the program issues (each step issues at most one). */
    maxOps: number,
  ) {
    this.lastOp = streams.map(() => -1);
    this.intoLegacy = streams.map(() => -1);
    this.fromLegacy = streams.map(() => -1);
    this.legacy = streams.findIndex((s) => s.legacyDefault);
    streams.forEach((s, i) => { this.prioOfLane[laneOf[i]] = s.priority; });
    this.freeSlots = profile.sms * profile.blocksPerSm;
    const n = Math.max(1, maxOps);
    this.f = new Float64Array(n * F);
    this.i = new Int32Array(n * I);
    this.slots = new Int32Array(n);
    this.depNext = new Int32Array(2 * n);
    this.depTarget = new Int32Array(2 * n);
  }

  isDone(op: number): boolean {
    // An op's end stays NaN until it completes.
    return !Number.isNaN(this.b.ops.cols.end[op]);
  }

  end(op: number): number {
    return this.b.ops.cols.end[op];
  }

  /**
   * Puts an op at the back of `stream`. It may start at `gate` (when the host has submitted it)
   * once every op it is ordered after has completed. `counts`: it takes a launch-queue entry.
   */
  issue(init: OpArgs, call: number, stream: number, gate: number, work: Work, counts: boolean): number {
    // One object shape for every op (no spread): this runs a million times in a large scenario.
    const op = this.b.op({
      lane: this.laneOf[stream], kind: init.kind, start: NaN, end: NaN, call, name: init.name, grid: init.grid, block: init.block,
      bytes: init.bytes, copy: init.copy, hostMemory: init.hostMemory, event: init.event,
    });
    const f = op * F;
    const i = op * I;
    this.f[f + GATE] = gate;
    this.i[i + DEP_HEAD] = -1;
    if (work.on === 'sms') {
      const perSm = Math.max(1, Math.min(this.profile.blocksPerSm, Math.floor(this.profile.threadsPerSm / Math.max(1, work.block))));
      this.slots[op] = Math.ceil(this.profile.blocksPerSm / perSm);
      this.f[f + BLOCKS_LEFT] = Math.max(1, work.grid);
      this.f[f + DUR] = work.blockNs;
      this.i[i + FLAGS] = ON_SMS;
    } else {
      this.f[f + DUR] = work.ns;
      this.i[i + FLAGS] = work.on === 'none' ? ON_NONE : work.engine === ENGINE_HTOD ? ON_HTOD : ON_DTOH;
    }
    if (counts) {
      this.i[i + FLAGS] |= COUNTED;
      this.queued++;
    }
    this.b.edge('launch', call, op);

    const prev = this.lastOp[stream];
    if (prev >= 0) this.after(prev, op, 'stream');
    this.orderWithLegacy(stream, op);
    this.lastOp[stream] = op;
    return op;
  }

  /** Orders an issued op after `dep` (an event's record, S8), before the op is released. */
  waitFor(op: number, dep: number): void {
    this.after(dep, op, 'event');
  }

  /** Lets an issued op go: call once its dependencies are all declared. */
  submit(op: number, now: number): void {
    if (this.i[op * I + WAITS] === 0) this.agenda.push(Math.max(now, this.f[op * F + GATE]), GPU, READY, op);
  }

  /** Registers a host thread as waiting for `op`; false when it has already completed. */
  awaitOp(op: number, thread: number): boolean {
    if (this.isDone(op)) return false;
    this.link(op, -1 - thread);
    return true;
  }

  handle(kind: number, a: number, b: number, now: number): void {
    if (kind === READY) this.ready(a, now);
    else if (kind === END) this.complete(a, now);
    else this.blocksEnd(a, b, now);
  }

  /** Places blocks of ready kernels on free SM slots: higher priority first, then first ready (S5). */
  dispatch(now: number): void {
    this.dispatchPending = false;
    const list = this.kernels;
    while (list.length > 0) {
      const k = list[0];
      const fit = Math.floor(this.freeSlots / this.slots[k]);
      if (fit === 0) return;
      const f = k * F;
      if (Number.isNaN(this.b.ops.cols.start[k])) this.start(k, now);
      const n = Math.min(this.f[f + BLOCKS_LEFT], fit);
      this.f[f + BLOCKS_LEFT] -= n;
      this.f[f + RUNNING]++;
      this.freeSlots -= n * this.slots[k];
      this.agenda.push(now + this.f[f + DUR], GPU, BLOCKS_END, k, n);
      if (this.f[f + BLOCKS_LEFT] === 0) list.shift();
    }
  }

  private after(dep: number, op: number, kind: 'stream' | 'legacy' | 'event'): void {
    this.b.edge(kind, dep, op);
    if (this.isDone(dep)) {
      this.f[op * F + GATE] = Math.max(this.f[op * F + GATE], this.end(dep));
    } else {
      this.i[op * I + WAITS]++;
      this.link(dep, op);
    }
  }

  /** S3: the legacy stream waits for every blocking stream, and blocking streams wait for it. */
  private orderWithLegacy(stream: number, op: number): void {
    const s = this.streams[stream];
    if (s.nonBlocking || this.legacy < 0) return;
    if (s.legacyDefault) {
      for (let o = 0; o < this.streams.length; o++) {
        const last = this.lastOp[o];
        if (o === stream || this.streams[o].nonBlocking || last < 0 || this.intoLegacy[o] === last) continue;
        // Later legacy ops are ordered after this one by S1, so one edge per op of `o` is enough.
        this.intoLegacy[o] = last;
        this.after(last, op, 'legacy');
      }
    } else {
      const last = this.lastOp[this.legacy];
      if (last < 0 || this.fromLegacy[stream] === last) return;
      this.fromLegacy[stream] = last;
      this.after(last, op, 'legacy');
    }
  }

  private link(op: number, target: number): void {
    const e = this.deps++;
    if (e === this.depTarget.length) {
      const grow = (a: Int32Array) => { const b = new Int32Array(2 * a.length); b.set(a); return b; };
      this.depTarget = grow(this.depTarget);
      this.depNext = grow(this.depNext);
    }
    this.depTarget[e] = target;
    this.depNext[e] = this.i[op * I + DEP_HEAD];
    this.i[op * I + DEP_HEAD] = e;
  }

  private ready(op: number, now: number): void {
    const on = this.i[op * I + FLAGS] & 3;
    if (on === ON_SMS) {
      this.insertByPriority(this.kernels, op);
      this.dispatchPending = true;
    } else if (on === ON_NONE) {
      this.start(op, now);
      this.agenda.push(now + this.f[op * F + DUR], GPU, END, op);
    } else {
      const engine = on === ON_HTOD ? ENGINE_HTOD : ENGINE_DTOH;
      this.insertByPriority(this.engineQueue[engine], op);
      this.runEngine(engine, now);
    }
  }

  private runEngine(engine: number, now: number): void {
    const q = this.engineQueue[engine];
    if (this.engineBusy[engine] || q.length === 0) return;
    const op = q.shift() as number;
    this.engineBusy[engine] = true;
    this.start(op, now);
    this.agenda.push(now + this.f[op * F + DUR], GPU, END, op);
  }

  /** Keeps `list` ordered by stream priority (lower number first), then by readiness. */
  private insertByPriority(list: number[], op: number): void {
    const lane = this.b.ops.cols.lane;
    const p = this.prioOfLane[lane[op]];
    // Readiness only grows, so among equal priorities the newcomer goes last.
    let at = list.length;
    while (at > 0 && this.prioOfLane[lane[list[at - 1]]] > p) at--;
    if (at === list.length) list.push(op);
    else list.splice(at, 0, op);
  }

  private start(op: number, now: number): void {
    this.b.ops.cols.start[op] = now;
    if (this.i[op * I + FLAGS] & COUNTED) {
      this.queued--;
      this.host.roomFreed(now);
    }
  }

  private blocksEnd(op: number, n: number, now: number): void {
    this.freeSlots += n * this.slots[op];
    const f = op * F;
    this.f[f + RUNNING]--;
    this.dispatchPending = true;
    if (this.f[f + BLOCKS_LEFT] === 0 && this.f[f + RUNNING] === 0) this.complete(op, now);
  }

  private complete(op: number, now: number): void {
    this.b.ops.cols.end[op] = now;
    this.lastCompleted = op;
    const on = this.i[op * I + FLAGS] & 3;
    if (on === ON_HTOD || on === ON_DTOH) {
      const engine = on === ON_HTOD ? ENGINE_HTOD : ENGINE_DTOH;
      this.engineBusy[engine] = false;
      this.runEngine(engine, now);
    }
    for (let e = this.i[op * I + DEP_HEAD]; e >= 0; e = this.depNext[e]) {
      const t = this.depTarget[e];
      if (t < 0) {
        this.host.released(-1 - t, op, now);
        continue;
      }
      const g = t * F + GATE;
      if (now > this.f[g]) this.f[g] = now;
      if (--this.i[t * I + WAITS] === 0) this.agenda.push(this.f[g], GPU, READY, t);
    }
  }
}
