// The simulator: runs a compiled Program against a cost model and returns the Trace that a GPU
// run would have produced. It is a discrete-event simulation: host threads execute their steps in
// program order, each API call costing host time, and the Device runs what they issue. Ordering
// follows SEMANTICS.md exactly; timing follows the profile (docs/simulator.md says how closely).
import type { BufferDecl, Program, Step, ThreadDecl } from '../scenario/program';
import { RELEASED_NONE, TraceBuilder, type CallInit, type CallKind, type Trace } from '../trace/model';
import { Device, ENGINE_DTOH, ENGINE_HTOD, type HostSide, type OpArgs, type Work } from './device';
import { h200, type SimProfile } from './profile';
import { Agenda, HOST } from './queue';

/** What a call says beyond where and when. */
type CallArgs = Pick<CallInit, 'stream' | 'event' | 'event2' | 'answer' | 'status' | 'value' | 'bytes'>;

interface Thread {
  id: number;
  decl: ThreadDecl;
  lane: number;
  pc: number;
  /** While blocked in a wait: the call, how many awaited ops are still pending, and how it returns. */
  call: number;
  pending: number;
  from: number;
  minEnd: number;
  wake: number;
  /** While a launch waits for room in the launch queue (S19): since when, and what made room. */
  queueSince: number;
  roomCause: number;
}

export function simulate(program: Program, profile: SimProfile = h200): Trace {
  return new Simulation(program, profile).run();
}

const ns = (x: number): number => Math.max(0, Math.round(x));

class Simulation implements HostSide {
  private readonly b: TraceBuilder;
  private readonly agenda = new Agenda();
  private readonly device: Device;
  private readonly threads: Thread[];
  private readonly streamLane: number[];
  /** Per event, the eventRecord op of its current record, or -1 (S7, S9). */
  private readonly current: number[];
  private readonly roomWaiters: number[] = [];

  constructor(private readonly program: Program, private readonly p: SimProfile) {
    const rows = expectedRows(program);
    this.b = new TraceBuilder(undefined, rows);
    const threadLane = program.threads.map((t) => this.b.lane({ kind: 'thread', name: t.name, device: 0 }));
    this.streamLane = program.streams.map((s) => this.b.lane({
      kind: 'stream', name: s.name, device: 0, nonBlocking: s.nonBlocking, priority: s.priority,
      legacyDefault: s.legacyDefault, perThreadDefault: s.perThreadDefault,
      thread: s.thread === undefined ? undefined : threadLane[s.thread],
    }));
    this.threads = program.threads.map((decl, i) => ({
      id: i, decl, lane: threadLane[i], pc: 0, call: -1, pending: 0, from: 0, minEnd: 0, wake: 0, queueSince: -1, roomCause: -1,
    }));
    this.current = program.events.map(() => -1);
    this.device = new Device(this.b, this.agenda, p, program.streams, this.streamLane, this, rows.ops);
  }

  run(): Trace {
    const { agenda, device } = this;
    this.threads.forEach((t, i) => { if (t.decl.steps.length) agenda.push(0, HOST, STEP, i); });
    const e = [0, 0, 0, 0];
    let now = 0;
    for (;;) {
      // Kernels that became ready at `now` compete for SM slots together, so place them only once
      // everything that happens on the GPU at `now` has happened.
      if (device.dispatchPending && (agenda.size === 0 || agenda.topKey() > now * 2)) {
        device.dispatch(now);
        continue;
      }
      if (agenda.size === 0) break;
      agenda.pop(e);
      now = e[0];
      if (e[1] === STEP) this.step(this.threads[e[2]], now);
      else device.handle(e[1], e[2], e[3], now);
    }
    const stuck = this.threads.find((t) => t.pc < t.decl.steps.length);
    if (stuck) throw new Error(`simulator stalled: thread "${stuck.decl.name}" never finished step ${stuck.pc}`);
    const { program: pr, p } = this;
    return this.b.finish({
      source: 'simulator',
      device: { name: p.deviceName, sms: p.sms },
      clock: 'simulated',
      alignmentErrorNs: 0,
      scenario: pr.file === undefined ? { name: pr.name } : { name: pr.name, file: pr.file },
      profile: p.name,
    });
  }

  // ---- HostSide ----------------------------------------------------------------------------

  released(thread: number, op: number, now: number): void {
    const t = this.threads[thread];
    if (--t.pending > 0) return;
    const end = Math.max(t.minEnd, now + t.wake);
    const c = this.b.calls.cols;
    c.end[t.call] = end;
    c.blockedNs[t.call] = end - t.from;
    c.releasedBy[t.call] = op;
    c.unblockNs[t.call] = end - now;
    this.b.edge('release', op, t.call);
    this.next(t, end);
  }

  roomFreed(now: number): void {
    if (this.roomWaiters.length === 0) return;
    const t = this.threads[this.roomWaiters.shift() as number];
    t.roomCause = this.device.lastCompleted;
    this.agenda.push(now, HOST, STEP, t.id);
  }

  // ---- Host threads ------------------------------------------------------------------------

  private step(t: Thread, now: number): void {
    const s = t.decl.steps[t.pc];
    const { p, device } = this;
    switch (s.op) {
      case 'launch': {
        if (this.queueFull(t, now)) return;
        const touch = s.touch === undefined ? undefined : this.program.buffers[s.touch];
        const run = touch ? (2 * touch.bytes) / p.memoryGBps : s.ns ?? 0;
        const c = this.workCall(t, s, now, 'launch', 'cudaLaunchKernel', p.launchNs, s.stream);
        const op = this.issue(c, s.stream, p.launchNs, now, { kind: 'kernel', name: s.name, grid: s.grid, block: s.block, bytes: touch?.bytes },
          { on: 'sms', grid: s.grid, block: s.block, blockNs: ns(run) + ns(p.kernelOverheadNs) }, true);
        for (const r of s.reads) this.b.access(op, this.program.buffers[r].name, false);
        if (touch) this.b.access(op, touch.name, false);
        for (const w of s.writes) this.b.access(op, this.program.buffers[w].name, true);
        if (touch) this.b.access(op, touch.name, true);
        device.submit(op, now);
        return this.next(t, now + ns(p.launchNs));
      }
      case 'record': {
        const ev = this.program.events[s.event];
        const cost = ev.timing ? p.recordTimingNs : p.recordNoTimingNs;
        const c = this.call(t, s, now, 'record', 'cudaEventRecord', cost, { stream: this.streamLane[s.stream], event: ev.name });
        const op = this.issue(c, s.stream, cost, now, { kind: 'eventRecord', name: `record ${ev.name}`, event: ev.name }, { on: 'none', ns: 0 }, false);
        this.current[s.event] = op;
        device.submit(op, now);
        return this.next(t, now + ns(cost));
      }
      case 'wait': {
        const ev = this.program.events[s.event];
        const c = this.call(t, s, now, 'streamWait', 'cudaStreamWaitEvent', p.streamWaitNs, { stream: this.streamLane[s.stream], event: ev.name });
        const op = this.issue(c, s.stream, p.streamWaitNs, now, { kind: 'waitEvent', name: `wait ${ev.name}`, event: ev.name }, { on: 'none', ns: 0 }, false);
        // S7, S8: the wait binds to the record current now; S9: with none, it waits for nothing.
        const rec = this.current[s.event];
        if (rec >= 0) device.waitFor(op, rec);
        device.submit(op, now);
        return this.next(t, now + ns(p.streamWaitNs));
      }
      case 'query': {
        const rec = this.current[s.event];
        const ready = rec < 0 || device.isDone(rec);
        this.call(t, s, now, 'query', 'cudaEventQuery', p.queryNs, {
          event: this.program.events[s.event].name, answer: ready ? 'ready' : 'notReady', status: ready ? undefined : 'cudaErrorNotReady',
        });
        return this.next(t, now + ns(p.queryNs));
      }
      case 'eventSync': {
        const ev = this.program.events[s.event];
        const c = this.call(t, s, now, 'eventSync', 'cudaEventSynchronize', p.syncNs, { event: ev.name });
        const rec = this.current[s.event];
        const sleeps = this.program.device.schedule === 'blockingSync' || ev.blockingSync;
        return this.block(t, c, rec >= 0 ? [rec] : [], sleeps, now, now + ns(p.syncNs));
      }
      case 'streamSync': {
        const c = this.call(t, s, now, 'streamSync', 'cudaStreamSynchronize', p.syncNs, { stream: this.streamLane[s.stream] });
        const last = device.lastOp[s.stream];
        return this.block(t, c, last >= 0 ? [last] : [], this.sleeps(), now, now + ns(p.syncNs));
      }
      case 'deviceSync': {
        const c = this.call(t, s, now, 'deviceSync', 'cudaDeviceSynchronize', p.syncNs, {});
        return this.block(t, c, device.lastOp.filter((o) => o >= 0), this.sleeps(), now, now + ns(p.syncNs));
      }
      case 'elapsed': {
        const { events } = this.program;
        const a = this.current[s.from];
        const z = this.current[s.to];
        // S11. The handle check comes first: on the H200 a disable-timing event gave
        // cudaErrorInvalidResourceHandle even when both records had completed.
        const status = !events[s.from].timing || !events[s.to].timing || a < 0 || z < 0 ? 'cudaErrorInvalidResourceHandle'
          : !device.isDone(a) || !device.isDone(z) ? 'cudaErrorNotReady' : undefined;
        const r = ns(p.elapsedResolutionNs);
        const value = status ? undefined : (Math.round((device.end(z) - device.end(a)) / r) * r) / 1e6;
        this.call(t, s, now, 'elapsed', 'cudaEventElapsedTime', p.elapsedNs, {
          event: events[s.from].name, event2: events[s.to].name, value, status, answer: status ? 'error' : undefined,
        });
        return this.next(t, now + ns(p.elapsedNs));
      }
      case 'copy':
        return this.copy(t, s, now);
      case 'memset': {
        if (this.queueFull(t, now)) return;
        const buf = this.program.buffers[s.buffer];
        const stream = s.async ? s.stream : t.decl.defaultStream;
        const c = this.workCall(t, s, now, 'memset', s.async ? 'cudaMemsetAsync' : 'cudaMemset', p.memsetCallNs, stream, s.bytes);
        const rate = buf.host ? p.hostCopyGBps : p.memoryGBps;
        const op = this.issue(c, stream, p.memsetCallNs, now, { kind: 'memset', name: `memset ${buf.name}`, bytes: s.bytes, hostMemory: buf.host },
          { on: 'none', ns: ns(s.bytes / rate) }, true);
        this.b.access(op, buf.name, true);
        device.submit(op, now);
        // cudaMemset returns at once for device memory; on host memory it is a blocking call.
        if (!s.async && buf.host) return this.block(t, c, [op], this.sleeps(), now + ns(p.memsetCallNs), now + ns(p.memsetCallNs));
        return this.next(t, now + ns(p.memsetCallNs));
      }
      case 'hostWork': {
        this.call(t, s, now, 'hostWork', 'hostWork', s.ns, {});
        return this.next(t, now + ns(s.ns));
      }
      case 'hostFunc': {
        if (this.queueFull(t, now)) return;
        const c = this.workCall(t, s, now, 'hostFunc', 'cudaLaunchHostFunc', p.hostFuncCallNs, s.stream);
        const op = this.issue(c, s.stream, p.hostFuncCallNs, now, { kind: 'hostFunc', name: s.name },
          { on: 'none', ns: ns(p.hostFuncGapNs) + ns(s.ns) }, true);
        device.submit(op, now);
        return this.next(t, now + ns(p.hostFuncCallNs));
      }
    }
  }

  private copy(t: Thread, s: Extract<Step, { op: 'copy' }>, now: number): void {
    if (this.queueFull(t, now)) return;
    const { p, program } = this;
    const src = program.buffers[s.src];
    const dst = program.buffers[s.dst];
    const stream = s.async ? s.stream : t.decl.defaultStream;
    const host: BufferDecl | undefined = s.direction === 'HtoD' ? src : s.direction === 'DtoH' ? dst : s.direction === 'HtoH' ? src : undefined;
    const pageable = host?.host === 'pageable';
    const work: Work =
      s.direction === 'HtoD' ? { on: 'engine', engine: ENGINE_HTOD, ns: ns(s.bytes / (pageable ? p.pageableHtoDGBps : p.pinnedHtoDGBps)) }
      : s.direction === 'DtoH' ? { on: 'engine', engine: ENGINE_DTOH, ns: ns(s.bytes / (pageable ? p.pageableDtoHGBps : p.pinnedDtoHGBps)) }
      : { on: 'none', ns: ns(s.bytes / (s.direction === 'DtoD' ? p.dtoDGBps : p.hostCopyGBps)) };
    // S17: an async copy to or from pageable memory is synchronous for the host; S18: cudaMemcpy
    // blocks too, except device to device.
    const blocks = s.direction === 'HtoH' || (s.async ? pageable : s.direction !== 'DtoD');
    const c = this.workCall(t, s, now, 'memcpy', s.async ? 'cudaMemcpyAsync' : 'cudaMemcpy', p.copyCallNs, stream, s.bytes);
    const op = this.issue(c, stream, p.copyCallNs, now, {
      kind: 'memcpy', name: `${s.direction} ${src.name} -> ${dst.name}`, bytes: s.bytes, copy: s.direction, hostMemory: host?.host,
    }, work, true);
    this.b.access(op, src.name, false);
    this.b.access(op, dst.name, true);
    this.device.submit(op, now);
    const issued = now + ns(p.copyCallNs);
    if (blocks) return this.block(t, c, [op], this.sleeps(), issued, issued);
    return this.next(t, issued);
  }

  private sleeps(): boolean {
    return this.program.device.schedule === 'blockingSync';
  }

  /** S19: with the launch queue full, the thread waits (in this same step) until an op starts. */
  private queueFull(t: Thread, now: number): boolean {
    if (this.device.queued < this.p.queueDepth) return false;
    if (t.queueSince < 0) t.queueSince = now;
    this.roomWaiters.push(t.id);
    return true;
  }

  private call(t: Thread, s: Step, begin: number, kind: CallKind, name: string, cost: number, x: CallArgs): number {
    // One object shape for every call (no spread): this runs a million times in a large scenario.
    return this.b.call({
      lane: t.lane, kind, name, begin, end: begin + ns(cost), step: s.index, line: s.pos.line, column: s.pos.column,
      stream: x.stream, event: x.event, event2: x.event2, answer: x.answer, status: x.status, value: x.value, bytes: x.bytes,
    });
  }

  /** A call that issues work: if it had to wait for room in the launch queue, that wait is its blocked time. */
  private workCall(t: Thread, s: Step, now: number, kind: CallKind, name: string, cost: number, stream: number, bytes?: number): number {
    const since = t.queueSince;
    const c = this.call(t, s, since < 0 ? now : since, kind, name, cost, { stream: this.streamLane[stream], bytes });
    if (since < 0) return c;
    const cols = this.b.calls.cols;
    cols.end[c] = now + ns(cost);
    cols.blockedNs[c] = now - since;
    if (t.roomCause >= 0) {
      cols.releasedBy[c] = t.roomCause;
      cols.unblockNs[c] = cols.end[c] - this.device.end(t.roomCause);
      this.b.edge('release', t.roomCause, c);
    }
    t.queueSince = -1;
    t.roomCause = -1;
    return c;
  }

  private issue(call: number, stream: number, cost: number, now: number, init: OpArgs, work: Work, counts: boolean): number {
    return this.device.issue(init, call, stream, now + ns(cost) + ns(this.p.submitNs), work, counts);
  }

  /**
   * A host wait (S12 to S16): returns `wake` after the last of `ops` completes, or at `minEnd` if
   * none is pending. The call's blocked time counts from `from`.
   */
  private block(t: Thread, call: number, ops: number[], sleeps: boolean, from: number, minEnd: number): void {
    let pending = 0;
    for (const op of ops) if (this.device.awaitOp(op, t.id)) pending++;
    if (pending === 0) {
      this.b.calls.cols.end[call] = minEnd;
      this.b.calls.cols.releasedBy[call] = RELEASED_NONE;
      return this.next(t, minEnd);
    }
    Object.assign(t, { call, pending, from, minEnd, wake: ns(sleeps ? this.p.sleepWakeNs : this.p.spinWakeNs) });
  }

  private next(t: Thread, at: number): void {
    t.pc++;
    if (t.pc < t.decl.steps.length) this.agenda.push(at, HOST, STEP, t.id);
  }
}

/** Row counts to size the trace's tables once: every step makes one call and at most one op. */
function expectedRows(program: Program): { calls: number; ops: number; edges: number; accesses: number } {
  let ops = 0;
  let accesses = 0;
  for (const t of program.threads) {
    for (const s of t.steps) {
      if (s.op === 'launch') accesses += s.reads.length + s.writes.length + (s.touch === undefined ? 0 : 2);
      else if (s.op === 'copy') accesses += 2;
      else if (s.op === 'memset') accesses += 1;
      else if (s.op !== 'record' && s.op !== 'wait' && s.op !== 'hostFunc') continue;
      ops++;
    }
  }
  // launch and stream edges for nearly every op; event, legacy and release edges are fewer.
  return { calls: program.stepCount, ops, edges: 2 * ops + program.stepCount - ops + 16, accesses };
}

/** The agenda's kind for a host thread's next step; the device's kinds are 0 to 2. */
const STEP = 3;
