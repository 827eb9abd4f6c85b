// The simulator: runs a compiled Program against a cost model and returns the Trace that a GPU
// run would have produced. It is a discrete-event simulation: host threads execute their steps in
// program order, each API call costing host time, and the Device runs what they issue. Ordering
// follows SEMANTICS.md exactly; timing follows the profile (docs/simulator.md says how closely).
//
// A large scenario runs a million steps, so the step loop allocates nothing per step: calls and ops
// are written straight into the trace's columns (a fresh column is already zero, so only what is
// not zero is written), names are interned once per distinct name, and the agenda and the device
// keep their state in typed arrays.
import { checkTraceRows, type MemoryBudget } from '../memory';
import type { Program, Step, ThreadDecl } from '../scenario/program';
import { CK, OK } from '../trace/kinds';
import {
  ANSWERS,
  COPY_KINDS,
  copyBlocksHost,
  HOST_MEMORY,
  RELEASED_NONE,
  TraceBuilder,
  type Trace,
} from '../trace/model';
import { ReleaseRule } from '../trace/release';
import { Device, ON_DTOH, ON_HTOD, ON_NONE, ON_PEER, ON_SMS, type HostSide } from './device';
import { h200, TINY_COPY_BYTES, type SimProfile } from './profile';
import { Agenda, HOST } from './queue';

interface Thread {
  id: number;
  decl: ThreadDecl;
  lane: number;
  pc: number;
  /** While blocked in a wait: the call, the ops it awaits, how many are still pending, and how it returns. */
  call: number;
  awaited: Int32Array;
  awaitedCount: number;
  pending: number;
  from: number;
  minEnd: number;
  wake: number;
  /** Host time after the wait returns, before the next step (afterStreamOpNs after a blocking stream op). */
  after: number;
  /** While a launch waits for room in the launch queue (S19): since when, and what made room. */
  queueSince: number;
  roomCause: number;
  /** Host time the thread's next CUDA call owes (-1 before its first: coldCallNs or coldTinyCopyNs), and what its call row moves back by. */
  cold: number;
  beginShift: number;
  /** Host time beyond afterStreamOpNs after the thread's next stream op (afterFirstStreamOpNs, halving). */
  afterCold: number;
}

/** `memory`: the trace's rows, with what the analysis makes of them, are checked against it before they are allocated. */
export function simulate(program: Program, profile: SimProfile = h200, memory?: MemoryBudget): Trace {
  return new Simulation(program, profile, memory).run();
}

const ns = (x: number): number => Math.max(0, Math.round(x));

const {
  launch: LAUNCH,
  record: RECORD,
  streamWait: STREAM_WAIT,
  query: QUERY,
  eventSync: EVENT_SYNC,
  streamSync: STREAM_SYNC,
  deviceSync: DEVICE_SYNC,
  elapsed: ELAPSED,
  memcpy: MEMCPY,
  memset: MEMSET,
  hostFunc: HOST_FUNC,
  hostWork: HOST_WORK,
  api: API,
} = CK;
const {
  kernel: OP_KERNEL,
  memcpy: OP_MEMCPY,
  memset: OP_MEMSET,
  eventRecord: OP_RECORD,
  waitEvent: OP_WAIT,
  hostFunc: OP_HOST_FUNC,
} = OK;
const READY = ANSWERS.indexOf('ready');
const NOT_READY = ANSWERS.indexOf('notReady');
const ERROR = ANSWERS.indexOf('error');

/** Fixed strings the trace names, interned when first used. */
const NAMES = [
  'cudaLaunchKernel',
  'cudaEventRecord',
  'cudaStreamWaitEvent',
  'cudaEventQuery',
  'cudaEventSynchronize',
  'cudaStreamSynchronize',
  'cudaDeviceSynchronize',
  'cudaEventElapsedTime',
  'cudaMemcpyAsync',
  'cudaMemcpy',
  'cudaMemsetAsync',
  'cudaMemset',
  'cudaLaunchHostFunc',
  'hostWork',
  'cudaErrorNotReady',
  'cudaErrorInvalidResourceHandle',
  'cudaSetDevice',
] as const;
type Name = (typeof NAMES)[number];
type StepOf<K extends Step['op']> = Extract<Step, { op: K }>;

class Simulation implements HostSide {
  private readonly b: TraceBuilder;
  private readonly releases: ReleaseRule;
  private readonly agenda = new Agenda();
  private readonly device: Device;
  private readonly threads: Thread[];
  private readonly streamLane: number[];
  /** Per event, the eventRecord op of its current record, or -1 (S7, S9). */
  private readonly current: Int32Array;
  /** Per stream, the threads waiting for room in its launch queue (S19). */
  private readonly roomWaiters: number[][];
  /** Interned string ids, 0 until first used (id 0 is the empty string, which none of these is). */
  private readonly fixedIds = new Int32Array(NAMES.length);
  private readonly eventIds: Int32Array;
  private readonly recordIds: Int32Array;
  private readonly waitIds: Int32Array;
  private readonly bufferIds: Int32Array;
  private readonly memsetIds: Int32Array;
  private readonly copyIds = new Map<number, number>();
  /** The copy directions the run has used (coldCopyNs). */
  private readonly copied = new Set<string>();

  constructor(
    private readonly program: Program,
    private readonly p: SimProfile,
    memory: MemoryBudget | undefined,
  ) {
    const rows = expectedRows(program, p);
    if (memory) checkTraceRows(memory, rows, program.threads.length + program.streams.length);
    this.b = new TraceBuilder(undefined, rows);
    this.releases = new ReleaseRule(this.b);
    const threadLane = program.threads.map((t) => this.b.lane({ kind: 'thread', name: t.name, device: 0 }));
    this.streamLane = program.streams.map((s) =>
      this.b.lane({
        kind: 'stream',
        name: s.name,
        device: s.device,
        nonBlocking: s.nonBlocking,
        priority: s.priority,
        legacyDefault: s.legacyDefault,
        perThreadDefault: s.perThreadDefault,
        thread: s.thread === undefined ? undefined : threadLane[s.thread],
      }),
    );
    this.threads = program.threads.map((decl, i) => ({
      id: i,
      decl,
      lane: threadLane[i],
      pc: 0,
      call: -1,
      awaited: new Int32Array(Math.max(1, program.streams.length)),
      awaitedCount: 0,
      pending: 0,
      from: 0,
      minEnd: 0,
      wake: 0,
      after: 0,
      queueSince: -1,
      roomCause: -1,
      cold: -1,
      beginShift: 0,
      afterCold: p.afterFirstStreamOpNs,
    }));
    this.current = new Int32Array(program.events.length).fill(-1);
    this.eventIds = new Int32Array(program.events.length);
    this.recordIds = new Int32Array(program.events.length);
    this.waitIds = new Int32Array(program.events.length);
    this.bufferIds = new Int32Array(program.buffers.length);
    this.memsetIds = new Int32Array(program.buffers.length);
    this.device = new Device(this.b, this.agenda, p, program.streams, this.streamLane, this, rows.ops);
    this.roomWaiters = Array.from(this.device.queued, () => []);
  }

  run(): Trace {
    const { agenda, device } = this;
    this.threads.forEach((t, i) => {
      if (t.decl.steps.length) agenda.push(0, HOST, STEP, i);
    });
    let now = 0;
    for (;;) {
      // Kernels that became ready at `now` compete for SM slots together, so place them only once
      // everything that happens on the GPU at `now` has happened.
      if (device.dispatchPending && (agenda.size === 0 || agenda.topKey() > now * 2)) {
        device.dispatch(now);
        continue;
      }
      if (agenda.size === 0) break;
      now = agenda.topTime();
      const kind = agenda.topKind();
      const a = agenda.topA();
      const b = agenda.topB();
      agenda.pop();
      if (kind === STEP) this.step(this.threads[a], now);
      else device.handle(kind, a, b, now);
    }
    const stuck = this.threads.find((t) => t.pc < t.decl.steps.length);
    if (stuck) throw new Error(`simulator stalled: thread "${stuck.decl.name}" never finished step ${stuck.pc}`);
    const { program: pr, p } = this;
    // Every simulated GPU is the profile's GPU.
    const devices =
      pr.devices.length > 1
        ? { devices: pr.devices.map((d) => ({ device: d.id, name: p.deviceName, sms: p.sms })) }
        : {};
    return this.b.finish({
      source: 'simulator',
      device: { name: p.deviceName, sms: p.sms },
      ...devices,
      clock: 'simulated',
      alignmentErrorNs: 0,
      scenario: pr.file === undefined ? { name: pr.name } : { name: pr.name, file: pr.file },
      profile: p.name,
    });
  }

  // ---- HostSide ----------------------------------------------------------------------------

  released(thread: number, now: number): void {
    const t = this.threads[thread];
    if (--t.pending > 0) return;
    const end = Math.max(t.minEnd, now + t.wake);
    const c = this.b.calls.cols;
    c.end[t.call] = end;
    c.blockedNs[t.call] = end - t.from;
    this.releases.release(t.call, t.awaited, t.awaitedCount);
    this.next(t, end + t.after);
  }

  roomFreed(now: number, stream: number): void {
    const waiters = this.roomWaiters[this.device.queueOf[stream]];
    if (waiters.length === 0) return;
    const t = this.threads[waiters.shift() as number];
    t.roomCause = this.device.lastCompleted[this.device.deviceOf[stream]];
    this.agenda.push(now, HOST, STEP, t.id);
  }

  // ---- Host threads ------------------------------------------------------------------------

  private step(t: Thread, now: number): void {
    const s = t.decl.steps[t.pc];
    now = this.payCold(t, s, now);
    // One handler per op kind; a switch rather than a table, so each call site stays monomorphic.
    switch (s.op) {
      case 'launch':
        return this.launch(t, s, now);
      case 'record':
        return this.record(t, s, now);
      case 'wait':
        return this.streamWait(t, s, now);
      case 'query':
        return this.query(t, s, now);
      case 'eventSync':
        return this.eventSync(t, s, now);
      case 'streamSync':
        return this.streamSync(t, s, now);
      case 'deviceSync':
        return this.deviceSync(t, s, now);
      case 'elapsed':
        return this.elapsed(t, s, now);
      case 'copy':
        return this.copy(t, s, now);
      case 'memset':
        return this.memset(t, s, now);
      case 'hostWork':
        return this.hostWork(t, s, now);
      case 'setDevice':
        return this.setDevice(t, s, now);
      case 'hostFunc':
        return this.hostFunc(t, s, now);
    }
  }

  /**
   * A thread's first CUDA call in a run is slower than its later ones (cold host caches), and so
   * is the run's first copy in each direction: it begins at `now` and does its work that much later.
   * Returns when the step does its work.
   */
  private payCold(t: Thread, s: Step, now: number): number {
    // Once a thread's first call is paid, only a copy in a new direction costs more.
    if (t.cold === 0 && s.op !== 'copy') return now;
    const first = t.cold < 0 && s.op !== 'hostWork';
    if (first) t.cold = s.op === 'copy' && s.bytes <= TINY_COPY_BYTES ? this.p.coldTinyCopyNs : this.p.coldCallNs;
    if (s.op === 'copy' && !this.copied.has(s.direction)) {
      this.copied.add(s.direction);
      if (!first) t.cold = this.p.coldCopyNs;
    }
    if (t.cold > 0 && s.op !== 'hostWork') {
      now += ns(t.cold);
      t.beginShift = ns(t.cold);
      t.cold = 0;
    }
    return now;
  }

  private launch(t: Thread, s: StepOf<'launch'>, now: number): void {
    // S19: a graph's further node rides on its graph's launch: no call of its own, no entry of its own.
    const node = s.graphNode === true;
    if (!node && this.queueFull(t, now, s.stream)) return;
    const { p, device, program } = this;
    const touch = s.touch === undefined ? undefined : program.buffers[s.touch];
    const run = touch ? (2 * touch.bytes) / p.memoryGBps : (s.ns ?? 0);
    const last = device.lastOp[s.stream];
    const cost = node ? 0 : last < 0 || device.isDone(last) ? p.idleLaunchNs : p.launchNs;
    const c = this.workCall(t, s, now, LAUNCH, this.fixed('cudaLaunchKernel'), cost, s.stream, 0);
    const op = device.issue(
      OP_KERNEL,
      this.b.strings.id(s.name),
      c,
      s.stream,
      this.gate(now, cost),
      ON_SMS,
      ns(run),
      s.grid,
      s.block,
      !node,
      s.blocksPerSm,
      ns(s.latencyNs ?? p.kernelOverheadNs),
    );
    if (touch) this.b.ops.cols.bytes[op] = touch.bytes;
    for (const r of s.reads) this.access(op, r, false);
    if (touch) this.access(op, touch.id, false);
    for (const w of s.writes) this.access(op, w, true);
    if (touch) this.access(op, touch.id, true);
    device.submit(op, now);
    this.afterStreamOp(t, now + ns(cost));
  }

  private record(t: Thread, s: StepOf<'record'>, now: number): void {
    if (this.queueFull(t, now, s.stream)) return;
    const { p, device } = this;
    const calls = this.b.calls.cols;
    const cost = this.program.events[s.event].timing ? p.recordTimingNs : p.recordNoTimingNs;
    const c = this.workCall(t, s, now, RECORD, this.fixed('cudaEventRecord'), cost, s.stream, 0);
    const ev = (calls.event[c] = this.eventId(s.event));
    const op = device.issue(
      OP_RECORD,
      this.markerName(this.recordIds, 'record', s.event),
      c,
      s.stream,
      this.gate(now, cost),
      ON_NONE,
      0,
      0,
      0,
      true,
    );
    this.b.ops.cols.event[op] = ev;
    this.current[s.event] = op;
    device.submit(op, now);
    this.afterStreamOp(t, now + ns(cost));
  }

  private streamWait(t: Thread, s: StepOf<'wait'>, now: number): void {
    const { p, device } = this;
    const calls = this.b.calls.cols;
    const c = this.call(t, s, now, STREAM_WAIT, this.fixed('cudaStreamWaitEvent'), p.streamWaitNs);
    calls.stream[c] = this.streamLane[s.stream];
    const ev = (calls.event[c] = this.eventId(s.event));
    const op = device.issue(
      OP_WAIT,
      this.markerName(this.waitIds, 'wait', s.event),
      c,
      s.stream,
      this.gate(now, p.streamWaitNs),
      ON_NONE,
      0,
      0,
      0,
      false,
    );
    this.b.ops.cols.event[op] = ev;
    // S7, S8: the wait binds to the record current now; S9: with none, it waits for nothing.
    const rec = this.current[s.event];
    if (rec >= 0) device.waitFor(op, rec);
    device.submit(op, now);
    this.afterStreamOp(t, now + ns(p.streamWaitNs));
  }

  private query(t: Thread, s: StepOf<'query'>, now: number): void {
    const { p } = this;
    const calls = this.b.calls.cols;
    const rec = this.current[s.event];
    const ready = rec < 0 || this.device.isDone(rec);
    const c = this.call(t, s, now, QUERY, this.fixed('cudaEventQuery'), p.queryNs);
    calls.event[c] = this.eventId(s.event);
    calls.answer[c] = ready ? READY : NOT_READY;
    if (!ready) calls.status[c] = this.fixed('cudaErrorNotReady');
    this.next(t, now + ns(p.queryNs));
  }

  private eventSync(t: Thread, s: StepOf<'eventSync'>, now: number): void {
    const { p } = this;
    const c = this.call(t, s, now, EVENT_SYNC, this.fixed('cudaEventSynchronize'), p.syncNs);
    this.b.calls.cols.event[c] = this.eventId(s.event);
    const rec = this.current[s.event];
    t.awaitedCount = 0;
    if (rec >= 0) t.awaited[t.awaitedCount++] = rec;
    const ev = this.program.events[s.event];
    this.block(t, c, this.wakeNs(ev.device, ev.blockingSync), now, now + ns(p.syncNs));
  }

  private streamSync(t: Thread, s: StepOf<'streamSync'>, now: number): void {
    const { p, device } = this;
    const c = this.call(t, s, now, STREAM_SYNC, this.fixed('cudaStreamSynchronize'), p.syncNs);
    this.b.calls.cols.stream[c] = this.streamLane[s.stream];
    const last = device.lastOp[s.stream];
    t.awaitedCount = 0;
    if (last >= 0) t.awaited[t.awaitedCount++] = last;
    this.block(t, c, this.wakeNs(device.deviceOf[s.stream]), now, now + ns(p.syncNs));
  }

  private deviceSync(t: Thread, s: StepOf<'deviceSync'>, now: number): void {
    const { p } = this;
    const c = this.call(t, s, now, DEVICE_SYNC, this.fixed('cudaDeviceSynchronize'), p.syncNs);
    this.b.calls.cols.device[c] = s.device;
    // S21: only the streams of the device it names; the others' work does not hold the host.
    t.awaitedCount = 0;
    const { lastOp, deviceOf } = this.device;
    for (let k = 0; k < lastOp.length; k++)
      if (lastOp[k] >= 0 && deviceOf[k] === s.device) t.awaited[t.awaitedCount++] = lastOp[k];
    this.block(t, c, this.wakeNs(s.device), now, now + ns(p.syncNs));
  }

  private elapsed(t: Thread, s: StepOf<'elapsed'>, now: number): void {
    const { p, device } = this;
    const calls = this.b.calls.cols;
    const { events } = this.program;
    const a = this.current[s.from];
    const z = this.current[s.to];
    // S11. The handle check comes first: on the H200 a disable-timing event gave
    // cudaErrorInvalidResourceHandle even when both records had completed.
    const status: Name | undefined =
      !events[s.from].timing || !events[s.to].timing || a < 0 || z < 0
        ? 'cudaErrorInvalidResourceHandle'
        : !device.isDone(a) || !device.isDone(z)
          ? 'cudaErrorNotReady'
          : undefined;
    const c = this.call(t, s, now, ELAPSED, this.fixed('cudaEventElapsedTime'), p.elapsedNs);
    calls.event[c] = this.eventId(s.from);
    calls.event2[c] = this.eventId(s.to);
    if (status) {
      calls.status[c] = this.fixed(status);
      calls.answer[c] = ERROR;
    } else {
      const r = ns(p.elapsedResolutionNs);
      calls.value[c] = (Math.round((device.end(z) - device.end(a)) / r) * r) / 1e6;
    }
    this.next(t, now + ns(p.elapsedNs));
  }

  private memset(t: Thread, s: StepOf<'memset'>, now: number): void {
    if (this.queueFull(t, now, s.stream)) return;
    const { p, device } = this;
    const buf = this.program.buffers[s.buffer];
    const stream = s.stream;
    const c = this.workCall(
      t,
      s,
      now,
      MEMSET,
      this.fixed(s.async ? 'cudaMemsetAsync' : 'cudaMemset'),
      p.memsetCallNs,
      stream,
      s.bytes,
    );
    const rate = buf.host ? p.hostCopyGBps : p.memoryGBps;
    const op = device.issue(
      OP_MEMSET,
      this.memsetName(s.buffer),
      c,
      stream,
      this.gate(now, p.memsetCallNs),
      ON_NONE,
      ns(s.bytes / rate),
      0,
      0,
      true,
    );
    const ops = this.b.ops.cols;
    ops.bytes[op] = s.bytes;
    if (buf.host) ops.hostMemory[op] = HOST_MEMORY.indexOf(buf.host);
    this.access(op, s.buffer, true);
    device.submit(op, now);
    // cudaMemset returns at once for device memory; on host memory it is a blocking call.
    if (!s.async && buf.host) return this.blockOn(t, c, op, stream, now + ns(p.memsetCallNs), false);
    this.afterStreamOp(t, now + ns(p.memsetCallNs));
  }

  private hostWork(t: Thread, s: StepOf<'hostWork'>, now: number): void {
    this.call(t, s, now, HOST_WORK, this.fixed('hostWork'), s.ns);
    this.next(t, now + ns(s.ns));
  }

  private setDevice(t: Thread, s: StepOf<'setDevice'>, now: number): void {
    // Not measured: switching to a device whose context exists is a few loads, like a query.
    const c = this.call(t, s, now, API, this.fixed('cudaSetDevice'), this.p.queryNs);
    this.b.calls.cols.device[c] = s.device;
    this.next(t, now + ns(this.p.queryNs));
  }

  private hostFunc(t: Thread, s: StepOf<'hostFunc'>, now: number): void {
    if (this.queueFull(t, now, s.stream)) return;
    const { p, device } = this;
    const c = this.workCall(t, s, now, HOST_FUNC, this.fixed('cudaLaunchHostFunc'), p.hostFuncCallNs, s.stream, 0);
    const op = device.issue(
      OP_HOST_FUNC,
      this.b.strings.id(s.name),
      c,
      s.stream,
      this.gate(now, p.hostFuncCallNs),
      ON_NONE,
      ns(p.hostFuncGapNs) + ns(s.ns),
      0,
      0,
      true,
    );
    device.submit(op, now);
    this.afterStreamOp(t, now + ns(p.hostFuncCallNs));
  }

  private copy(t: Thread, s: StepOf<'copy'>, now: number): void {
    // A synchronous copy's stream is the thread's default stream on its current device.
    const stream = s.stream;
    if (this.queueFull(t, now, stream)) return;
    const { p, program } = this;
    const src = program.buffers[s.src];
    const dst = program.buffers[s.dst];
    const host = s.direction === 'HtoD' ? src : s.direction === 'DtoH' ? dst : s.direction === 'HtoH' ? src : undefined;
    const pageable = host?.host === 'pageable';
    const on =
      s.direction === 'HtoD' ? ON_HTOD : s.direction === 'DtoH' ? ON_DTOH : s.direction === 'PtoP' ? ON_PEER : ON_NONE;
    const rate =
      s.direction === 'HtoD'
        ? pageable
          ? p.pageableHtoDGBps
          : p.pinnedHtoDGBps
        : s.direction === 'DtoH'
          ? pageable
            ? p.pageableDtoHGBps
            : p.pinnedDtoHGBps
          : s.direction === 'DtoD'
            ? p.dtoDGBps
            : s.direction === 'PtoP'
              ? p.peerGBps
              : p.hostCopyGBps;
    // Pageable memory goes through staging buffers that the host itself fills or drains, so the
    // call returns when that is done (no wake-up), and small copies cost a fixed latency.
    const hostDriven = pageable || s.direction === 'HtoH';
    const latency = !pageable
      ? 0
      : s.direction === 'HtoD'
        ? p.pageableHtoDLatencyNs
        : s.direction === 'DtoH'
          ? p.pageableDtoHLatencyNs
          : 0;
    const blocks = copyBlocksHost(s.direction, s.async, host?.host);
    const c = this.workCall(
      t,
      s,
      now,
      MEMCPY,
      this.fixed(s.async ? 'cudaMemcpyAsync' : 'cudaMemcpy'),
      p.copyCallNs,
      stream,
      s.bytes,
    );
    // S17: pageable host-to-device data is staged by the host inside the call, which returns once it
    // is staged, so it does not wait for a submission to reach the GPU (a small one costs less than
    // an async call plus the GPU's submit latency).
    const staged = pageable && s.direction === 'HtoD';
    const gate = staged ? now + ns(p.copyCallNs) : this.gate(now, p.copyCallNs);
    const op = this.device.issue(
      OP_MEMCPY,
      this.copyName(s),
      c,
      stream,
      gate,
      on,
      s.ns !== undefined ? ns(s.ns) : ns(latency + s.bytes / rate),
      0,
      0,
      true,
    );
    if (on === ON_PEER) this.device.peer(op, src.device ?? 0, dst.device ?? 0);
    const ops = this.b.ops.cols;
    ops.bytes[op] = s.bytes;
    ops.copy[op] = COPY_KINDS.indexOf(s.direction);
    if (host?.host) ops.hostMemory[op] = HOST_MEMORY.indexOf(host.host);
    this.access(op, s.src, false);
    this.access(op, s.dst, true);
    this.device.submit(op, now);
    const issued = now + ns(p.copyCallNs);
    if (blocks) return this.blockOn(t, c, op, stream, issued, hostDriven);
    return this.afterStreamOp(t, issued);
  }

  /** Whether a host wait on `gpu` sleeps: its schedule (S15), which each device sets for itself. */
  private sleeps(gpu: number): boolean {
    return this.program.devices[gpu].schedule === 'blockingSync';
  }

  /** S19: with `stream`'s launch queue full, the thread waits (in this same step) until an op there starts. */
  private queueFull(t: Thread, now: number, stream: number): boolean {
    const queue = this.device.queueOf[stream];
    if (this.device.queued[queue] < this.p.queueDepth) return false;
    if (t.queueSince < 0) t.queueSince = now;
    this.roomWaiters[queue].push(t.id);
    return true;
  }

  /** A new call row: where, when and what; the caller fills in what the call says beyond that. */
  private call(t: Thread, s: Step, begin: number, kind: number, name: number, cost: number): number {
    const calls = this.b.calls;
    const c = calls.add();
    const col = calls.cols;
    col.lane[c] = t.lane;
    col.kind[c] = kind;
    col.begin[c] = begin - t.beginShift;
    col.end[c] = begin + ns(cost);
    t.beginShift = 0;
    col.name[c] = name;
    col.stream[c] = -1;
    col.releasedBy[c] = RELEASED_NONE;
    col.unblockNs[c] = NaN;
    col.value[c] = NaN;
    col.step[c] = t.pc;
    col.line[c] = s.pos.line;
    col.column[c] = s.pos.column;
    return c;
  }

  /** A call that takes a launch-queue entry: if it had to wait for room, that wait is its blocked time. */
  private workCall(
    t: Thread,
    s: Step,
    now: number,
    kind: number,
    name: number,
    cost: number,
    stream: number,
    bytes: number,
  ): number {
    const since = t.queueSince;
    const c = this.call(t, s, since < 0 ? now : since, kind, name, cost);
    const cols = this.b.calls.cols;
    cols.stream[c] = this.streamLane[stream];
    if (bytes) cols.bytes[c] = bytes;
    if (since < 0) return c;
    cols.end[c] = now + ns(cost);
    cols.blockedNs[c] = now - since;
    // S19 names the op that completed last before room freed, even one that completed before this
    // call began to wait. A marker stands for the work that completed with it, by the rule every
    // wait follows, as for a wait that began just before it completed (times are whole ns).
    const cause = t.roomCause;
    if (cause >= 0) this.releases.settle(c, this.releases.named(cause, this.b.ops.cols.end[cause] - 1));
    t.queueSince = -1;
    t.roomCause = -1;
    return c;
  }

  /** When the GPU may start an op issued at `now` by a call costing `cost`. */
  private gate(now: number, cost: number): number {
    return now + ns(cost) + ns(this.p.submitNs);
  }

  /**
   * A call that blocks until the op it issued completes. Its blocked time is the whole call, as the
   * GPU recorder sees it: the host is inside the call from its begin to its return.
   */
  private blockOn(t: Thread, call: number, op: number, stream: number, issued: number, hostDriven: boolean): void {
    t.awaited[0] = op;
    t.awaitedCount = 1;
    const wake = hostDriven ? 0 : this.wakeNs(this.device.deviceOf[stream]);
    this.block(t, call, wake, this.b.calls.cols.begin[call], issued, this.afterNs(t));
  }

  /** From an awaited op's end to the host's return: spinning, or asleep under the device's schedule (S15) or a blocking-sync event. */
  private wakeNs(gpu: number, blockingEvent = false): number {
    return this.sleeps(gpu) ? this.p.scheduleSleepWakeNs : blockingEvent ? this.p.sleepWakeNs : this.p.spinWakeNs;
  }

  /**
   * A host wait (S12 to S16) on the thread's `awaited` ops: returns `wake` after the last of them
   * completes, or at `minEnd` if none is pending. The call's blocked time counts from `from`.
   */
  private block(t: Thread, call: number, wakeNs: number, from: number, minEnd: number, after = 0): void {
    let pending = 0;
    for (let i = 0; i < t.awaitedCount; i++) if (this.device.awaitOp(t.awaited[i], t.id)) pending++;
    if (pending === 0) {
      this.b.calls.cols.end[call] = minEnd;
      return this.next(t, minEnd + ns(after));
    }
    t.call = call;
    t.pending = pending;
    t.from = from;
    t.minEnd = minEnd;
    t.wake = ns(wakeNs);
    t.after = ns(after);
  }

  /** The next step after a call that issued stream work returned at `at`. */
  private afterStreamOp(t: Thread, at: number): void {
    this.next(t, at + this.afterNs(t));
  }

  /** The host time after a call that issued stream work, before the thread's next step; each call takes its cold part once. */
  private afterNs(t: Thread): number {
    const cold = t.afterCold;
    t.afterCold /= 2;
    return ns(this.p.afterStreamOpNs + cold);
  }

  private next(t: Thread, at: number): void {
    t.pc++;
    if (t.pc < t.decl.steps.length) this.agenda.push(at, HOST, STEP, t.id);
  }

  // ---- Names, interned once each -----------------------------------------------------------

  private fixed(name: Name): number {
    const i = NAMES.indexOf(name);
    return this.fixedIds[i] || (this.fixedIds[i] = this.b.strings.id(name));
  }

  private eventId(e: number): number {
    return this.eventIds[e] || (this.eventIds[e] = this.b.strings.id(this.program.events[e].name));
  }

  private markerName(ids: Int32Array, verb: string, e: number): number {
    return ids[e] || (ids[e] = this.b.strings.id(`${verb} ${this.program.events[e].name}`));
  }

  private memsetName(buffer: number): number {
    return (
      this.memsetIds[buffer] ||
      (this.memsetIds[buffer] = this.b.strings.id(`memset ${this.program.buffers[buffer].name}`))
    );
  }

  private copyName(s: StepOf<'copy'>): number {
    const key = s.src * this.program.buffers.length + s.dst;
    let id = this.copyIds.get(key);
    if (id === undefined) {
      const { buffers } = this.program;
      id = this.b.strings.id(`${s.direction} ${buffers[s.src].name} -> ${buffers[s.dst].name}`);
      this.copyIds.set(key, id);
    }
    return id;
  }

  private access(op: number, buffer: number, write: boolean): void {
    const a = this.b.accesses;
    const i = a.add();
    a.cols.op[i] = op;
    a.cols.buffer[i] =
      this.bufferIds[buffer] || (this.bufferIds[buffer] = this.b.strings.id(this.program.buffers[buffer].name));
    if (write) a.cols.write[i] = 1;
  }
}

/**
 * Row counts to size the trace's tables once: every step makes one call and at most one op, so
 * those are exact; edges get an upper bound, since a table that regrows copies itself.
 */
function expectedRows(
  program: Program,
  p: SimProfile,
): { calls: number; ops: number; edges: number; accesses: number } {
  let ops = 0;
  let accesses = 0;
  let waits = 0;
  let mayBlock = 0;
  let work = 0;
  let legacyOps = 0;
  let blockingOps = 0;
  for (const t of program.threads) {
    for (const s of t.steps) {
      let stream = -1;
      switch (s.op) {
        case 'launch':
          accesses += s.reads.length + s.writes.length + (s.touch === undefined ? 0 : 2);
          stream = s.stream;
          work++;
          break;
        case 'copy':
          accesses += 2;
          stream = s.stream;
          work++;
          mayBlock++;
          break;
        case 'memset':
          accesses += 1;
          stream = s.stream;
          work++;
          mayBlock++;
          break;
        case 'hostFunc':
          stream = s.stream;
          work++;
          break;
        case 'record':
          stream = s.stream;
          work++;
          break;
        case 'wait':
          stream = s.stream;
          waits++;
          break;
        case 'eventSync':
        case 'streamSync':
        case 'deviceSync':
          mayBlock++;
          break;
      }
      if (stream < 0) continue;
      ops++;
      if (program.streams[stream].legacyDefault) legacyOps++;
      else if (!program.streams[stream].nonBlocking) blockingOps++;
    }
  }
  const blockingStreams = program.streams.filter((s) => !s.legacyDefault && !s.nonBlocking).length;
  // launch and stream edges, event edges, S3 edges (none without legacy work), and at most one
  // release per call that can block, which is every work call once the launch queue can fill.
  const legacyEdges = legacyOps ? legacyOps * blockingStreams + blockingOps : 0;
  const releases = mayBlock + (work > p.queueDepth ? work : 0);
  return { calls: program.stepCount, ops, edges: 2 * ops + waits + legacyEdges + releases + 16, accesses };
}

/** The agenda's kind for a host thread's next step; the device's kinds are 0 to 2. */
const STEP = 3;
