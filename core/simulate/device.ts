// The GPU side of the simulator: streams that run their ops in order (S1), the legacy default
// stream's implicit ordering (S3, S4), SM slots shared by kernels of all streams (S2) and handed
// out by stream priority (S5), one copy engine per direction, and the queue of pending launches (S19).
// With several GPUs (S21) each has its own SM slots, copy engines, legacy default stream and launch
// queue; only event waits and peer copies join them. A peer copy holds the source GPU's outbound
// (device-to-host) engine and the destination's inbound (host-to-device) one for its whole span.
import type { StreamDecl } from '../scenario/program';
import { EDGE_KINDS, type TraceBuilder } from '../trace/model';
import { Agenda, GPU } from './queue';
import type { SimProfile } from './profile';

export const READY = 0;
export const END = 1;
export const BLOCKS_END = 2;

/** What an op runs on: blocks on SMs, a copy engine, nothing shared (a fixed span), or two GPUs' engines. */
export const ON_SMS = 0,
  ON_HTOD = 1,
  ON_DTOH = 2,
  ON_NONE = 3,
  ON_PEER = 4;

/** Called back when host threads can go on. */
export interface HostSide {
  /** An op that `thread` was waiting for completed at `now` (the shared release rule names which one released it). */
  released(thread: number, now: number): void;
  /** A queued op of `stream` started, so that the stream's launch queue has room. */
  roomFreed(now: number, stream: number): void;
}

// State of the ops in flight (issued, not yet completed), in pooled slots of two typed arrays
// that a completed op hands back: a million-op run then needs a few kilobytes of it, not a few
// objects or tens of bytes per op.
/** Float64 fields: earliest start (submission, raised to each dependency's end), duration (a block's, for kernels),
 * and a kernel's own latency, which its first blocks placed carry (once per kernel, not per wave). */
const GATE = 0,
  DUR = 1,
  LEAD = 2,
  F = 3;
/** Int32 fields: dependencies not yet completed, head of the dependents list, flags, kernel blocks
 * not yet placed, block groups running, block slots one block takes, the copy engines it holds
 * (engine = device * 2 + 0 inbound / 1 outbound, or -1). */
const WAITS = 0,
  DEP_HEAD = 1,
  FLAGS = 2,
  BLOCKS_LEFT = 3,
  RUNNING = 4,
  SLOTS = 5,
  ENGINE_A = 6,
  ENGINE_B = 7,
  I = 8;
/** FLAGS: what the op runs on (the low three bits), whether it takes a launch-queue entry. */
const ON_MASK = 7,
  COUNTED = 8;
const INBOUND = 0,
  OUTBOUND = 1;

const STREAM_EDGE = EDGE_KINDS.indexOf('stream');
const LEGACY_EDGE = EDGE_KINDS.indexOf('legacy');
const EVENT_EDGE = EDGE_KINDS.indexOf('event');
const LAUNCH_EDGE = EDGE_KINDS.indexOf('launch');

export class Device {
  /** The last op issued to each stream, or -1. */
  readonly lastOp: Int32Array;
  /** Per stream, issued ops that take a launch-queue entry and have not started yet (S19). */
  /** Per launch queue (S19), the ops that took an entry of it and have not started. */
  readonly queued: Int32Array;
  /** Per stream, the launch queue it shares (S19). */
  readonly queueOf: Int32Array;
  /** Per GPU, the op of its streams that completed most recently, or -1. */
  readonly lastCompleted: Int32Array;
  /** Per stream, its GPU. */
  readonly deviceOf: Int32Array;
  dispatchPending = false;

  /** Per op, its slot while it is in flight. */
  private readonly slotOf: Int32Array;
  private f: Float64Array = new Float64Array(64 * F);
  private i: Int32Array = new Int32Array(64 * I);
  /** Free slots, as a stack. */
  private freeSlots: Int32Array = new Int32Array(64);
  private freeCount = 0;
  private slotCount = 0;
  /** Dependents as linked lists: an entry's target is an op, or -1 - thread for a waiting host
   * thread. Entries of a completed op go back on a free list. */
  private depNext: Int32Array = new Int32Array(256);
  private depTarget: Int32Array = new Int32Array(256);
  private depFree = -1;
  private deps = 0;
  /** Per GPU, ready kernels with blocks left to place, by priority then readiness. */
  private readonly kernels: number[][];
  /** Ready copies waiting for their engines, by priority then readiness, over all GPUs. */
  private readonly copies: number[] = [];
  /** Per engine (device * 2 + INBOUND or OUTBOUND), whether a copy holds it. */
  private readonly engineBusy: Uint8Array;
  private readonly priority: Int32Array;
  private readonly nonBlocking: Uint8Array;
  private readonly streamOfLane: Int32Array;
  /** Per GPU, free block slots. */
  private readonly smSlots: Float64Array;
  /** For S3, to skip repeated edges: per stream, its last op that the legacy stream was ordered
   * after, and the last legacy op that it was ordered after. */
  private readonly intoLegacy: Int32Array;
  private readonly fromLegacy: Int32Array;
  /** Per GPU, its legacy default stream, or -1 while no step has used it. */
  private readonly legacy: Int32Array;

  constructor(
    private readonly b: TraceBuilder,
    private readonly agenda: Agenda,
    private readonly profile: SimProfile,
    streams: readonly StreamDecl[],
    private readonly laneOf: readonly number[],
    private readonly host: HostSide,
    /** How many ops the program issues (each step issues at most one). */
    maxOps: number,
  ) {
    const n = streams.length;
    this.lastOp = new Int32Array(n).fill(-1);
    this.intoLegacy = new Int32Array(n).fill(-1);
    this.fromLegacy = new Int32Array(n).fill(-1);
    this.priority = Int32Array.from(streams, (s) => s.priority);
    this.nonBlocking = Uint8Array.from(streams, (s) => (s.nonBlocking ? 1 : 0));
    this.deviceOf = Int32Array.from(streams, (s) => s.device);
    // Loops, not Math.max(...): a scenario may declare more streams than a call takes arguments.
    let lanes = 1;
    for (const lane of laneOf) lanes = Math.max(lanes, lane + 1);
    this.streamOfLane = new Int32Array(lanes).fill(-1);
    laneOf.forEach((lane, s) => {
      this.streamOfLane[lane] = s;
    });
    let gpus = 1;
    for (const s of streams) gpus = Math.max(gpus, s.device + 1);
    this.legacy = new Int32Array(gpus).fill(-1);
    streams.forEach((s, i) => {
      if (s.legacyDefault) this.legacy[s.device] = i;
    });
    this.queueOf = launchQueues(streams, profile.hardwareQueues);
    let queues = 0;
    for (const q of this.queueOf) queues = Math.max(queues, q + 1);
    this.queued = new Int32Array(queues);
    this.lastCompleted = new Int32Array(gpus).fill(-1);
    this.smSlots = new Float64Array(gpus).fill(profile.sms * profile.blocksPerSm);
    this.kernels = Array.from({ length: gpus }, () => []);
    this.engineBusy = new Uint8Array(2 * gpus);
    this.slotOf = new Int32Array(Math.max(1, maxOps));
  }

  isDone(op: number): boolean {
    // An op's end stays NaN until it completes.
    return !Number.isNaN(this.b.ops.cols.end[op]);
  }

  end(op: number): number {
    return this.b.ops.cols.end[op];
  }

  /**
   * Puts an op at the back of `stream` and returns its id; the caller fills the op's other columns.
   * It may start at `gate` (when the host has submitted it) once every op it is ordered after has
   * completed. `on`/`dur`: what it runs on and for how long (a block's time, for a kernel of `grid`
   * blocks of `block` threads, at most `perSm` of them on one SM when given). `counts`: it takes a launch-queue entry.
   * `lead`: a kernel's own latency, added once: to the blocks it places first, not to every wave.
   */
  issue(
    kind: number,
    name: number,
    call: number,
    stream: number,
    gate: number,
    on: number,
    dur: number,
    grid: number,
    block: number,
    counts: boolean,
    perSm?: number,
    lead = 0,
  ): number {
    const ops = this.b.ops;
    const op = ops.add();
    const c = ops.cols;
    c.lane[op] = this.laneOf[stream];
    c.kind[op] = kind;
    c.start[op] = NaN;
    c.end[op] = NaN;
    c.call[op] = call;
    c.name[op] = name;
    c.truthStart[op] = NaN;
    c.truthEnd[op] = NaN;
    const slot = this.takeSlot();
    this.slotOf[op] = slot;
    const f = slot * F;
    const i = slot * I;
    this.f[f + GATE] = gate;
    this.f[f + DUR] = dur;
    this.f[f + LEAD] = lead;
    this.i[i + WAITS] = 0;
    this.i[i + DEP_HEAD] = -1;
    this.i[i + FLAGS] = on | (counts ? COUNTED : 0);
    this.i[i + RUNNING] = 0;
    const gpu = this.deviceOf[stream];
    this.i[i + ENGINE_A] = on === ON_HTOD ? 2 * gpu + INBOUND : on === ON_DTOH ? 2 * gpu + OUTBOUND : -1;
    this.i[i + ENGINE_B] = -1;
    if (on === ON_SMS) {
      c.grid[op] = grid;
      c.block[op] = block;
      const p = this.profile;
      const fit = Math.max(
        1,
        Math.min(p.blocksPerSm, Math.floor(p.threadsPerSm / Math.max(1, block)), perSm || Infinity),
      );
      this.i[i + SLOTS] = Math.ceil(p.blocksPerSm / fit);
      this.i[i + BLOCKS_LEFT] = Math.max(1, grid);
    }
    if (counts) this.queued[this.queueOf[stream]]++;
    this.edge(LAUNCH_EDGE, call, op);

    const prev = this.lastOp[stream];
    if (prev >= 0) this.after(prev, op, STREAM_EDGE);
    this.orderWithLegacy(stream, op);
    this.lastOp[stream] = op;
    return op;
  }

  /** A peer copy (issued ON_PEER) holds `from`'s outbound engine and `to`'s inbound one. */
  peer(op: number, from: number, to: number): void {
    const i = this.slotOf[op] * I;
    this.i[i + ENGINE_A] = 2 * from + OUTBOUND;
    this.i[i + ENGINE_B] = 2 * to + INBOUND;
  }

  /** Orders an issued op after `dep` (an event's record, S8), before the op is released. */
  waitFor(op: number, dep: number): void {
    this.after(dep, op, EVENT_EDGE);
  }

  /** Lets an issued op go: call once its dependencies are all declared. */
  submit(op: number, now: number): void {
    const slot = this.slotOf[op];
    if (this.i[slot * I + WAITS] === 0) this.agenda.push(Math.max(now, this.f[slot * F + GATE]), GPU, READY, op);
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

  /** Places blocks of ready kernels on each GPU's free SM slots: higher priority first, then first ready (S5). */
  dispatch(now: number): void {
    this.dispatchPending = false;
    for (let gpu = 0; gpu < this.kernels.length; gpu++) {
      const list = this.kernels[gpu];
      while (list.length > 0) {
        const k = list[0];
        const slot = this.slotOf[k];
        const i = slot * I;
        const slots = this.i[i + SLOTS];
        const fit = Math.floor(this.smSlots[gpu] / slots);
        if (fit === 0) break;
        const first = Number.isNaN(this.b.ops.cols.start[k]);
        if (first) this.start(k, now);
        const n = Math.min(this.i[i + BLOCKS_LEFT], fit);
        this.i[i + BLOCKS_LEFT] -= n;
        this.i[i + RUNNING]++;
        this.smSlots[gpu] -= n * slots;
        const f = slot * F;
        this.agenda.push(now + this.f[f + DUR] + (first ? this.f[f + LEAD] : 0), GPU, BLOCKS_END, k, n);
        if (this.i[i + BLOCKS_LEFT] === 0) list.shift();
      }
    }
  }

  private takeSlot(): number {
    if (this.freeCount > 0) return this.freeSlots[--this.freeCount];
    const slot = this.slotCount++;
    if (slot * I === this.i.length) {
      this.f = grownF(this.f, 2 * this.f.length);
      this.i = grownI(this.i, 2 * this.i.length);
      this.freeSlots = grownI(this.freeSlots, 2 * this.freeSlots.length);
    }
    return slot;
  }

  private edge(kind: number, from: number, to: number): void {
    const edges = this.b.edges;
    const e = edges.add();
    const c = edges.cols;
    c.kind[e] = kind;
    c.from[e] = from;
    c.to[e] = to;
  }

  private after(dep: number, op: number, kind: number): void {
    this.edge(kind, dep, op);
    const slot = this.slotOf[op];
    if (this.isDone(dep)) {
      const g = slot * F + GATE;
      this.f[g] = Math.max(this.f[g], this.end(dep));
    } else {
      this.i[slot * I + WAITS]++;
      this.link(dep, op);
    }
  }

  /** S3, on the stream's own GPU: its legacy stream waits for every blocking stream, and blocking streams wait for it. */
  private orderWithLegacy(stream: number, op: number): void {
    const gpu = this.deviceOf[stream];
    const legacy = this.legacy[gpu];
    if (this.nonBlocking[stream] || legacy < 0) return;
    if (stream === legacy) {
      for (let o = 0; o < this.lastOp.length; o++) {
        const last = this.lastOp[o];
        if (o === stream || this.nonBlocking[o] || this.deviceOf[o] !== gpu || last < 0 || this.intoLegacy[o] === last)
          continue;
        // Later legacy ops are ordered after this one by S1, so one edge per op of `o` is enough.
        this.intoLegacy[o] = last;
        this.after(last, op, LEGACY_EDGE);
      }
    } else {
      const last = this.lastOp[legacy];
      if (last < 0 || this.fromLegacy[stream] === last) return;
      this.fromLegacy[stream] = last;
      this.after(last, op, LEGACY_EDGE);
    }
  }

  /** Adds `target` to the dependents of `op`, which is in flight. */
  private link(op: number, target: number): void {
    let e = this.depFree;
    if (e >= 0) this.depFree = this.depNext[e];
    else {
      e = this.deps++;
      if (e === this.depTarget.length) {
        this.depTarget = grownI(this.depTarget, 2 * e);
        this.depNext = grownI(this.depNext, 2 * e);
      }
    }
    const head = this.slotOf[op] * I + DEP_HEAD;
    this.depTarget[e] = target;
    this.depNext[e] = this.i[head];
    this.i[head] = e;
  }

  private ready(op: number, now: number): void {
    const slot = this.slotOf[op];
    const on = this.i[slot * I + FLAGS] & ON_MASK;
    if (on === ON_SMS) {
      this.insertByPriority(this.kernels[this.gpuOf(op)], op);
      this.dispatchPending = true;
    } else if (on === ON_NONE) {
      this.start(op, now);
      this.agenda.push(now + this.f[slot * F + DUR], GPU, END, op);
    } else {
      this.insertByPriority(this.copies, op);
      this.runEngines(now);
    }
  }

  /**
   * Starts every waiting copy whose engines are all free, in priority-then-readiness order: per
   * engine that is first come first served, and a peer copy waiting for one engine does not hold
   * up copies that need only the other GPU's.
   */
  private runEngines(now: number): void {
    const q = this.copies;
    for (let k = 0; k < q.length; k++) {
      const op = q[k];
      const i = this.slotOf[op] * I;
      const a = this.i[i + ENGINE_A];
      const b = this.i[i + ENGINE_B];
      if (this.engineBusy[a] || (b >= 0 && this.engineBusy[b])) continue;
      this.engineBusy[a] = 1;
      if (b >= 0) this.engineBusy[b] = 1;
      removeAt(q, k--);
      this.start(op, now);
      this.agenda.push(now + this.f[this.slotOf[op] * F + DUR], GPU, END, op);
    }
  }

  /** Keeps `list` ordered by stream priority (lower number first), then by readiness. */
  private insertByPriority(list: number[], op: number): void {
    const lane = this.b.ops.cols.lane;
    const p = this.priorityOf(lane[op]);
    // Readiness only grows, so among equal priorities the newcomer goes last.
    let at = list.length;
    while (at > 0 && this.priorityOf(lane[list[at - 1]]) > p) at--;
    list.push(op);
    for (let k = list.length - 1; k > at; k--) list[k] = list[k - 1];
    list[at] = op;
  }

  private priorityOf(lane: number): number {
    return this.priority[this.streamOfLane[lane]];
  }

  private gpuOf(op: number): number {
    return this.deviceOf[this.streamOfLane[this.b.ops.cols.lane[op]]];
  }

  private start(op: number, now: number): void {
    this.b.ops.cols.start[op] = now;
    if (this.i[this.slotOf[op] * I + FLAGS] & COUNTED) {
      const stream = this.streamOfLane[this.b.ops.cols.lane[op]];
      this.queued[this.queueOf[stream]]--;
      this.host.roomFreed(now, stream);
    }
  }

  private blocksEnd(op: number, n: number, now: number): void {
    const i = this.slotOf[op] * I;
    this.smSlots[this.gpuOf(op)] += n * this.i[i + SLOTS];
    this.i[i + RUNNING]--;
    this.dispatchPending = true;
    if (this.i[i + BLOCKS_LEFT] === 0 && this.i[i + RUNNING] === 0) this.complete(op, now);
  }

  private complete(op: number, now: number): void {
    this.b.ops.cols.end[op] = now;
    this.lastCompleted[this.gpuOf(op)] = op;
    const slot = this.slotOf[op];
    const a = this.i[slot * I + ENGINE_A];
    if (a >= 0) {
      const b = this.i[slot * I + ENGINE_B];
      this.engineBusy[a] = 0;
      if (b >= 0) this.engineBusy[b] = 0;
      this.runEngines(now);
    }
    let e = this.i[slot * I + DEP_HEAD];
    while (e >= 0) {
      const t = this.depTarget[e];
      const next = this.depNext[e];
      this.depNext[e] = this.depFree;
      this.depFree = e;
      e = next;
      if (t < 0) {
        this.host.released(-1 - t, now);
        continue;
      }
      const ts = this.slotOf[t];
      const g = ts * F + GATE;
      if (now > this.f[g]) this.f[g] = now;
      if (--this.i[ts * I + WAITS] === 0) this.agenda.push(this.f[g], GPU, READY, t);
    }
    this.freeSlots[this.freeCount++] = slot;
  }
}

/** Removes `list[at]` in place: splice would allocate the array of removed items on every call. */
function removeAt(list: number[], at: number): void {
  for (let k = at + 1; k < list.length; k++) list[k - 1] = list[k];
  list.length--;
}

function grownF(a: Float64Array, size: number): Float64Array {
  const out = new Float64Array(size);
  out.set(a);
  return out;
}

function grownI(a: Int32Array, size: number): Int32Array {
  const out = new Int32Array(size);
  out.set(a);
  return out;
}

/**
 * S19: each stream's launch queue. A GPU has `hardwareQueues` of them for its streams
 * (CUDA_DEVICE_MAX_CONNECTIONS), which they take in the order they were created, the next after the
 * last sharing with the first; its legacy default stream has one of its own.
 */
export function launchQueues(
  streams: readonly { device: number; legacyDefault?: boolean }[],
  hardwareQueues: number,
): Int32Array {
  const ids = new Map<string, number>();
  const created = new Map<number, number>();
  return Int32Array.from(streams, (s) => {
    let key = `${s.device} legacy`;
    if (!s.legacyDefault) {
      const k = created.get(s.device) ?? 0;
      created.set(s.device, k + 1);
      key = `${s.device} ${k % Math.max(1, hardwareQueues)}`;
    }
    return ids.get(key) ?? ids.set(key, ids.size).get(key)!;
  });
}
