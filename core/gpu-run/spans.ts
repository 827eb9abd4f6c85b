// Op spans from one timing event per op. The recorder records an event after every stream op and
// none before it (a second event and a query per launch would double its host cost), so an op's
// start is derived: a kernel starts a fixed GPU latency after the end event of what it was ordered
// behind (the previous op on its stream, and across streams under S3), or a fixed latency after its
// launch call returned when that is later (the stream was idle). Its end is its end event less the
// event's own latency behind the kernel, or, where that event may have queued behind another
// stream's (queuedBehind), the middle of the two. The runtime measures the latencies in every run,
// on kernels of its own, before the scenario starts (measureLatency in native/src/runtime.cc); a
// scenario op's own stamps are never used.
import type { Program } from '../scenario/program';
import { median } from '../stats';
import type { ClockMap } from './align';

export interface GpuLatency {
  /** From a kernel's last instruction to its end event completing. */
  kernelToEventNs: number;
  /** From an end event completing to the next queued kernel's first instruction. */
  eventToKernelNs: number;
  /** From a launch call's return to the kernel's first instruction, on an idle stream. */
  launchToKernelNs: number;
  /**
   * From a copy's end event to the next queued kernel's first instruction: the compute engine
   * waits on the copy engine. The least constant of the four: it changes from run to run and within
   * a run, so a start behind a copy may be off by several microseconds.
   */
  copyToKernelNs: number;
}

export const NO_LATENCY: GpuLatency = {
  kernelToEventNs: 0,
  eventToKernelNs: 0,
  launchToKernelNs: 0,
  copyToKernelNs: 0,
};

export interface LatencySamples {
  /** 1 where the event clock was sampled through stream memory operations, 0 record-and-poll. */
  method: number;
  /** Kernels queued back to back, each followed by an event: event time, first and last stamp. */
  chain: { event: number; start: number; end: number }[];
  /** Kernels launched on an idle stream: host begin and end of the launch, event time, stamps. */
  idle: { h0: number; h1: number; event: number; start: number; end: number }[];
  /** Kernels each queued behind a small copy: the copy's event time, the kernel's, its stamps. */
  afterCopy: { copyEvent: number; event: number; start: number; end: number }[];
}

/** The part of the addon's calibration block after the four bursts (runtime.h documents it). */
export function splitLatency(c: Float64Array): LatencySamples | undefined {
  const at = 1 + 12 * c[0];
  if (c.length < at + 2 || !Number.isFinite(c[at + 1])) return undefined;
  const m = c[at + 1];
  const chain = Array.from({ length: m }, (_, i) => {
    const j = at + 2 + 3 * i;
    return { event: c[j], start: c[j + 1], end: c[j + 2] };
  });
  const idle = Array.from({ length: m }, (_, i) => {
    const j = at + 2 + 3 * m + 5 * i;
    return { h0: c[j], h1: c[j + 1], event: c[j + 2], start: c[j + 3], end: c[j + 4] };
  });
  const afterCopy = Array.from({ length: m }, (_, i) => {
    const j = at + 2 + 8 * m + 4 * i; // after the chain (3m) and idle (5m) rows
    return { copyEvent: c[j], event: c[j + 1], start: c[j + 2], end: c[j + 3] };
  });
  return { method: c[at], chain, idle, afterCopy };
}

/**
 * The latencies from the samples. Sums that a span length depends on come from one clock each
 * (event minus event, stamp minus stamp, event minus host), so clock alignment errors cancel in
 * them; only the split of the back-to-back gap into "kernel to event" and "event to kernel" needs
 * both clocks mapped, and it moves a kernel by at most the alignment error, never resizes it.
 */
export function gpuLatency(s: LatencySamples | undefined, events: ClockMap, timer: ClockMap): GpuLatency {
  if (!s) return NO_LATENCY;
  const ok = (x: { event: number; start: number; end: number }) =>
    [x.event, x.start, x.end].every(Number.isFinite) && x.end >= x.start;
  const gaps: number[] = [];
  const after: number[] = [];
  for (let i = 1; i < s.chain.length; i++) {
    const [p, k] = [s.chain[i - 1], s.chain[i]];
    if (!ok(p) || !ok(k)) continue;
    gaps.push(k.event - p.event - (k.end - k.start));
    after.push(events.toHost(k.event) - timer.toHost(k.end));
  }
  const gap = median(gaps);
  const idle = median(s.idle.filter(ok).map((x) => events.toHost(x.event) - x.h1 - (x.end - x.start)));
  if (!Number.isFinite(gap) || !Number.isFinite(idle)) return NO_LATENCY;
  const toEvent = Math.min(Math.max(0, median(after)), gap, Math.max(0, idle));
  // One clock again: the copy's event to the kernel's event, less the kernel and its event's latency.
  const behindCopy = median(
    s.afterCopy
      .filter((x) => ok(x) && Number.isFinite(x.copyEvent))
      .map((x) => x.event - x.copyEvent - (x.end - x.start)),
  );
  const eventToKernelNs = gap - toEvent;
  return {
    kernelToEventNs: toEvent,
    eventToKernelNs,
    launchToKernelNs: idle - toEvent,
    copyToKernelNs: Number.isFinite(behindCopy) ? Math.max(0, behindCopy - toEvent) : eventToKernelNs,
  };
}

export type SpanKind = 'kernel' | 'copy' | 'work' | 'marker';

/** A stream op's end event: its stream, and the moment it completed in the trace's clock. */
export interface EndEvent {
  stream: number;
  at: number;
}

/**
 * For each end event, the earliest end event of other streams of its device that it may have
 * queued behind (its own moment when none). A device's front end serves one stream at a time: when
 * kernels on two streams end together, it completes one stream's end event and launches that
 * stream's next kernel before it completes the other's, a front-end round trip later, where a
 * lone end event lags its kernel by kernelToEventNs. An end event that completes within a stream's
 * back-to-back pitch (kernelToEventNs + eventToKernelNs) of another stream's is taken as queued
 * behind it, and a run of such events chains.
 */
export function queuedBehind(
  events: readonly EndEvent[],
  streams: Program['streams'],
  lat: (device: number) => GpuLatency,
): Float64Array {
  const since = Float64Array.from(events, (e) => e.at);
  const device = (e: EndEvent) => streams[e.stream].device;
  const order = events.map((_, i) => i).filter((i) => Number.isFinite(events[i].at));
  order.sort((a, b) => device(events[a]) - device(events[b]) || events[a].at - events[b].at);
  for (let k = 0; k < order.length; k++) {
    const e = events[order[k]];
    const l = lat(device(e));
    const pitch = l.kernelToEventNs + l.eventToKernelNs;
    let first = e.at;
    for (let j = k - 1; j >= 0; j--) {
      const o = events[order[j]];
      if (device(o) !== device(e) || first - o.at >= pitch) break;
      // Its own stream's earlier events do not delay it: they are what it was queued after.
      if (o.stream !== e.stream) first = o.at;
    }
    since[order[k]] = first;
  }
  return since;
}

/**
 * Places ops in issue order. Work ops other than kernels (copies, memsets, host functions) have no
 * measured latencies: they start at their predecessor's end event or at their call's begin,
 * whichever is later; markers (records, waits) are the moment the stream passed them. A kernel
 * right behind a copy on its stream starts copyToKernelNs after the copy's end event, or, when its
 * length is known, that long before its end.
 */
export class SpanPlacer {
  private readonly lastEvent: number[];
  private readonly lastWasCopy: boolean[];
  /** Per device, its legacy default stream (S3 orders streams of one device only, S21). */
  private readonly legacy = new Map<number, number>();
  /** Per device, its latencies: each GPU measures its own. */
  private readonly lats: (device: number) => GpuLatency;

  constructor(
    private readonly streams: Program['streams'],
    lat: GpuLatency | readonly GpuLatency[],
  ) {
    this.lastEvent = streams.map(() => -Infinity);
    this.lastWasCopy = streams.map(() => false);
    streams.forEach((s, i) => {
      if (s.legacyDefault && !this.legacy.has(s.device)) this.legacy.set(s.device, i);
    });
    this.lats = Array.isArray(lat) ? (d) => (lat as readonly GpuLatency[])[d] ?? NO_LATENCY : () => lat as GpuLatency;
  }

  /**
   * Host times in the trace's clock; `endEvent` mapped into it too. `queuedSince`: where
   * queuedBehind() says the end event may have waited for other streams' (endEvent when it did
   * not): a kernel's end then lies between that moment and its own, and the middle errs least.
   */
  place(
    stream: number,
    kind: SpanKind,
    hostBegin: number,
    hostEnd: number,
    endEvent: number,
    queuedSince = endEvent,
    lengthNs?: number,
  ): { start: number; end: number } {
    const after = this.orderedAfter(stream);
    // Behind the stream's own copy, unless S3 orders it after a later op of another stream.
    const behindCopy = this.lastWasCopy[stream] && after === this.lastEvent[stream];
    this.lastEvent[stream] = endEvent;
    // A marker passes in the stream without the compute engine: a kernel after it still waits on the copy.
    if (kind !== 'marker') this.lastWasCopy[stream] = kind === 'copy';
    if (kind === 'marker') return { start: endEvent, end: endEvent };
    if (kind !== 'kernel') return { start: Math.min(Math.max(after, hostBegin), endEvent), end: endEvent };
    const lat = this.lats(this.streams[stream].device);
    const lone = endEvent - lat.kernelToEventNs;
    // A launch call that returned after its kernel ended was slow after ringing the doorbell (a
    // thread's first launch, a descheduled host): then only its begin bounds the start.
    const launched = hostEnd + lat.launchToKernelNs < lone ? hostEnd + lat.launchToKernelNs : hostBegin;
    const start = Math.max(after + (behindCopy ? lat.copyToKernelNs : lat.eventToKernelNs), launched);
    const end = queuedSince < endEvent ? (Math.max(queuedSince - lat.kernelToEventNs, start) + lone) / 2 : lone;
    // Behind a copy the latency takes one of two values and can change within a run: a kernel whose length is known started that long before its end, and
    // no sooner after the copy than a kernel behind a kernel would.
    const placed =
      behindCopy && lengthNs !== undefined ? Math.max(after + lat.eventToKernelNs, launched, end - lengthNs) : start;
    return { start: Math.min(placed, end), end };
  }

  /** The latest end event this stream's next op is ordered after (S1, and S3 for the legacy stream). */
  private orderedAfter(stream: number): number {
    let t = this.lastEvent[stream];
    const s = this.streams[stream];
    const legacy = this.legacy.get(s.device) ?? -1;
    if (s.nonBlocking || legacy < 0) return t;
    if (stream !== legacy) return Math.max(t, this.lastEvent[legacy]);
    this.streams.forEach((o, i) => {
      if (!o.nonBlocking && o.device === s.device) t = Math.max(t, this.lastEvent[i]);
    });
    return t;
  }
}

/** Trace notes that say how spans were derived, for whoever doubts one. */
export function latencyNotes(c: Float64Array, lat: GpuLatency): string[] {
  const s = splitLatency(c);
  if (!s) return [];
  const us = (ns: number) => (ns / 1000).toFixed(2);
  return [
    `event clock sampled ${s.method === 1 ? 'through stream memory operations' : 'by recording and polling events'}`,
    `kernel spans: end event - ${us(lat.kernelToEventNs)} us; start at the previous end event + ${us(lat.eventToKernelNs)} us (+ ${us(lat.copyToKernelNs)} us behind a copy, or its length before its end when the runtime set it), or the launch's return + ${us(lat.launchToKernelNs)} us when later`,
  ];
}
