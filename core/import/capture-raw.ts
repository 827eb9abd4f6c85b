// Reads the raw stream that the capture library (native/capture) writes: a header, then records of
// a type, a length and a body (native/capture/src/raw_format.h, docs/capture.md). Every way the
// bytes can be wrong is an ImportError that says what was wrong and at which byte.
import { ImportError } from './scan';

export const RAW_MAGIC = 'SYNCCAP1';
export const RAW_VERSION = 1;

/** raw_format.h's Api. */
export const API = {
  other: 0, launch: 1, record: 2, streamWait: 3, eventQuery: 4, eventSync: 5, streamSync: 6, deviceSync: 7,
  elapsed: 8, memcpy: 9, memset: 10, hostFunc: 11, streamCreate: 12, streamDestroy: 13, eventCreate: 14,
  eventDestroy: 15, streamQuery: 16,
} as const;

/** Stream handles of the two default streams; any other value is the program's own handle. */
export const LEGACY_STREAM = 1;
export const PER_THREAD_STREAM = 2;
export const HOST_MEMORY = { unknown: 0, pinned: 1, pageable: 2, device: 3 } as const;
export const COPY_DIR = ['', 'HtoD', 'DtoH', 'DtoD', 'HtoH'] as const;
/** A binding the library could not keep (its event table was full). */
export const SEQ_UNKNOWN = -1;

export const RECORD = { thread: 1, call: 2, kernel: 3, memcpy: 4, memset: 5, cudaEvent: 6, sync: 7, string: 8, apiName: 9, device: 10, dropped: 11, end: 99 } as const;

export interface RawThread { index: number; osTid: number; name: string }
export interface RawCall {
  api: number; domain: number; cbid: number; thread: number; correlationId: number; result: number;
  begin: number; end: number; stream: number; event: number; event2: number; seq: number; seq2: number;
  bytes: number; flags: number; priority: number; value: number; streamId: number; hostMemory: number; copyDir: number;
  /** CUPTI's device id of the context current to the call; -1 when none was (or an older library wrote the file). */
  device: number;
}
export interface RawKernel { correlationId: number; deviceId: number; streamId: number; name: number; start: number; end: number; grid: number; block: number }
export interface RawMemcpy { correlationId: number; deviceId: number; streamId: number; copyKind: number; srcKind: number; dstKind: number; bytes: number; start: number; end: number }
export interface RawMemset { correlationId: number; deviceId: number; streamId: number; memoryKind: number; bytes: number; start: number; end: number }
export interface RawCudaEvent { correlationId: number; deviceId: number; streamId: number; eventId: number; deviceTimestamp: number; syncId: number }
export interface RawSync { correlationId: number; type: number; streamId: number; eventId: number; start: number; end: number; syncId: number; returnValue: number }
export interface RawDevice { id: number; sms: number; computeCapability: string; name: string }

export interface RawCapture {
  pid: number;
  cuptiApiVersion: number;
  cudaDriverVersion: number;
  threads: RawThread[];
  calls: RawCall[];
  kernels: RawKernel[];
  memcpys: RawMemcpy[];
  memsets: RawMemset[];
  cudaEvents: RawCudaEvent[];
  syncs: RawSync[];
  strings: Map<number, string>;
  /** API names by `${domain}:${cbid}`. */
  apiNames: Map<string, string>;
  devices: RawDevice[];
  dropped: number;
  /** Calls still in progress when the stream was written (a snapshot taken during a blocking call). */
  incompleteCalls: number;
}

const HEADER_BYTES = 40;
const BODY_BYTES: Record<number, number> = {
  [RECORD.thread]: 8, [RECORD.call]: 104, [RECORD.kernel]: 56, [RECORD.memcpy]: 40, [RECORD.memset]: 40,
  [RECORD.cudaEvent]: 32, [RECORD.sync]: 48, [RECORD.string]: 4, [RECORD.apiName]: 4, [RECORD.device]: 16,
  [RECORD.dropped]: 8, [RECORD.end]: 32,
};
const TYPE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(RECORD).map(([k, v]) => [v, k]));
const TWO_32 = 2 ** 32;
const ALL_ONES = 0xffffffff;

export function isRawCapture(head: Uint8Array): boolean {
  return head.length >= 8 && new TextDecoder().decode(head.subarray(0, 8)) === RAW_MAGIC;
}

export function decodeCapture(bytes: Uint8Array): RawCapture {
  if (bytes.length < 8 || !isRawCapture(bytes)) {
    throw new ImportError(`not a Syncscope raw capture: it does not start with "${RAW_MAGIC}"`, 0);
  }
  if (bytes.length < HEADER_BYTES) throw new ImportError(`raw capture truncated in its header: ${bytes.length} of ${HEADER_BYTES} bytes`, bytes.length);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (o: number) => v.getUint32(o, true);
  const version = u32(8);
  if (version !== RAW_VERSION) throw new ImportError(`raw capture version ${version} is not supported (this Syncscope reads version ${RAW_VERSION})`, 8);
  const headerBytes = u32(12);
  if (headerBytes < HEADER_BYTES || headerBytes > bytes.length) throw new ImportError(`raw capture header claims ${headerBytes} bytes`, 12);
  const baseHi = u32(28);
  const baseLo = u32(24);
  // Timestamps are 64-bit ns counts; differences from the start fit a double exactly.
  const time = (o: number) => (u32(o + 4) - baseHi) * TWO_32 + (u32(o) - baseLo);
  const u64 = (o: number) => u32(o + 4) * TWO_32 + u32(o);
  const seq = (o: number) => (u32(o) === ALL_ONES && u32(o + 4) === ALL_ONES ? SEQ_UNKNOWN : u64(o));
  const text = (o: number, n: number) => new TextDecoder().decode(bytes.subarray(o, o + n));

  const raw: RawCapture = {
    pid: u32(16), cuptiApiVersion: u32(20), cudaDriverVersion: v.getInt32(32, true),
    threads: [], calls: [], kernels: [], memcpys: [], memsets: [], cudaEvents: [], syncs: [],
    strings: new Map(), apiNames: new Map(), devices: [], dropped: 0, incompleteCalls: 0,
  };
  let activities = 0;
  let end: { calls: number; activities: number; threads: number } | undefined;
  let o = headerBytes;
  let index = 0;
  while (o < bytes.length) {
    if (end) throw new ImportError(`raw capture has ${bytes.length - o} bytes after its end record`, o);
    if (bytes.length - o < 8) throw new ImportError(`raw capture truncated: record ${index} has ${bytes.length - o} of its 8 header bytes`, o);
    const type = v.getUint16(o, true);
    const n = u32(o + 4);
    const b = o + 8;
    const what = TYPE_NAMES[type] ? `the ${TYPE_NAMES[type]} record` : `record ${index} (type ${type})`;
    if (bytes.length - b < n) throw new ImportError(`raw capture truncated: ${what} at byte ${o} needs ${n} bytes, ${bytes.length - b} remain`, o);
    const need = BODY_BYTES[type];
    const fixed = type === RECORD.call || type === RECORD.kernel || type === RECORD.memcpy || type === RECORD.memset ||
      type === RECORD.cudaEvent || type === RECORD.sync || type === RECORD.end || type === RECORD.dropped;
    if (need !== undefined && (fixed ? n !== need : n < need)) {
      throw new ImportError(`raw capture corrupt: ${what} at byte ${o} has ${n} bytes, ${fixed ? '' : 'at least '}${need} expected`, o);
    }
    switch (type) {
      case RECORD.thread:
        raw.threads.push({ index: u32(b), osTid: u32(b + 4), name: text(b + 8, n - 8) });
        break;
      case RECORD.call:
        raw.calls.push({
          api: bytes[b], domain: bytes[b + 1], cbid: v.getUint16(b + 2, true), thread: u32(b + 4), correlationId: u32(b + 8),
          result: v.getInt32(b + 12, true), begin: time(b + 16), end: time(b + 24), stream: u64(b + 32), event: u64(b + 40),
          event2: u64(b + 48), seq: seq(b + 56), seq2: seq(b + 64), bytes: u64(b + 72), flags: u32(b + 80),
          priority: v.getInt32(b + 84, true), value: v.getFloat32(b + 88, true), streamId: u32(b + 92),
          hostMemory: bytes[b + 96], copyDir: bytes[b + 97], device: bytes[b + 99] - 1,
        });
        break;
      case RECORD.kernel:
        raw.kernels.push({
          correlationId: u32(b), deviceId: u32(b + 4), streamId: u32(b + 8), name: u32(b + 12), start: time(b + 16), end: time(b + 24),
          grid: v.getInt32(b + 32, true) * v.getInt32(b + 36, true) * v.getInt32(b + 40, true),
          block: v.getInt32(b + 44, true) * v.getInt32(b + 48, true) * v.getInt32(b + 52, true),
        });
        activities++;
        break;
      case RECORD.memcpy:
        raw.memcpys.push({
          correlationId: u32(b), deviceId: u32(b + 4), streamId: u32(b + 8), copyKind: bytes[b + 12], srcKind: bytes[b + 13],
          dstKind: bytes[b + 14], bytes: u64(b + 16), start: time(b + 24), end: time(b + 32),
        });
        activities++;
        break;
      case RECORD.memset:
        raw.memsets.push({ correlationId: u32(b), deviceId: u32(b + 4), streamId: u32(b + 8), memoryKind: u32(b + 12), bytes: u64(b + 16), start: time(b + 24), end: time(b + 32) });
        activities++;
        break;
      case RECORD.cudaEvent: {
        const device = u64(b + 16);
        raw.cudaEvents.push({ correlationId: u32(b), deviceId: u32(b + 4), streamId: u32(b + 8), eventId: u32(b + 12), deviceTimestamp: device === 0 ? NaN : time(b + 16), syncId: u64(b + 24) });
        activities++;
        break;
      }
      case RECORD.sync:
        raw.syncs.push({ correlationId: u32(b), type: u32(b + 4), streamId: u32(b + 8), eventId: u32(b + 12), start: time(b + 16), end: time(b + 24), syncId: u64(b + 32), returnValue: u32(b + 40) });
        activities++;
        break;
      case RECORD.string:
        raw.strings.set(u32(b), text(b + 4, n - 4));
        activities++;
        break;
      case RECORD.apiName:
        raw.apiNames.set(`${bytes[b]}:${v.getUint16(b + 2, true)}`, text(b + 4, n - 4));
        break;
      case RECORD.device:
        raw.devices.push({ id: u32(b), sms: u32(b + 4), computeCapability: `${u32(b + 8)}.${u32(b + 12)}`, name: text(b + 16, n - 16) });
        activities++;
        break;
      case RECORD.dropped:
        raw.dropped += u64(b);
        break;
      case RECORD.end:
        end = { calls: u64(b), activities: u64(b + 8), threads: u32(b + 24) };
        raw.incompleteCalls = u32(b + 28);
        break;
      default:
        break; // a newer library's record: skipped, as the length allows
    }
    o = b + n;
    index++;
  }
  if (!end) {
    throw new ImportError(`raw capture truncated: it ends at byte ${bytes.length}, after ${index} records, without its end record`, bytes.length);
  }
  if (end.calls !== raw.calls.length) throw new ImportError(`raw capture corrupt: its end record counts ${end.calls} calls, the stream holds ${raw.calls.length}`, bytes.length);
  if (end.threads !== raw.threads.length) throw new ImportError(`raw capture corrupt: its end record counts ${end.threads} threads, the stream holds ${raw.threads.length}`, bytes.length);
  if (end.activities !== activities) throw new ImportError(`raw capture corrupt: its end record counts ${end.activities} activity records, the stream holds ${activities}`, bytes.length);
  for (const c of raw.calls) {
    if (c.thread >= raw.threads.length) throw new ImportError(`raw capture corrupt: call ${c.correlationId} names thread ${c.thread}, but there are ${raw.threads.length}`);
  }
  return raw;
}
