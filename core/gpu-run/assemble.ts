// Builds the Trace of a GPU run from the native runtime's raw records: host timestamps, event
// times and %globaltimer stamps, with device times mapped into the host clock (align.ts). Lanes,
// names, edges and wait explanations follow the same conventions as the simulator, so that the two
// can be compared op for op.
import type { Program, Step } from '../scenario/program';
import { copyBlocksHost, TraceBuilder, type CallInit, type CallKind, type Trace, type TraceMeta } from '../trace/model';
import { ReleaseRule } from '../trace/release';
import { LaneOrder } from '../trace/lane-order';
import { clockMap, splitCalibration, splitDevices, type ClockMap } from './align';
import { RECORD_WIDTH, REC, stepDevice, threadOffsets } from './encode';
import {
  gpuLatency,
  latencyNotes,
  queuedBehind,
  SpanPlacer,
  splitLatency,
  type GpuLatency,
  type SpanKind,
} from './spans';

export interface RawRun {
  records: Float64Array;
  calibration: Float64Array;
  device: { name: string; sms: number; computeCapability: string; cudaDriverVersion: number; index?: number };
  /** Every device of a multi-device run, in device-number order (S21). */
  devices?: { device: number; name: string; sms: number; index?: number }[];
  /** The kernel driver's version ("580.95.05"), where the runner could read it. */
  driver?: string;
}

/** cudaEventElapsedTime's resolution: brackets of event times are widened by half of it. */
const EVENT_RESOLUTION_NS = 500;

/** CUresult codes that a scenario meets as answers, by their CUDA runtime names (as PyTorch shows them). */
const RUNTIME_NAMES: Record<number, string> = {
  1: 'cudaErrorInvalidValue',
  400: 'cudaErrorInvalidResourceHandle',
  600: 'cudaErrorNotReady',
};
export const statusName = (code: number): string => RUNTIME_NAMES[code] ?? `CUresult ${code}`;

type StepOf<K extends Step['op']> = Extract<Step, { op: K }>;

interface Issued {
  g: number;
  thread: number;
  /** The step's index in its thread. */
  index: number;
  step: Step;
}

interface DeviceClocks {
  events: ClockMap;
  timer: ClockMap;
  latency: GpuLatency;
  block: Float64Array;
}

/** Each GPU's clocks, from its own calibration block: GPUs do not share a clock (S21). */
function deviceClocks(program: Program, calibration: Float64Array): DeviceClocks[] {
  const blocks = splitDevices(calibration);
  const used = program.devices.filter((d) => d.used).map((d) => d.id);
  const out: DeviceClocks[] = [];
  blocks.forEach((block, k) => {
    const cal = splitCalibration(block);
    const events = clockMap(cal.events[0], cal.events[1], EVENT_RESOLUTION_NS);
    const timer = clockMap(cal.timer[0], cal.timer[1]);
    out[used[k] ?? k] = { events, timer, latency: gpuLatency(splitLatency(block), events, timer), block };
  });
  // A runtime that calibrated fewer devices than the scenario uses left them on the first one's clock.
  return program.devices.map((d) => out[d.id] ?? out[used[0] ?? 0] ?? out.find(Boolean)!);
}

export function assembleTrace(program: Program, raw: RawRun): Trace {
  const clocks = deviceClocks(program, raw.calibration);
  const issued = issuedInHostOrder(program, raw.records);
  const a = new Assembler(program, raw, clocks, issued);
  for (const i of issued) a.step(i);
  return a.b.finish(traceMeta(program, raw, clocks));
}

const recordAt = (r: Float64Array, g: number, k: number): number => r[g * RECORD_WIDTH + k];

/**
 * The steps the runtime did issue. Host order is issue order, across threads too: it decides
 * stream order and which record a wait or synchronize binds to (S7).
 */
function issuedInHostOrder(program: Program, r: Float64Array): Issued[] {
  const offsets = threadOffsets(program);
  const issued: Issued[] = [];
  program.threads.forEach((t, ti) =>
    t.steps.forEach((step, i) => {
      const g = offsets[ti] + i;
      if (recordAt(r, g, REC.done) === 1) issued.push({ g, thread: ti, index: i, step });
    }),
  );
  issued.sort((a, b) => recordAt(r, a.g, REC.hostBegin) - recordAt(r, b.g, REC.hostBegin) || a.g - b.g);
  return issued;
}

type OpFields = Omit<Parameters<TraceBuilder['op']>[0], 'lane' | 'start' | 'end' | 'call'>;

/** One issued step with its host times and the %globaltimer clock of its device. */
interface At extends Issued {
  begin: number;
  end: number;
  timer: ClockMap;
}

/** Builds the trace's lanes, then each issued step's call, op, accesses, edges and release. */
class Assembler {
  readonly b = new TraceBuilder();
  /** Lanes and calls carry CUDA's device numbers: the scenario's device d ran on CUDA device base + d. */
  private readonly base: number;
  private readonly origin: number;
  private readonly threadLane: number[];
  private readonly streamLane: number[];
  private readonly order: LaneOrder;
  private readonly spans: SpanPlacer;
  private readonly endOf: Map<number, { at: number; queuedSince: number }>;
  private readonly releases: ReleaseRule;
  /** Per event, the eventRecord op of its current record, or -1 (S7). */
  private readonly current: number[];

  constructor(
    private readonly program: Program,
    private readonly raw: RawRun,
    private readonly clocks: DeviceClocks[],
    issued: Issued[],
  ) {
    const { b } = this;
    this.base = raw.device.index ?? 0;
    this.origin = issued.length ? this.at(issued[0].g, REC.hostBegin) : 0;
    this.threadLane = program.threads.map((t) => b.lane({ kind: 'thread', name: t.name, device: this.base }));
    this.streamLane = program.streams.map((s) =>
      b.lane({
        kind: 'stream',
        name: s.name,
        device: this.base + s.device,
        nonBlocking: s.nonBlocking,
        priority: s.priority,
        legacyDefault: s.legacyDefault,
        perThreadDefault: s.perThreadDefault,
        thread: s.thread === undefined ? undefined : this.threadLane[s.thread],
      }),
    );
    this.order = new LaneOrder(b);
    this.spans = new SpanPlacer(
      program.streams,
      clocks.map((c) => c.latency),
    );
    this.endOf = this.opEnds(issued);
    this.releases = new ReleaseRule(b, Math.max(0, ...clocks.map((c) => c.latency.kernelToEventNs)));
    this.current = program.events.map(() => -1);
  }

  /**
   * Every stream op's end event, first: whether one queued behind another stream's (queuedBehind)
   * depends on events issued after it too.
   */
  private opEnds(issued: Issued[]): Map<number, { at: number; queuedSince: number }> {
    const { program, clocks } = this;
    const ended = issued.flatMap(({ g, step: s }) => {
      const t = this.device(clocks[Math.max(0, stepDevice(program, s))].events, this.at(g, REC.gpuEnd));
      return 'stream' in s && Number.isFinite(t) ? [{ g, stream: s.stream, at: t }] : [];
    });
    const queued = queuedBehind(ended, program.streams, (d) => clocks[d].latency);
    return new Map(ended.map((e, i) => [e.g, { at: e.at, queuedSince: queued[i] }]));
  }

  private at(g: number, k: number): number {
    return recordAt(this.raw.records, g, k);
  }

  private host(v: number): number {
    return Math.round(v - this.origin);
  }

  private device(map: ClockMap, v: number): number {
    return Number.isFinite(v) ? Math.round(map.toHost(v) - this.origin) : NaN;
  }

  private eventName(e: number): string {
    return this.program.events[e].name;
  }

  step(issue: Issued): void {
    const s = issue.step;
    const x: At = {
      ...issue,
      begin: this.host(this.at(issue.g, REC.hostBegin)),
      end: this.host(this.at(issue.g, REC.hostEnd)),
      timer: this.clocks[Math.max(0, stepDevice(this.program, s))].timer,
    };
    switch (s.op) {
      case 'launch':
        return this.launch(x, s);
      case 'record':
        return this.record(x, s);
      case 'wait':
        return this.streamWait(x, s);
      case 'query':
        return this.query(x, s);
      case 'eventSync':
        return this.eventSync(x, s);
      case 'streamSync':
        return this.streamSync(x, s);
      case 'deviceSync':
        return this.deviceSync(x, s);
      case 'setDevice':
        this.call(x, 'api', 'cudaSetDevice', { device: this.base + s.device });
        return;
      case 'elapsed':
        return this.elapsed(x, s);
      case 'copy':
        return this.copy(x, s);
      case 'memset':
        return this.memset(x, s);
      case 'hostWork':
        this.call(x, 'hostWork', 'hostWork');
        return;
      case 'hostFunc':
        return this.hostFunc(x, s);
    }
  }

  private call(x: At, kind: CallKind, api: string, init: Partial<CallInit> = {}): number {
    const s = x.step;
    return this.b.call({
      ...init,
      lane: this.threadLane[x.thread],
      kind,
      name: api,
      begin: x.begin,
      end: x.end,
      step: x.index,
      line: s.pos.line,
      column: s.pos.column,
    });
  }

  private op(x: At, c: number, stream: number, init: OpFields, blocking: boolean, lengthNs?: number): number {
    const { b, streamLane } = this;
    const { begin, end } = x;
    const ev = this.endOf.get(x.g);
    const kind: SpanKind =
      init.kind === 'kernel'
        ? 'kernel'
        : init.kind === 'memcpy'
          ? 'copy'
          : init.kind === 'eventRecord' || init.kind === 'waitEvent'
            ? 'marker'
            : 'work';
    let { start, end: stop } = ev
      ? this.spans.place(stream, kind, begin, end, ev.at, ev.queuedSince, lengthNs)
      : { start: end, end };
    // The end event of a call that blocks until its op completes can only be recorded after the
    // call returns, so it overstates the op's end: the return bounds it.
    if (blocking) stop = Math.min(stop, end);
    start = Math.min(start, stop);
    const id = b.op({
      ...init,
      lane: streamLane[stream],
      start,
      end: stop,
      call: c,
      truthStart: this.device(x.timer, this.at(x.g, REC.truthStart)),
      truthEnd: this.device(x.timer, this.at(x.g, REC.truthEnd)),
    });
    b.edge('launch', c, id);
    this.order.issue(streamLane[stream], id);
    return id;
  }

  /** A host wait on `awaited` ops (S12 to S16): the shared rule names the op that released it. */
  private release(call: number, awaited: number[]): void {
    const { cols } = this.b.calls;
    if (this.releases.release(call, awaited) >= 0) cols.blockedNs[call] = cols.end[call] - cols.begin[call];
  }

  private launch(x: At, s: StepOf<'launch'>): void {
    const { b, program } = this;
    const touch = s.touch === undefined ? undefined : program.buffers[s.touch];
    const c = this.call(x, 'launch', 'cudaLaunchKernel', { stream: this.streamLane[s.stream] });
    this.releases.releaseQueuedLaunch(c);
    // A spin kernel runs for its `ns` when its blocks start together, one per SM at most.
    const length = s.ns !== undefined && s.grid <= this.deviceSms(s.stream) ? s.ns : undefined;
    const id = this.op(
      x,
      c,
      s.stream,
      { kind: 'kernel', name: s.name, grid: s.grid, block: s.block, bytes: touch?.bytes },
      false,
      length,
    );
    for (const i of s.reads) b.access(id, program.buffers[i].name, false);
    if (touch) b.access(id, touch.name, false);
    for (const i of s.writes) b.access(id, program.buffers[i].name, true);
    if (touch) b.access(id, touch.name, true);
  }

  private deviceSms(stream: number): number {
    const { raw } = this;
    const d = this.program.streams[stream].device;
    return raw.devices?.find((x) => x.device === d)?.sms ?? raw.device.sms;
  }

  private record(x: At, s: StepOf<'record'>): void {
    const ev = this.eventName(s.event);
    const c = this.call(x, 'record', 'cudaEventRecord', { stream: this.streamLane[s.stream], event: ev });
    this.current[s.event] = this.op(x, c, s.stream, { kind: 'eventRecord', name: `record ${ev}`, event: ev }, false);
  }

  private streamWait(x: At, s: StepOf<'wait'>): void {
    const ev = this.eventName(s.event);
    const c = this.call(x, 'streamWait', 'cudaStreamWaitEvent', { stream: this.streamLane[s.stream], event: ev });
    const id = this.op(x, c, s.stream, { kind: 'waitEvent', name: `wait ${ev}`, event: ev }, false);
    if (this.current[s.event] >= 0) this.b.edge('event', this.current[s.event], id);
  }

  private query(x: At, s: StepOf<'query'>): void {
    const ready = this.at(x.g, REC.answer) === 1;
    this.call(x, 'query', 'cudaEventQuery', {
      event: this.eventName(s.event),
      answer: ready ? 'ready' : 'notReady',
      status: ready ? undefined : 'cudaErrorNotReady',
    });
  }

  private eventSync(x: At, s: StepOf<'eventSync'>): void {
    const c = this.call(x, 'eventSync', 'cudaEventSynchronize', { event: this.eventName(s.event) });
    this.release(c, this.current[s.event] >= 0 ? [this.current[s.event]] : []);
  }

  private streamSync(x: At, s: StepOf<'streamSync'>): void {
    const c = this.call(x, 'streamSync', 'cudaStreamSynchronize', { stream: this.streamLane[s.stream] });
    this.release(c, this.order.last(this.streamLane[s.stream]));
  }

  private deviceSync(x: At, s: StepOf<'deviceSync'>): void {
    // S21: only the named device's streams.
    const device = this.base + s.device;
    this.release(this.call(x, 'deviceSync', 'cudaDeviceSynchronize', { device }), this.order.lastOfDevice(device));
  }

  private elapsed(x: At, s: StepOf<'elapsed'>): void {
    const status = this.at(x.g, REC.status);
    this.call(x, 'elapsed', 'cudaEventElapsedTime', {
      event: this.eventName(s.from),
      event2: this.eventName(s.to),
      value: status === 0 ? this.at(x.g, REC.value) : undefined,
      status: status === 0 ? undefined : statusName(status),
      answer: status === 0 ? undefined : 'error',
    });
  }

  private copy(x: At, s: StepOf<'copy'>): void {
    const { b, program } = this;
    const src = program.buffers[s.src];
    const dst = program.buffers[s.dst];
    // A synchronous copy's stream is the thread's default stream on its current device.
    const stream = s.stream;
    const hostBuf = s.direction === 'HtoD' || s.direction === 'HtoH' ? src : s.direction === 'DtoH' ? dst : undefined;
    const blocks = copyBlocksHost(s.direction, s.async, hostBuf?.host);
    const c = this.call(x, 'memcpy', s.async ? 'cudaMemcpyAsync' : 'cudaMemcpy', {
      stream: this.streamLane[stream],
      bytes: s.bytes,
    });
    const id = this.op(
      x,
      c,
      stream,
      {
        kind: 'memcpy',
        name: `${s.direction} ${src.name} -> ${dst.name}`,
        bytes: s.bytes,
        copy: s.direction,
        hostMemory: hostBuf?.host,
      },
      blocks,
    );
    b.access(id, src.name, false);
    b.access(id, dst.name, true);
    if (blocks) this.release(c, [id]);
  }

  private memset(x: At, s: StepOf<'memset'>): void {
    const buf = this.program.buffers[s.buffer];
    const stream = s.stream;
    const c = this.call(x, 'memset', s.async ? 'cudaMemsetAsync' : 'cudaMemset', {
      stream: this.streamLane[stream],
      bytes: s.bytes,
    });
    // Pageable memory is out of the device's reach: the runtime clears it on the host, no op.
    if (buf.host === 'pageable') return;
    const blocks = !s.async && buf.host !== undefined;
    const id = this.op(
      x,
      c,
      stream,
      { kind: 'memset', name: `memset ${buf.name}`, bytes: s.bytes, hostMemory: buf.host },
      blocks,
    );
    this.b.access(id, buf.name, true);
    if (blocks) this.release(c, [id]);
  }

  private hostFunc(x: At, s: StepOf<'hostFunc'>): void {
    const c = this.call(x, 'hostFunc', 'cudaLaunchHostFunc', { stream: this.streamLane[s.stream] });
    this.op(x, c, s.stream, { kind: 'hostFunc', name: s.name }, false);
  }
}

/** The trace's meta: the devices, how well each clock was mapped, and what the run measured of its latencies. */
function traceMeta(program: Program, raw: RawRun, clocks: DeviceClocks[]): TraceMeta {
  const base = raw.device.index ?? 0;
  const { events, timer } = clocks[0];
  const devices =
    raw.devices && raw.devices.length > 1
      ? {
          devices: raw.devices.map((d) => ({
            device: base + d.device,
            name: d.name,
            sms: d.sms,
            index: d.index ?? base + d.device,
          })),
        }
      : {};
  return {
    source: 'gpu',
    device: {
      name: raw.device.name,
      sms: raw.device.sms,
      computeCapability: raw.device.computeCapability,
      index: base,
      driver: raw.driver ?? cudaVersion(raw.device.cudaDriverVersion),
    },
    ...devices,
    clock: 'host-monotonic',
    alignmentErrorNs: Math.ceil(events.errorNs),
    scenario: program.file === undefined ? { name: program.name } : { name: program.name, file: program.file },
    createdAt: new Date().toISOString(),
    notes: [
      `event times mapped to CLOCK_MONOTONIC within ${Math.ceil(events.errorNs)} ns (drift ${events.driftNsPerS.toFixed(0)} ns/s)`,
      `kernel %globaltimer stamps mapped within ${Math.ceil(timer.errorNs)} ns`,
      ...latencyNotes(clocks[0].block, clocks[0].latency),
      ...program.devices
        .slice(1)
        .filter((d) => d.used)
        .map(
          ({ id }) =>
            `device ${base + id}: event times mapped within ${Math.ceil(clocks[id].events.errorNs)} ns, %globaltimer stamps within ${Math.ceil(clocks[id].timer.errorNs)} ns`,
        ),
    ],
  };
}

const cudaVersion = (v: number): string => `CUDA ${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
