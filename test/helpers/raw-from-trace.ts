// A raw capture of what a trace shows (a simulated run, say): the calls the program would have
// made, with the handles, record numbers and activity records the capture library would have
// written. Converting it back must give the same structure as the trace itself.
import { LEGACY_STREAM, PER_THREAD_STREAM } from '../../core/import/capture-raw';
import { ANSWERS, CALL_KINDS, COPY_KINDS, HOST_MEMORY, OP_KINDS, str, type Trace } from '../../core/trace/model';
import { RawCaptureWriter, type CallSpec } from './raw-capture';

const COPY_KIND = { HtoD: 1, DtoH: 2, DtoD: 8, HtoH: 9, PtoP: 10 } as Record<string, number>;
const MEMORY = { pageable: 1, pinned: 2 } as Record<string, number>;

export function rawFromTrace(t: Trace): Uint8Array {
  const w = new RawCaptureWriter();
  const threadIndex = new Map<number, number>();
  t.lanes
    .filter((l) => l.kind === 'thread')
    .forEach((l, i) => threadIndex.set(l.id, i === 0 ? 0 : w.thread(l.name, 9000 + i)));
  const handle = (lane: number): number => {
    const l = t.lanes[lane];
    return l.legacyDefault ? LEGACY_STREAM : l.perThreadDefault ? PER_THREAD_STREAM : 0x10000 + lane * 16;
  };
  let clock = -1_000_000;
  for (const l of t.lanes) {
    if (l.kind !== 'stream' || l.legacyDefault || l.perThreadDefault) continue;
    w.call({
      api: 'streamCreate',
      name: 'cudaStreamCreateWithPriority',
      begin: clock,
      end: clock + 10,
      stream: handle(l.id),
      flags: l.nonBlocking ? 1 : 0,
      priority: l.priority ?? 0,
      streamId: l.id,
      device: l.device,
    });
    clock += 100;
  }
  const events = new Map<string, number>();
  const counts = new Map<number, number>();
  const eventHandle = (name: string): number => {
    let h = events.get(name);
    if (h === undefined) {
      h = 0x900000 + events.size * 16;
      events.set(name, h);
      w.call({ api: 'eventCreate', name: 'cudaEventCreate', begin: clock, end: clock + 10, event: h, seq: 0 });
      clock += 100;
    }
    return h;
  };
  for (let c = 0; c < t.calls.count; c++)
    for (const id of [t.calls.event[c], t.calls.event2[c]]) if (id) eventHandle(str(t, id));

  const opsOf = new Map<number, number[]>();
  for (let o = 0; o < t.ops.count; o++)
    if (t.ops.call[o] >= 0) opsOf.set(t.ops.call[o], [...(opsOf.get(t.ops.call[o]) ?? []), o]);
  // The device current to each call, as the capture library reads it from the call's context: a
  // stream op's stream's, a device synchronize's or cudaSetDevice's own, else the thread's last.
  const current = new Map<number, number>();
  const order = [...Array(t.calls.count).keys()].sort((a, b) => t.calls.begin[a] - t.calls.begin[b] || a - b);
  for (const c of order) {
    const kind = CALL_KINDS[t.calls.kind[c]];
    const named = kind === 'deviceSync' || str(t, t.calls.name[c]) === 'cudaSetDevice';
    const device = named
      ? t.calls.device[c]
      : t.calls.stream[c] >= 0
        ? t.lanes[t.calls.stream[c]].device
        : (current.get(t.calls.lane[c]) ?? 0);
    current.set(t.calls.lane[c], device);
    const ev = t.calls.event[c] ? eventHandle(str(t, t.calls.event[c])) : 0;
    const ev2 = t.calls.event2[c] ? eventHandle(str(t, t.calls.event2[c])) : 0;
    const base: Omit<CallSpec, 'api'> = {
      name: str(t, t.calls.name[c]),
      thread: threadIndex.get(t.calls.lane[c]) ?? 0,
      begin: t.calls.begin[c],
      end: t.calls.end[c],
      stream: t.calls.stream[c] >= 0 ? handle(t.calls.stream[c]) : 0,
      event: ev,
      event2: ev2,
      seq: counts.get(ev) ?? 0,
      seq2: counts.get(ev2) ?? 0,
      bytes: t.calls.bytes[c],
      result: ANSWERS[t.calls.answer[c]] === 'notReady' ? 600 : ANSWERS[t.calls.answer[c]] === 'error' ? 400 : 0,
      value: Number.isNaN(t.calls.value[c]) ? 0 : t.calls.value[c],
      device,
    };
    const api = (
      {
        launch: 'launch',
        record: 'record',
        streamWait: 'streamWait',
        query: 'eventQuery',
        eventSync: 'eventSync',
        streamSync: 'streamSync',
        deviceSync: 'deviceSync',
        elapsed: 'elapsed',
        memcpy: 'memcpy',
        memset: 'memset',
        hostFunc: 'hostFunc',
      } as Record<string, CallSpec['api']>
    )[kind];
    if (!api) continue;
    if (api === 'record') base.seq = counts.set(ev, (counts.get(ev) ?? 0) + 1).get(ev);
    const corr = w.call({ api, ...base });
    for (const o of opsOf.get(c) ?? []) {
      const streamId = t.ops.lane[o];
      const dev = t.lanes[streamId].device;
      const k = OP_KINDS[t.ops.kind[o]];
      const host = MEMORY[HOST_MEMORY[t.ops.hostMemory[o]]] ?? 3;
      const copy = COPY_KINDS[t.ops.copy[o]];
      if (k === 'kernel')
        w.kernel(
          corr,
          str(t, t.ops.name[o]).replace(/\s+/g, '_'),
          t.ops.start[o],
          t.ops.end[o],
          streamId,
          132,
          256,
          dev,
        );
      else if (k === 'memcpy')
        w.memcpy(
          corr,
          COPY_KIND[copy] ?? 0,
          copy === 'DtoH' ? 3 : host,
          copy === 'DtoH' ? host : 3,
          t.ops.bytes[o],
          t.ops.start[o],
          t.ops.end[o],
          streamId,
          dev,
        );
      else if (k === 'eventRecord') w.cudaEvent(corr, 0, streamId, t.ops.end[o], dev);
      else if (k === 'memset')
        w.memset(corr, t.ops.hostMemory[o] ? host : 3, t.ops.bytes[o], t.ops.start[o], t.ops.end[o], streamId, dev);
    }
  }
  return w.bytes();
}
