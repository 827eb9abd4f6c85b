// Turns a raw capture (capture-raw.ts) into a Trace with the GPU runner's conventions: a lane per
// host thread and per stream, a call per CUDA call, ops from CUPTI's activity records, stream and
// legacy ordering edges, an event edge from every stream wait to the very record it bound to, and
// host waits explained by the shared release rule (S16).
//
// Exact event identity: the capture library numbers each event handle's records, and every wait,
// query and synchronize carries the number of the record it bound to (S7). So a re-recorded event
// never confuses which record a wait meant, whatever the timing.
import {
  copyBlocksHost,
  RELEASED_UNKNOWN,
  TraceBuilder,
  type CallInit,
  type CallKind,
  type CopyKind,
  type HostMemory,
  type OpInit,
  type Trace,
} from '../trace/model';
import { ReleaseRule } from '../trace/release';
import { CaptureSites } from './capture-sites';
import type { UserCode } from './python-sites';
import { LaneOrder } from '../trace/lane-order';
import { isAsyncApi } from './cuda-api';
import { copyKindOf, hostMemoryOf, kernelName, NOT_READY, statusName } from './capture-names';
import {
  API,
  COPY_DIR,
  decodeCapture,
  HOST_MEMORY,
  LEGACY_STREAM,
  PER_THREAD_STREAM,
  SEQ_UNKNOWN,
  type RawCall,
  type RawCapture,
  type RawCudaEvent,
  type RawKernel,
  type RawMemcpy,
  type RawMemset,
} from './capture-raw';

export interface CaptureOptions {
  /** What was captured (the command line), for meta.scenario.name. */
  name?: string;
  /** Paths added to or taken out of the user's code, for the calls' sites. */
  userCode?: UserCode;
}

/** A slow launch waited for room in its stream's launch queue (S19) only with this many ops of that stream still queued. */
const QUEUE_PENDING_OPS = 500;
/** How far ahead a host function looks for the op that waited for it (S20). */
const HOST_FUNC_LOOKAHEAD = 10_000;
const CU_STREAM_NON_BLOCKING = 1;
/** A record's device timestamp further than this past the completion of the work before it is not trusted. */
const DEVICE_TIMESTAMP_WINDOW_NS = 10_000_000;
const SYNC_EVENT = 1;
const SYNC_STREAM_WAIT = 2;

interface Activities {
  kernels: RawKernel[];
  memcpys: RawMemcpy[];
  memsets: RawMemset[];
  events: RawCudaEvent[];
}

/** Shared by every call's kinds of record it has none of (most calls have one kind or none): never pushed to. */
const NONE: never[] = [];
/** `list` with `x` added: a new array in place of NONE. */
const withRecord = <T>(list: T[], x: T): T[] => (list === NONE ? [x] : (list.push(x), list));
/** A (device, CUPTI stream id) pair as one number: ids are 32-bit. */
const streamIdOf = (deviceId: number, streamId: number): number => deviceId * 2 ** 32 + streamId;

/** A record op, the call that issued it, and when the work it captured completed. */
interface BoundRecord {
  op: number;
  corr: number;
  after: number;
}

interface StreamInfo {
  name: string;
  nonBlocking?: boolean;
  priority?: number;
  streamId?: number;
  legacyDefault?: boolean;
  perThreadDefault?: boolean;
  thread?: number;
  device?: number;
}

export function importCapture(bytes: Uint8Array, opts: CaptureOptions = {}): Trace {
  return captureToTrace(decodeCapture(bytes), opts);
}

export function captureToTrace(raw: RawCapture, opts: CaptureOptions = {}): Trace {
  return new Converter(raw, opts).run();
}

/** One call being converted: its record, lane, times, the activities it caused, and how to add its row. */
interface CallAt {
  i: number;
  c: RawCall;
  key: string | undefined;
  stream: number | undefined;
  ok: boolean;
  acts: Activities | undefined;
  begin: number;
  end: number;
  add: (kind: CallKind, init?: Partial<CallInit>) => number;
}

class Converter {
  private readonly b = new TraceBuilder();
  private readonly order = new LaneOrder(this.b);
  private readonly releases = new ReleaseRule(this.b);
  private readonly sites: CaptureSites;
  private readonly byCorr = new Map<number, Activities>();
  private readonly calls: RawCall[];
  /** The lowest device that ran work: the trace's device, and the one for anything no record places. */
  private readonly device: number;
  /** The device each call ran on (by position in `calls`): its context's, else its ops', else its thread's last. */
  private readonly callDevice: number[] = [];
  private origin = 0;
  private readonly threadLane = new Map<number, number>();
  private readonly streamLane = new Map<string, number>();
  private readonly streamInfo = new Map<string, StreamInfo>();
  /** The lane key of each call (by position in `calls`), fixed in a first pass that follows stream creation. */
  private readonly laneKey: (string | undefined)[] = [];
  /** streamIdOf(device, CUPTI stream id) -> lane key, learned from calls whose ops carry it (ids are per context). */
  private readonly streamIdKey = new Map<number, string>();
  /** By domain * 65536 + cbid: the API's name as programs call it. */
  private readonly callNames = new Map<number, string>();
  /** By the kernel name's string id: its short name. */
  private readonly kernelNames = new Map<number, string>();
  /** Event handle -> its current name and the record count it was created at. */
  private readonly eventGen = new Map<number, { name: string; base: number }>();
  private events = 0;
  /** `${handle}:${seq}` -> the record it names. */
  private readonly recordOps = new Map<string, BoundRecord>();
  private readonly notes: string[] = [];
  private orphans = 0;
  private deviceTimes = 0;
  private deviceTimesRejected = 0;
  /** Records whose device timestamp fell after a host call had seen them complete. */
  private recordsSeenEarlier = 0;
  /** Records whose device timestamp fell after work that waited for them had started. */
  private recordsStartedEarlier = 0;
  /** A stream wait's marker -> the record it waited for, and when it passed the GPU but for that record. */
  private readonly waitMarkers = new Map<number, { rec: BoundRecord; otherwise: number }>();
  private unboundWaits = 0;
  private cuptiAgree = 0;
  private readonly cuptiDisagree: string[] = [];

  constructor(
    private readonly raw: RawCapture,
    private readonly opts: CaptureOptions,
  ) {
    this.sites = new CaptureSites(raw, this.b.sites, opts.userCode);
    this.calls = [...raw.calls].sort(
      (a, b) => a.begin - b.begin || a.thread - b.thread || a.correlationId - b.correlationId,
    );
    const act = (corr: number): Activities => {
      let a = this.byCorr.get(corr);
      if (!a) this.byCorr.set(corr, (a = { kernels: NONE, memcpys: NONE, memsets: NONE, events: NONE }));
      return a;
    };
    const group = <K extends keyof Activities>(key: K, records: readonly Activities[K][number][]) => {
      for (const r of records) {
        const a = act(r.correlationId);
        a[key] = withRecord<Activities[K][number]>(a[key], r) as Activities[K];
      }
    };
    group('kernels', raw.kernels);
    group('memcpys', raw.memcpys);
    group('memsets', raw.memsets);
    group('events', raw.cudaEvents);
    // A loop, not Math.min(...): a capture holds millions of records, more than a call's arguments.
    let device = Infinity;
    for (const list of [raw.kernels, raw.memcpys, raw.memsets])
      for (const a of list) if (a.deviceId < device) device = a.deviceId;
    this.device = Number.isFinite(device) ? device : (raw.devices[0]?.id ?? 0);
  }

  run(): Trace {
    const { raw, b } = this;
    this.origin = this.earliest();
    this.assignLanes();
    // Host threads first, in the order they made their first call.
    for (const c of this.calls) this.thread(c.thread);
    const orphans = this.orphanOps();
    let next = 0;
    for (let i = 0; i < this.calls.length; i++) {
      const c = this.calls[i];
      while (next < orphans.length && orphans[next].start < c.begin) this.orphan(orphans[next++]);
      this.call(i, c);
    }
    while (next < orphans.length) this.orphan(orphans[next++]);
    this.crossCheck();
    const engine = this.sites.deduceBackwardLines(b);

    const dev = raw.devices.find((d) => d.id === this.device) ?? raw.devices[0];
    const used = [...new Set(b.lanes.filter((l) => l.kind === 'stream').map((l) => l.device))].sort((x, y) => x - y);
    const devices =
      used.length > 1
        ? used.map((d) => ({
            device: d,
            name: raw.devices.find((x) => x.id === d)?.name ?? `GPU ${d}`,
            sms: raw.devices.find((x) => x.id === d)?.sms,
            index: d,
          }))
        : undefined;
    const v = raw.cudaDriverVersion;
    const notes = [
      `captured with CUPTI ${raw.cuptiApiVersion} from process ${raw.pid}: ${raw.calls.length} calls on ${raw.threads.length} threads, ` +
        `${raw.kernels.length} kernels, ${raw.memcpys.length} copies, ${raw.memsets.length} memsets`,
      'host and GPU times are CUPTI timestamps (one clock: CUPTI maps GPU times into it and states no error bound)',
      ...this.notes,
      ...this.sites.notes(raw.calls.length),
    ];
    if (engine)
      notes.push(
        `${engine} calls of threads that run no Python placed at the line that ran backward() meanwhile, deduced (autograd's engine)`,
      );
    if (this.orphans)
      notes.push(
        `${this.orphans} GPU ops whose issuing call was not captured (an API the capture does not follow) are on their streams without a call`,
      );
    if (this.deviceTimes || this.deviceTimesRejected) {
      notes.push(
        `event records placed at CUPTI's device timestamp: ${this.deviceTimes}; at the end of the work before them instead (timestamp implausible): ${this.deviceTimesRejected}`,
      );
      if (this.recordsSeenEarlier)
        notes.push(
          `event records moved back to the return of a synchronize or query that saw them complete (CUPTI's device timestamp was later): ${this.recordsSeenEarlier}`,
        );
      if (this.recordsStartedEarlier)
        notes.push(
          `event records moved back to the start of work that waited for them (CUPTI's device timestamp was later): ${this.recordsStartedEarlier}`,
        );
    }
    if (this.unboundWaits)
      notes.push(`${this.unboundWaits} event waits whose record was not captured: their releasing op is unknown`);
    if (raw.dropped) notes.push(`CUPTI dropped ${raw.dropped} activity records: some ops are missing`);
    if (raw.incompleteCalls)
      notes.push(`${raw.incompleteCalls} calls had not returned when the capture was written; they are left out`);
    if (this.cuptiAgree || this.cuptiDisagree.length) {
      notes.push(
        `CUPTI's own event sync ids agree with the recorded binding for ${this.cuptiAgree} of ${this.cuptiAgree + this.cuptiDisagree.length} event waits` +
          (this.cuptiDisagree.length ? ` (disagree: ${this.cuptiDisagree.slice(0, 5).join(', ')})` : ''),
      );
    }
    return b.finish({
      source: 'capture',
      device: dev
        ? {
            name: dev.name,
            sms: dev.sms,
            computeCapability: dev.computeCapability,
            index: dev.id,
            driver: v ? `CUDA ${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}` : undefined,
          }
        : undefined,
      ...(devices ? { devices } : {}),
      clock: 'cupti',
      alignmentErrorNs: 0,
      ...(this.sites.meta() ? { python: this.sites.meta() } : {}),
      scenario: this.opts.name ? { name: this.opts.name } : undefined,
      notes,
    });
  }

  private earliest(): number {
    let t = Infinity;
    for (const c of this.raw.calls) t = Math.min(t, c.begin);
    for (const a of [...this.raw.kernels, ...this.raw.memcpys, ...this.raw.memsets]) t = Math.min(t, a.start);
    return Number.isFinite(t) ? t : 0;
  }

  private t(v: number): number {
    return v - this.origin;
  }

  // ---- lanes ------------------------------------------------------------------------------

  private thread(index: number): number {
    let lane = this.threadLane.get(index);
    if (lane === undefined) {
      const t = this.raw.threads[index];
      const base = t.osTid === this.raw.pid ? 'main' : t.name || `thread ${t.osTid}`;
      const taken = this.b.lanes.some((l) => l.kind === 'thread' && l.name === base);
      lane = this.b.lane({
        kind: 'thread',
        name: taken ? `${base} (${t.osTid})` : base,
        device: this.device,
        handle: t.osTid,
      });
      this.threadLane.set(index, lane);
    }
    return lane;
  }

  /**
   * Fixes each call's device and stream identity in time order: a handle reused after destroy is a
   * new stream, and the default streams are per device (S21).
   */
  private assignLanes(): void {
    const generation = new Map<number, number>();
    const threadDevice = new Map<number, number>();
    let created = 0;
    this.calls.forEach((c, i) => {
      const a = this.byCorr.get(c.correlationId);
      const ops = a ? [a.kernels, a.memcpys, a.memsets, a.events] : [];
      const first = a && (a.kernels[0] ?? a.memcpys[0] ?? a.memsets[0] ?? a.events[0]);
      const dev = c.device >= 0 ? c.device : (first?.deviceId ?? threadDevice.get(c.thread) ?? this.device);
      threadDevice.set(c.thread, dev);
      this.callDevice[i] = dev;
      if (c.api === API.streamCreate && c.result === 0) {
        const gen = (generation.get(c.stream) ?? 0) + 1;
        generation.set(c.stream, gen);
        this.streamInfo.set(`h:${c.stream}:${gen}`, {
          name: `stream ${++created}`,
          nonBlocking: (c.flags & CU_STREAM_NON_BLOCKING) !== 0,
          priority: c.priority,
          streamId: c.streamId || undefined,
          device: c.device >= 0 ? c.device : undefined,
        });
        return;
      }
      if (!usesStream(c)) return;
      let key: string;
      if (c.stream === LEGACY_STREAM) {
        key = `legacy:${dev}`;
        if (!this.streamInfo.has(key)) {
          this.streamInfo.set(key, {
            name: dev === this.device ? 'legacy default' : `legacy default (GPU ${dev})`,
            legacyDefault: true,
            nonBlocking: false,
            device: dev,
          });
        }
      } else if (c.stream === PER_THREAD_STREAM) {
        key = `pt:${c.thread}:${dev}`;
        if (!this.streamInfo.has(key))
          this.streamInfo.set(key, {
            name: '',
            perThreadDefault: true,
            nonBlocking: false,
            thread: c.thread,
            device: dev,
          });
      } else {
        key = `h:${c.stream}:${generation.get(c.stream) ?? 0}`;
        const info = this.streamInfo.get(key);
        // A stream's device is its creator's context's; without one, where its work ran.
        if (!info)
          this.streamInfo.set(key, { name: `stream 0x${c.stream.toString(16)}`, device: first?.deviceId ?? dev });
        else if (info.device === undefined && first) info.device = first.deviceId;
      }
      this.laneKey[i] = key;
      for (const list of ops) for (const op of list) this.streamIdKey.set(streamIdOf(op.deviceId, op.streamId), key);
    });
  }

  private lane(key: string): number {
    let lane = this.streamLane.get(key);
    if (lane !== undefined) return lane;
    const s = this.streamInfo.get(key) ?? { name: key };
    const thread = s.thread === undefined ? undefined : this.thread(s.thread);
    const device = s.device ?? this.device;
    const name = s.perThreadDefault
      ? `per-thread default (${this.b.lanes[thread ?? 0].name}${device === this.device ? '' : `, GPU ${device}`})`
      : s.name;
    lane = this.b.lane({
      kind: 'stream',
      name,
      device,
      nonBlocking: s.nonBlocking,
      priority: s.priority,
      legacyDefault: s.legacyDefault,
      perThreadDefault: s.perThreadDefault,
      thread,
      handle: s.streamId,
    });
    this.streamLane.set(key, lane);
    return lane;
  }

  // ---- ops ----------------------------------------------------------------------------------

  /** Adds `op` on `lane` issued by `call` with its launch and ordering edges (in the order ReleaseRule expects). */
  private op(lane: number, call: number, init: Omit<OpInit, 'lane' | 'call'>): number {
    // Every init is made for this one op, so it is completed in place rather than copied.
    const o = init as OpInit;
    o.lane = lane;
    o.call = call;
    if (o.kind !== 'eventRecord' && o.kind !== 'waitEvent') this.startedBy(lane, o.start);
    const id = this.b.op(o);
    if (call >= 0) this.b.edge('launch', call, id);
    this.order.issue(lane, id);
    return id;
  }

  /** When a marker (or host function) passed the GPU: once issued and once everything before it had completed. */
  private markerTime(lane: number, begin: number, also: number[] = []): number {
    const ends = this.b.ops.cols.end;
    let t = begin;
    for (const p of [...this.order.predecessors(lane), ...also]) t = Math.max(t, ends[p]);
    return t;
  }

  /**
   * A record passed the GPU when CUPTI's device timestamp says, where it has one: not before the
   * work the record captured completed (`derived`), and not implausibly later (a timestamp from
   * another clock).
   */
  private recordTime(derived: number, deviceTimestamp: number | undefined): number {
    if (deviceTimestamp === undefined || !Number.isFinite(deviceTimestamp)) return derived;
    const t = this.t(deviceTimestamp);
    if (t >= derived && t - derived <= DEVICE_TIMESTAMP_WINDOW_NS) {
      this.deviceTimes++;
      return t;
    }
    this.deviceTimesRejected++;
    return derived;
  }

  /**
   * A host call that saw a record complete by `t` (an event synchronize returning, a query answering
   * ready) bounds it: CUPTI maps device timestamps into its host clock with no stated error, and one
   * can land after the synchronize that waited for it has returned.
   */
  private seenCompleteBy(rec: BoundRecord, t: number): void {
    const { start, end } = this.b.ops.cols;
    // Never before the work it captured: that keeps the stream's order, whatever CUPTI's clock says.
    const moved = Math.max(rec.after, t);
    if (end[rec.op] <= moved) return;
    start[rec.op] = end[rec.op] = moved;
    this.recordsSeenEarlier++;
  }

  /**
   * Work that starts on a stream right behind a stream wait bounds the record it waited for, as a
   * host call that saw the record complete does: the record completed by the time the work started.
   */
  private startedBy(lane: number, start: number): void {
    const { start: starts, end } = this.b.ops.cols;
    for (const w of this.order.predecessors(lane)) {
      const wait = this.waitMarkers.get(w);
      if (!wait || end[w] <= start || end[wait.rec.op] <= start) continue;
      const moved = Math.max(wait.rec.after, start);
      starts[wait.rec.op] = end[wait.rec.op] = moved;
      starts[w] = end[w] = Math.max(wait.otherwise, moved);
      this.recordsStartedEarlier++;
    }
  }

  /**
   * GPU ops whose issuing call was not captured, in the order they are put on their streams, each
   * at `start`: the time it was issued by, before any call that began after. One launch issues all of
   * a graph's nodes, which CUPTI gives the launch's correlation id: they are issued together, when
   * the first of them started, and go on their stream in the order they ended, as a captured graph
   * launch's do (graphLaunch). A wait that began after the first of them started waits for them all.
   */
  private orphanOps(): { start: number; key: string; init: Omit<OpInit, 'lane' | 'call'> }[] {
    const list: { start: number; end: number; corr: number; key: string; init: Omit<OpInit, 'lane' | 'call'> }[] = [];
    const captured = new Set(this.raw.calls.map((c) => c.correlationId));
    const key = ({ deviceId, streamId }: { deviceId: number; streamId: number }) => {
      const k = this.streamIdKey.get(streamIdOf(deviceId, streamId)) ?? `sid:${deviceId}:${streamId}`;
      if (!this.streamInfo.has(k)) {
        this.streamInfo.set(k, {
          name: `stream ${streamId} (CUPTI id${deviceId === this.device ? '' : `, GPU ${deviceId}`})`,
          streamId,
          device: deviceId,
        });
      }
      return k;
    };
    const add = (
      a: { correlationId: number; start: number; end: number },
      k: string,
      init: Omit<OpInit, 'lane' | 'call'>,
    ) => list.push({ start: a.start, end: a.end, corr: a.correlationId, key: k, init });
    for (const k of this.raw.kernels) if (!captured.has(k.correlationId)) add(k, key(k), this.kernelInit(k));
    for (const m of this.raw.memcpys) if (!captured.has(m.correlationId)) add(m, key(m), this.copyInit([m], '', ''));
    for (const m of this.raw.memsets) if (!captured.has(m.correlationId)) add(m, key(m), this.memsetInit([m], ''));
    this.orphans = list.length;
    // The ops of one launch (one correlation id) are issued when its first op started.
    const issued = new Map<number, number>();
    for (const o of list) if (o.corr > 0) issued.set(o.corr, Math.min(issued.get(o.corr) ?? Infinity, o.start));
    for (const o of list) if (o.corr > 0) o.start = issued.get(o.corr)!;
    return list.sort((a, b) => a.start - b.start || a.corr - b.corr || a.end - b.end);
  }

  private orphan(o: { key: string; init: Omit<OpInit, 'lane' | 'call'> }): void {
    this.op(this.lane(o.key), -1, o.init);
  }

  private kernelInit(k: RawKernel): Omit<OpInit, 'lane' | 'call'> {
    let name = this.kernelNames.get(k.name);
    if (name === undefined)
      this.kernelNames.set(k.name, (name = kernelName(this.raw.strings.get(k.name) ?? `kernel ${k.name}`)));
    return { kind: 'kernel', start: this.t(k.start), end: this.t(k.end), name, grid: k.grid, block: k.block };
  }

  private copyInit(m: RawMemcpy[], dir: CopyKind, host: HostMemory): Omit<OpInit, 'lane' | 'call'> {
    const first = m[0];
    const copy = copyKindOf(first.copyKind) || dir;
    const side = copy === 'DtoH' ? first.dstKind : first.srcKind;
    const hostMemory = hostMemoryOf(side) || host;
    const bytes = m.reduce((s, x) => s + x.bytes, 0);
    return {
      kind: 'memcpy',
      name: `${copy || 'copy'} ${bytes} B${hostMemory ? ` (${hostMemory})` : ''}`,
      bytes,
      copy,
      hostMemory,
      start: this.t(Math.min(...m.map((x) => x.start))),
      end: this.t(Math.max(...m.map((x) => x.end))),
    };
  }

  private memsetInit(m: RawMemset[], host: HostMemory): Omit<OpInit, 'lane' | 'call'> {
    const bytes = m.reduce((s, x) => s + x.bytes, 0);
    return {
      kind: 'memset',
      name: `memset ${bytes} B`,
      bytes,
      hostMemory: hostMemoryOf(m[0].memoryKind) || host,
      start: this.t(Math.min(...m.map((x) => x.start))),
      end: this.t(Math.max(...m.map((x) => x.end))),
    };
  }

  // ---- events -------------------------------------------------------------------------------

  private eventName(handle: number): string {
    return this.eventGen.get(handle)?.name ?? `event 0x${handle.toString(16)}`;
  }

  /** The record op a call bound to: an op id, 'never' (S9: not recorded since it was created), or 'unknown'. */
  private bound(handle: number, seq: number): BoundRecord | 'never' | 'unknown' {
    if (seq === SEQ_UNKNOWN) return 'unknown';
    if (seq <= (this.eventGen.get(handle)?.base ?? 0)) return 'never';
    return this.recordOps.get(`${handle}:${seq}`) ?? 'unknown';
  }

  // ---- calls --------------------------------------------------------------------------------

  private call(i: number, c: RawCall): void {
    // CUPTI names versioned entry points (cudaLaunchKernel_v7000); programs call them without the suffix.
    const id = c.domain * 65536 + c.cbid;
    let name = this.callNames.get(id);
    if (name === undefined)
      this.callNames.set(
        id,
        (name = (this.raw.apiNames.get(`${c.domain}:${c.cbid}`) ?? `api ${c.domain}:${c.cbid}`).replace(/_v\d+$/, '')),
      );
    const key = this.laneKey[i];
    // Destroying or querying a stream that never had work adds no lane.
    const passive = c.api === API.streamDestroy || c.api === API.streamQuery;
    const stream = key === undefined || (passive && !this.streamLane.has(key)) ? undefined : this.lane(key);
    const ok = c.result === 0;
    const acts = this.byCorr.get(c.correlationId);
    const begin = this.t(c.begin);
    const end = this.t(c.end);
    const site = this.sites.siteOf(c.pyStack);
    const context = this.sites.contextOf(c.pyStack);
    const add = (kind: CallKind, init: Partial<CallInit> = {}): number =>
      this.b.call({
        site,
        context,
        lane: this.thread(c.thread),
        kind,
        name,
        begin,
        end,
        stream,
        status: ok ? undefined : statusName(c.domain, c.result),
        answer: ok ? undefined : 'error',
        ...init,
      });
    const x: CallAt = { i, c, key, stream, ok, acts, begin, end, add };
    switch (c.api) {
      case API.launch: {
        const call = add('launch');
        this.releases.releaseQueuedLaunch(call, QUEUE_PENDING_OPS);
        for (const k of acts?.kernels ?? []) if (stream !== undefined) this.op(stream, call, this.kernelInit(k));
        break;
      }
      case API.graphLaunch:
        return this.graphLaunch(x);
      case API.record:
        return this.record(x);
      case API.streamWait:
        return this.streamWait(x);
      case API.eventQuery:
        return this.eventQuery(x);
      case API.eventSync:
        return this.eventSync(x);
      case API.streamSync: {
        const call = add('streamSync');
        if (stream !== undefined) this.release(call, this.order.last(stream));
        break;
      }
      case API.deviceSync: {
        // S21: the current device's streams only.
        const device = this.callDevice[i];
        this.release(add('deviceSync', { device }), this.order.lastOfDevice(device));
        break;
      }
      case API.elapsed:
        add('elapsed', {
          event: this.eventName(c.event),
          event2: this.eventName(c.event2),
          value: ok ? c.value : undefined,
        });
        break;
      case API.memcpy:
        this.copy(c, name, stream, acts, add);
        break;
      case API.memset:
        return this.memset(x, name);
      case API.hostFunc:
        return this.hostFunc(x);
      case API.eventCreate:
        if (ok) this.eventGen.set(c.event, { name: `event ${++this.events}`, base: c.seq === SEQ_UNKNOWN ? 0 : c.seq });
        add('api', { event: ok ? this.eventName(c.event) : undefined });
        break;
      case API.streamQuery:
        add('api', { answer: ok ? 'ready' : c.result === NOT_READY ? 'notReady' : 'error' });
        break;
      default:
        add('api', { event: c.api === API.eventDestroy ? this.eventName(c.event) : undefined });
    }
  }

  /**
   * A graph launch issues every node of the graph: CUPTI gives each node's activity record the
   * launch's correlation id. Its kernels, copies and memsets go on the launch's stream in the order
   * they ended (the same as the order they ran, unless branches of the graph overlapped), so a wait
   * on that stream is released by the node that ended last. A slow one is not read as a wait for
   * room in the launch queue (S19): its time grows with its nodes (about 2 µs a node under the
   * capture), and its nodes do not take an entry each, so that the ops still queued cannot tell.
   */
  private graphLaunch({ stream, acts, add }: CallAt): void {
    const call = add('launch');
    if (!acts || stream === undefined) return;
    const nodes = [
      ...acts.kernels.map((k) => this.kernelInit(k)),
      ...acts.memcpys.map((m) => this.copyInit([m], '', '')),
      ...acts.memsets.map((m) => this.memsetInit([m], '')),
    ].sort((a, b) => a.end - b.end || a.start - b.start);
    for (const init of nodes) this.op(stream, call, init);
  }

  private record({ c, ok, stream, begin, acts, add }: CallAt): void {
    const ev = this.eventName(c.event);
    const call = add('record', { event: ev });
    if (!ok || stream === undefined) return;
    const after = this.markerTime(stream, begin);
    const t = this.recordTime(after, acts?.events[0]?.deviceTimestamp);
    const op = this.op(stream, call, { kind: 'eventRecord', name: `record ${ev}`, event: ev, start: t, end: t });
    this.recordOps.set(`${c.event}:${c.seq}`, { op, corr: c.correlationId, after });
  }

  private streamWait({ c, ok, stream, begin, add }: CallAt): void {
    const ev = this.eventName(c.event);
    const call = add('streamWait', { event: ev });
    if (!ok || stream === undefined) return;
    const rec = this.bound(c.event, c.seq);
    if (rec === 'unknown') this.unboundWaits++;
    const otherwise = this.markerTime(stream, begin);
    const t = typeof rec === 'object' ? Math.max(otherwise, this.b.ops.cols.end[rec.op]) : otherwise;
    const op = this.op(stream, call, { kind: 'waitEvent', name: `wait ${ev}`, event: ev, start: t, end: t });
    if (typeof rec === 'object') {
      this.b.edge('event', rec.op, op);
      this.waitMarkers.set(op, { rec, otherwise });
    }
  }

  private eventQuery({ c, ok, end, add }: CallAt): void {
    const ready = ok;
    const notReady = c.result === NOT_READY;
    const rec = ready ? this.bound(c.event, c.seq) : undefined;
    if (typeof rec === 'object') this.seenCompleteBy(rec, end);
    add('query', { event: this.eventName(c.event), answer: ready ? 'ready' : notReady ? 'notReady' : 'error' });
  }

  private eventSync({ c, begin, end, add }: CallAt): void {
    const call = add('eventSync', { event: this.eventName(c.event) });
    const rec = this.bound(c.event, c.seq);
    if (rec === 'unknown') {
      this.unboundWaits++;
      this.b.calls.cols.releasedBy[call] = RELEASED_UNKNOWN;
      this.b.calls.cols.blockedNs[call] = end - begin;
    } else {
      if (rec !== 'never') this.seenCompleteBy(rec, end);
      this.release(call, rec === 'never' ? [] : [rec.op]);
    }
  }

  private memset({ c, stream, acts, add }: CallAt, name: string): void {
    const async = isAsyncApi(name);
    const call = add('memset', { bytes: c.bytes });
    const host = hostOf(c.hostMemory);
    if (!acts?.memsets.length || stream === undefined) return; // pageable memory: the runtime clears it on the host
    const init = this.memsetInit(acts.memsets, host);
    const op = this.op(stream, call, init);
    if (!async && init.hostMemory) this.release(call, [op]);
  }

  private hostFunc({ i, key, ok, stream, begin, add }: CallAt): void {
    const call = add('hostFunc');
    if (!ok || stream === undefined) return;
    const start = this.markerTime(stream, begin);
    this.op(stream, call, {
      kind: 'hostFunc',
      name: 'host function',
      start,
      end: Math.max(start, this.hostFuncEnd(i, key)),
    });
  }

  /** S17, S18: which copies the host waits for, and the op that let it go. */
  private copy(
    c: RawCall,
    name: string,
    stream: number | undefined,
    acts: Activities | undefined,
    add: (k: CallKind, i?: Partial<CallInit>) => number,
  ): void {
    const call = add('memcpy', { bytes: c.bytes });
    const dir = COPY_DIR[c.copyDir] ?? '';
    if (!acts?.memcpys.length || stream === undefined) return;
    const init = this.copyInit(acts.memcpys, dir, hostOf(c.hostMemory));
    const preds = this.order.predecessors(stream);
    const op = this.op(stream, call, init);
    if (!copyBlocksHost(init.copy ?? '', isAsyncApi(name), init.hostMemory)) return;
    // A pageable host-to-device copy may return once its data is staged: then the host waited
    // only for what the copy was ordered after.
    const end = this.b.calls.cols.end[call];
    this.release(call, this.b.ops.cols.end[op] <= end ? [op] : preds);
  }

  /** S20: the host function returned before the next real op on its stream started. */
  private hostFuncEnd(i: number, key: string | undefined): number {
    for (let j = i + 1; j < this.calls.length && j <= i + HOST_FUNC_LOOKAHEAD; j++) {
      if (this.laneKey[j] !== key) continue;
      const a = this.byCorr.get(this.calls[j].correlationId);
      const starts = a ? [...a.kernels, ...a.memcpys, ...a.memsets].map((x) => x.start) : [];
      if (starts.length) return this.t(Math.min(...starts));
    }
    return -Infinity;
  }

  /** A host wait on `awaited` ops (S12 to S16): the shared rule names the op that released it. */
  private release(call: number, awaited: number[]): void {
    const c = this.b.calls.cols;
    if (this.releases.release(call, awaited) >= 0) c.blockedNs[call] = c.end[call] - c.begin[call];
  }

  /**
   * CUPTI ties each event synchronize and stream wait to the record it saw through cudaEventSyncId.
   * That is a second, independent account of the binding: count where it agrees with ours.
   */
  private crossCheck(): void {
    const recordSyncId = new Map<number, number>();
    for (const e of this.raw.cudaEvents) if (e.syncId) recordSyncId.set(e.correlationId, e.syncId);
    if (!recordSyncId.size) return;
    const callByCorr = new Map(this.raw.calls.map((c) => [c.correlationId, c]));
    for (const s of this.raw.syncs) {
      if (
        (s.type !== SYNC_EVENT && s.type !== SYNC_STREAM_WAIT) ||
        !s.syncId ||
        s.syncId === 0xffffffff ||
        s.syncId >= 2 ** 53
      )
        continue;
      const c = callByCorr.get(s.correlationId);
      if (!c) continue;
      const rec = this.bound(c.event, c.seq);
      if (typeof rec !== 'object') continue;
      if (recordSyncId.get(rec.corr) === s.syncId) this.cuptiAgree++;
      else this.cuptiDisagree.push(`call ${c.correlationId}`);
    }
  }
}

const usesStream = (c: RawCall): boolean =>
  c.api === API.launch ||
  c.api === API.graphLaunch ||
  c.api === API.record ||
  c.api === API.streamWait ||
  c.api === API.streamSync ||
  c.api === API.memcpy ||
  c.api === API.memset ||
  c.api === API.hostFunc ||
  c.api === API.streamQuery ||
  c.api === API.streamDestroy;

const hostOf = (m: number): HostMemory =>
  m === HOST_MEMORY.pinned ? 'pinned' : m === HOST_MEMORY.pageable ? 'pageable' : '';
