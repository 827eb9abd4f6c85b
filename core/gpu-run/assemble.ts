// Builds the Trace of a GPU run from the native runtime's raw records: host timestamps, event
// times and %globaltimer stamps, with device times mapped into the host clock (align.ts). Lanes,
// names, edges and wait explanations follow the same conventions as the simulator, so that the two
// can be compared op for op.
import type { Program, Step } from '../scenario/program';
import { copyBlocksHost, TraceBuilder, type CallInit, type CallKind, type Trace } from '../trace/model';
import { ReleaseRule } from '../trace/release';
import { LaneOrder } from '../trace/lane-order';
import { clockMap, splitCalibration, splitDevices, type ClockMap } from './align';
import { RECORD_WIDTH, REC, stepDevice, threadOffsets } from './encode';
import { gpuLatency, latencyNotes, queuedBehind, SpanPlacer, splitLatency, type GpuLatency, type SpanKind } from './spans';

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
const RUNTIME_NAMES: Record<number, string> = { 1: 'cudaErrorInvalidValue', 400: 'cudaErrorInvalidResourceHandle', 600: 'cudaErrorNotReady' };
export const statusName = (code: number): string => RUNTIME_NAMES[code] ?? `CUresult ${code}`;

interface Issued {
  g: number;
  thread: number;
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
  const { records: r } = raw;
  const clocks = deviceClocks(program, raw.calibration);
  const { events, timer } = clocks[0];
  const offsets = threadOffsets(program);
  // Lanes and calls carry CUDA's device numbers: the scenario's device d ran on CUDA device base + d.
  const base = raw.device.index ?? 0;
  const at = (g: number, k: number): number => r[g * RECORD_WIDTH + k];
  const deviceSms = (stream: number): number => {
    const d = program.streams[stream].device;
    return raw.devices?.find((x) => x.device === d)?.sms ?? raw.device.sms;
  };

  const issued: Issued[] = [];
  program.threads.forEach((t, ti) => t.steps.forEach((step, i) => {
    const g = offsets[ti] + i;
    if (at(g, REC.done) === 1) issued.push({ g, thread: ti, step });
  }));
  // Host order is issue order, across threads too: it decides stream order and which record a
  // wait or synchronize binds to (S7).
  issued.sort((a, b) => at(a.g, REC.hostBegin) - at(b.g, REC.hostBegin) || a.g - b.g);
  const origin = issued.length ? at(issued[0].g, REC.hostBegin) : 0;
  const host = (v: number): number => Math.round(v - origin);
  const device = (map: ClockMap, v: number): number => (Number.isFinite(v) ? Math.round(map.toHost(v) - origin) : NaN);

  const b = new TraceBuilder();
  const threadLane = program.threads.map((t) => b.lane({ kind: 'thread', name: t.name, device: base }));
  const streamLane = program.streams.map((s) => b.lane({
    kind: 'stream', name: s.name, device: base + s.device, nonBlocking: s.nonBlocking, priority: s.priority,
    legacyDefault: s.legacyDefault, perThreadDefault: s.perThreadDefault,
    thread: s.thread === undefined ? undefined : threadLane[s.thread],
  }));
  const order = new LaneOrder(b);
  const spans = new SpanPlacer(program.streams, clocks.map((c) => c.latency));
  // Every stream op's end event, first: whether one queued behind another stream's (queuedBehind)
  // depends on events issued after it too.
  const ended = issued.flatMap(({ g, step: s }) => {
    const t = device(clocks[Math.max(0, stepDevice(program, s))].events, at(g, REC.gpuEnd));
    return 'stream' in s && Number.isFinite(t) ? [{ g, stream: s.stream, at: t }] : [];
  });
  const queued = queuedBehind(ended, program.streams, (d) => clocks[d].latency);
  const endOf = new Map(ended.map((e, i) => [e.g, { at: e.at, queuedSince: queued[i] }]));
  const releases = new ReleaseRule(b, Math.max(0, ...clocks.map((c) => c.latency.kernelToEventNs)));
  const current = program.events.map(() => -1);
  const name = (list: { name: string }[], i: number) => list[i].name;

  for (const { g, thread, step: s } of issued) {
    const { timer } = clocks[Math.max(0, stepDevice(program, s))];
    const begin = host(at(g, REC.hostBegin));
    const end = host(at(g, REC.hostEnd));
    const call = (kind: CallKind, api: string, init: Partial<CallInit> = {}): number =>
      b.call({ ...init, lane: threadLane[thread], kind, name: api, begin, end, step: s.index, line: s.pos.line, column: s.pos.column });
    const op = (c: number, stream: number, init: Omit<Parameters<TraceBuilder['op']>[0], 'lane' | 'start' | 'end' | 'call'>, blocking: boolean, lengthNs?: number): number => {
      const ev = endOf.get(g);
      const kind: SpanKind = init.kind === 'kernel' ? 'kernel' : init.kind === 'memcpy' ? 'copy' : init.kind === 'eventRecord' || init.kind === 'waitEvent' ? 'marker' : 'work';
      let { start, end: stop } = ev ? spans.place(stream, kind, begin, end, ev.at, ev.queuedSince, lengthNs) : { start: end, end };
      // The end event of a call that blocks until its op completes can only be recorded after the
      // call returns, so it overstates the op's end: the return bounds it.
      if (blocking) stop = Math.min(stop, end);
      start = Math.min(start, stop);
      const id = b.op({ ...init, lane: streamLane[stream], start, end: stop, call: c,
        truthStart: device(timer, at(g, REC.truthStart)), truthEnd: device(timer, at(g, REC.truthEnd)) });
      b.edge('launch', c, id);
      order.issue(streamLane[stream], id);
      return id;
    };
    switch (s.op) {
      case 'launch': {
        const touch = s.touch === undefined ? undefined : program.buffers[s.touch];
        const c = call('launch', 'cudaLaunchKernel', { stream: streamLane[s.stream] });
        releases.releaseQueuedLaunch(c);
        // A spin kernel runs for its `ns` when its blocks start together, one per SM at most.
        const length = s.ns !== undefined && s.grid <= deviceSms(s.stream) ? s.ns : undefined;
        const id = op(c, s.stream, { kind: 'kernel', name: s.name, grid: s.grid, block: s.block, bytes: touch?.bytes }, false, length);
        for (const i of s.reads) b.access(id, program.buffers[i].name, false);
        if (touch) b.access(id, touch.name, false);
        for (const i of s.writes) b.access(id, program.buffers[i].name, true);
        if (touch) b.access(id, touch.name, true);
        break;
      }
      case 'record': {
        const ev = name(program.events, s.event);
        const c = call('record', 'cudaEventRecord', { stream: streamLane[s.stream], event: ev });
        current[s.event] = op(c, s.stream, { kind: 'eventRecord', name: `record ${ev}`, event: ev }, false);
        break;
      }
      case 'wait': {
        const ev = name(program.events, s.event);
        const c = call('streamWait', 'cudaStreamWaitEvent', { stream: streamLane[s.stream], event: ev });
        const id = op(c, s.stream, { kind: 'waitEvent', name: `wait ${ev}`, event: ev }, false);
        if (current[s.event] >= 0) b.edge('event', current[s.event], id);
        break;
      }
      case 'query': {
        const ready = at(g, REC.answer) === 1;
        call('query', 'cudaEventQuery', { event: name(program.events, s.event), answer: ready ? 'ready' : 'notReady', status: ready ? undefined : 'cudaErrorNotReady' });
        break;
      }
      case 'eventSync': {
        const c = call('eventSync', 'cudaEventSynchronize', { event: name(program.events, s.event) });
        release(b, releases, c, current[s.event] >= 0 ? [current[s.event]] : []);
        break;
      }
      case 'streamSync': {
        const c = call('streamSync', 'cudaStreamSynchronize', { stream: streamLane[s.stream] });
        release(b, releases, c, order.last(streamLane[s.stream]));
        break;
      }
      case 'deviceSync':
        // S21: only the named device's streams.
        release(b, releases, call('deviceSync', 'cudaDeviceSynchronize', { device: base + s.device }), order.lastOfDevice(base + s.device));
        break;
      case 'setDevice':
        call('api', 'cudaSetDevice', { device: base + s.device });
        break;
      case 'elapsed': {
        const status = at(g, REC.status);
        call('elapsed', 'cudaEventElapsedTime', {
          event: name(program.events, s.from), event2: name(program.events, s.to),
          value: status === 0 ? at(g, REC.value) : undefined, status: status === 0 ? undefined : statusName(status), answer: status === 0 ? undefined : 'error',
        });
        break;
      }
      case 'copy': {
        const src = program.buffers[s.src];
        const dst = program.buffers[s.dst];
        // A synchronous copy's stream is the thread's default stream on its current device.
        const stream = s.stream;
        const hostBuf = s.direction === 'HtoD' || s.direction === 'HtoH' ? src : s.direction === 'DtoH' ? dst : undefined;
        const blocks = copyBlocksHost(s.direction, s.async, hostBuf?.host);
        const c = call('memcpy', s.async ? 'cudaMemcpyAsync' : 'cudaMemcpy', { stream: streamLane[stream], bytes: s.bytes });
        const id = op(c, stream, { kind: 'memcpy', name: `${s.direction} ${src.name} -> ${dst.name}`, bytes: s.bytes, copy: s.direction, hostMemory: hostBuf?.host }, blocks);
        b.access(id, src.name, false);
        b.access(id, dst.name, true);
        if (blocks) release(b, releases, c, [id]);
        break;
      }
      case 'memset': {
        const buf = program.buffers[s.buffer];
        const stream = s.stream;
        const c = call('memset', s.async ? 'cudaMemsetAsync' : 'cudaMemset', { stream: streamLane[stream], bytes: s.bytes });
        // Pageable memory is out of the device's reach: the runtime clears it on the host, no op.
        if (buf.host === 'pageable') break;
        const blocks = !s.async && buf.host !== undefined;
        const id = op(c, stream, { kind: 'memset', name: `memset ${buf.name}`, bytes: s.bytes, hostMemory: buf.host }, blocks);
        b.access(id, buf.name, true);
        if (blocks) release(b, releases, c, [id]);
        break;
      }
      case 'hostWork':
        call('hostWork', 'hostWork');
        break;
      case 'hostFunc': {
        const c = call('hostFunc', 'cudaLaunchHostFunc', { stream: streamLane[s.stream] });
        op(c, s.stream, { kind: 'hostFunc', name: s.name }, false);
        break;
      }
    }
  }

  const devices = raw.devices && raw.devices.length > 1
    ? { devices: raw.devices.map((d) => ({ device: base + d.device, name: d.name, sms: d.sms, index: d.index ?? base + d.device })) } : {};
  return b.finish({
    source: 'gpu',
    device: {
      name: raw.device.name, sms: raw.device.sms, computeCapability: raw.device.computeCapability, index: base,
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
      ...program.devices.slice(1).filter((d) => d.used).map(({ id }) =>
        `device ${base + id}: event times mapped within ${Math.ceil(clocks[id].events.errorNs)} ns, %globaltimer stamps within ${Math.ceil(clocks[id].timer.errorNs)} ns`),
    ],
  });
}

const cudaVersion = (v: number): string => `CUDA ${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;

/** A host wait on `awaited` ops (S12 to S16): the shared rule names the op that released it. */
function release(b: TraceBuilder, releases: ReleaseRule, call: number, awaited: number[]): void {
  if (releases.release(call, awaited) >= 0) b.calls.cols.blockedNs[call] = b.calls.cols.end[call] - b.calls.cols.begin[call];
}
