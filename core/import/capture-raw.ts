// Reads the raw stream that the capture library (native/capture) writes: a header, then records of
// a type, a length and a body (native/capture/src/raw_format.h, docs/capture.md). Every way the
// bytes can be wrong is an ImportError that says what was wrong and at which byte.
import { ImportError } from './scan';
import { isFrameLine, MAX_SOURCE_LINE } from '../trace/model';

export const RAW_MAGIC = 'SYNCCAP1';
export const RAW_VERSION = 1;

/** raw_format.h's Api. */
export const API = {
  other: 0,
  launch: 1,
  record: 2,
  streamWait: 3,
  eventQuery: 4,
  eventSync: 5,
  streamSync: 6,
  deviceSync: 7,
  elapsed: 8,
  memcpy: 9,
  memset: 10,
  hostFunc: 11,
  streamCreate: 12,
  streamDestroy: 13,
  eventCreate: 14,
  eventDestroy: 15,
  streamQuery: 16,
  graphLaunch: 17,
} as const;

/** Stream handles of the two default streams; any other value is the program's own handle. */
export const LEGACY_STREAM = 1;
export const PER_THREAD_STREAM = 2;
export const HOST_MEMORY = { unknown: 0, pinned: 1, pageable: 2, device: 3 } as const;
export const COPY_DIR = ['', 'HtoD', 'DtoH', 'DtoD', 'HtoH'] as const;
/** A binding the library could not keep (its event table was full). */
export const SEQ_UNKNOWN = -1;

export const RECORD = {
  thread: 1,
  call: 2,
  kernel: 3,
  memcpy: 4,
  memset: 5,
  cudaEvent: 6,
  sync: 7,
  string: 8,
  apiName: 9,
  device: 10,
  dropped: 11,
  python: 12,
  pyFrame: 13,
  pyStack: 14,
  end: 99,
} as const;

/** What the capture library made of the process's Python (native/capture/src/python_stack.h's Status). */
export const PYTHON_STATUS = ['notPython', 'reading', 'unsupported', 'switchedOff'] as const;
export type PythonStatus = (typeof PYTHON_STATUS)[number];

export interface RawThread {
  index: number;
  osTid: number;
  name: string;
}
export interface RawCall {
  api: number;
  domain: number;
  cbid: number;
  thread: number;
  correlationId: number;
  result: number;
  begin: number;
  end: number;
  stream: number;
  event: number;
  event2: number;
  seq: number;
  seq2: number;
  bytes: number;
  flags: number;
  priority: number;
  value: number;
  streamId: number;
  hostMemory: number;
  copyDir: number;
  /** CUPTI's device id of the context current to the call; -1 when none was (or an older library wrote the file). */
  device: number;
  /** The calling thread's Python stack: a key of RawCapture.pyStacks; 0 for none. */
  pyStack: number;
}
export interface RawPyFrame {
  file: string;
  function: string;
  /** 0 where the line could not be read. */
  line: number;
  firstLine: number;
}
export interface RawPyStack {
  /** Frame ids, innermost first; 0 for a frame the library could not read. */
  frames: number[];
  /** The stack was deeper than the library keeps: its outermost frames are cut. */
  truncated: boolean;
}
export interface RawPython {
  status: PythonStatus;
  /** PY_VERSION_HEX of the interpreter; 0 when not known. */
  hexVersion: number;
  /** Frames whose code object did not check (a layout the library misread). */
  unreadable: number;
  /** The interpreter, or why stacks were not read. */
  text: string;
}
export interface RawKernel {
  correlationId: number;
  deviceId: number;
  streamId: number;
  name: number;
  start: number;
  end: number;
  grid: number;
  block: number;
}
export interface RawMemcpy {
  correlationId: number;
  deviceId: number;
  streamId: number;
  copyKind: number;
  srcKind: number;
  dstKind: number;
  bytes: number;
  start: number;
  end: number;
}
export interface RawMemset {
  correlationId: number;
  deviceId: number;
  streamId: number;
  memoryKind: number;
  bytes: number;
  start: number;
  end: number;
}
export interface RawCudaEvent {
  correlationId: number;
  deviceId: number;
  streamId: number;
  eventId: number;
  deviceTimestamp: number;
  syncId: number;
}
export interface RawSync {
  correlationId: number;
  type: number;
  streamId: number;
  eventId: number;
  start: number;
  end: number;
  syncId: number;
  returnValue: number;
}
export interface RawDevice {
  id: number;
  sms: number;
  computeCapability: string;
  name: string;
}

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
  /** Absent in a stream from a library that did not read Python. */
  python?: RawPython;
  pyFrames: Map<number, RawPyFrame>;
  pyStacks: Map<number, RawPyStack>;
}

const HEADER_BYTES = 40;
const BODY_BYTES: Record<number, number> = {
  [RECORD.thread]: 8,
  [RECORD.call]: 104,
  [RECORD.kernel]: 56,
  [RECORD.memcpy]: 40,
  [RECORD.memset]: 40,
  [RECORD.cudaEvent]: 32,
  [RECORD.sync]: 48,
  [RECORD.string]: 4,
  [RECORD.apiName]: 4,
  [RECORD.device]: 16,
  [RECORD.dropped]: 8,
  [RECORD.python]: 12,
  [RECORD.pyFrame]: 16,
  [RECORD.pyStack]: 8,
  [RECORD.end]: 32,
};
const TYPE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(RECORD).map(([k, v]) => [v, k]));
const TWO_32 = 2 ** 32;
const ALL_ONES = 0xffffffff;

export function isRawCapture(head: Uint8Array): boolean {
  return head.length >= 8 && new TextDecoder().decode(head.subarray(0, 8)) === RAW_MAGIC;
}

export function decodeCapture(bytes: Uint8Array): RawCapture {
  const r = new CaptureReader(bytes);
  const d: Decoding = {
    raw: {
      pid: r.u32(16),
      cuptiApiVersion: r.u32(20),
      cudaDriverVersion: r.v.getInt32(32, true),
      threads: [],
      calls: [],
      kernels: [],
      memcpys: [],
      memsets: [],
      cudaEvents: [],
      syncs: [],
      strings: new Map(),
      apiNames: new Map(),
      devices: [],
      dropped: 0,
      incompleteCalls: 0,
      pyFrames: new Map(),
      pyStacks: new Map(),
    },
    activities: 0,
    end: undefined,
  };
  let o = r.headerBytes;
  let index = 0;
  while (o < bytes.length) {
    o = readRecord(r, d, o, index);
    index++;
  }
  checkTotals(d, bytes.length, index);
  return d.raw;
}

/** The capture's header, checked, and readers of its little-endian fields. */
class CaptureReader {
  readonly v: DataView;
  readonly headerBytes: number;
  private readonly baseHi: number;
  private readonly baseLo: number;
  private readonly decoder = new TextDecoder();

  constructor(readonly bytes: Uint8Array) {
    if (bytes.length < 8 || !isRawCapture(bytes)) {
      throw new ImportError(`not a Syncscope raw capture: it does not start with "${RAW_MAGIC}"`, 0);
    }
    if (bytes.length < HEADER_BYTES)
      throw new ImportError(
        `raw capture truncated in its header: ${bytes.length} of ${HEADER_BYTES} bytes`,
        bytes.length,
      );
    this.v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const version = this.u32(8);
    if (version !== RAW_VERSION)
      throw new ImportError(
        `raw capture version ${version} is not supported (this Syncscope reads version ${RAW_VERSION})`,
        8,
      );
    this.headerBytes = this.u32(12);
    if (this.headerBytes < HEADER_BYTES || this.headerBytes > bytes.length)
      throw new ImportError(`raw capture header claims ${this.headerBytes} bytes`, 12);
    this.baseHi = this.u32(28);
    this.baseLo = this.u32(24);
  }

  u32(o: number): number {
    return this.v.getUint32(o, true);
  }

  /** Timestamps are 64-bit ns counts; differences from the start fit a double exactly. */
  time(o: number): number {
    return (this.u32(o + 4) - this.baseHi) * TWO_32 + (this.u32(o) - this.baseLo);
  }

  u64(o: number): number {
    return this.u32(o + 4) * TWO_32 + this.u32(o);
  }

  seq(o: number): number {
    return this.u32(o) === ALL_ONES && this.u32(o + 4) === ALL_ONES ? SEQ_UNKNOWN : this.u64(o);
  }

  text(o: number, n: number): string {
    return this.decoder.decode(this.bytes.subarray(o, o + n));
  }
}

interface Decoding {
  raw: RawCapture;
  /** Activity records read, which the end record counts too. */
  activities: number;
  end: { calls: number; activities: number; threads: number } | undefined;
}

/** Checks the header of the record at byte `o` and decodes its body; returns where the next record starts. */
function readRecord(r: CaptureReader, d: Decoding, o: number, index: number): number {
  const { bytes } = r;
  if (d.end) throw new ImportError(`raw capture has ${bytes.length - o} bytes after its end record`, o);
  if (bytes.length - o < 8)
    throw new ImportError(`raw capture truncated: record ${index} has ${bytes.length - o} of its 8 header bytes`, o);
  const type = r.v.getUint16(o, true);
  const n = r.u32(o + 4);
  const b = o + 8;
  const what = TYPE_NAMES[type] ? `the ${TYPE_NAMES[type]} record` : `record ${index} (type ${type})`;
  if (bytes.length - b < n)
    throw new ImportError(
      `raw capture truncated: ${what} at byte ${o} needs ${n} bytes, ${bytes.length - b} remain`,
      o,
    );
  const need = BODY_BYTES[type];
  const fixed =
    type === RECORD.call ||
    type === RECORD.kernel ||
    type === RECORD.memcpy ||
    type === RECORD.memset ||
    type === RECORD.cudaEvent ||
    type === RECORD.sync ||
    type === RECORD.end ||
    type === RECORD.dropped;
  if (need !== undefined && (fixed ? n !== need : n < need)) {
    throw new ImportError(
      `raw capture corrupt: ${what} at byte ${o} has ${n} bytes, ${fixed ? '' : 'at least '}${need} expected`,
      o,
    );
  }
  decodeBody(r, d, type, b, n);
  return b + n;
}

/** The body of one record of type `type`, `n` bytes at byte `b`, into the capture. */
function decodeBody(r: CaptureReader, d: Decoding, type: number, b: number, n: number): void {
  const activity = ACTIVITY_DECODERS[type];
  if (activity) {
    activity(r, d.raw, b, n);
    d.activities++;
  } else HOST_DECODERS[type]?.(r, d, b, n); // none: a newer library's record, skipped as its length allows
}

type BodyDecoder<T> = (r: CaptureReader, into: T, b: number, n: number) => void;

/** Records that count toward the footer's activity total. */
const ACTIVITY_DECODERS: Record<number, BodyDecoder<RawCapture>> = {
  [RECORD.kernel]: (r, raw, b) => raw.kernels.push(decodeKernel(r, b)),
  [RECORD.memcpy]: (r, raw, b) => raw.memcpys.push(decodeMemcpy(r, b)),
  [RECORD.memset]: (r, raw, b) => raw.memsets.push(decodeMemset(r, b)),
  [RECORD.cudaEvent]: (r, raw, b) => raw.cudaEvents.push(decodeCudaEvent(r, b)),
  [RECORD.sync]: (r, raw, b) => raw.syncs.push(decodeSync(r, b)),
  [RECORD.string]: (r, raw, b, n) => raw.strings.set(r.u32(b), r.text(b + 4, n - 4)),
  [RECORD.device]: (r, raw, b, n) => raw.devices.push(decodeDevice(r, b, n)),
};

/** The host side's records and the stream's bookkeeping. */
const HOST_DECODERS: Record<number, BodyDecoder<Decoding>> = {
  [RECORD.thread]: (r, d, b, n) =>
    d.raw.threads.push({ index: r.u32(b), osTid: r.u32(b + 4), name: r.text(b + 8, n - 8) }),
  [RECORD.call]: (r, d, b) => d.raw.calls.push(decodeCall(r, b)),
  [RECORD.apiName]: (r, d, b, n) =>
    d.raw.apiNames.set(`${r.bytes[b]}:${r.v.getUint16(b + 2, true)}`, r.text(b + 4, n - 4)),
  [RECORD.dropped]: (r, d, b) => {
    d.raw.dropped += r.u64(b);
  },
  [RECORD.python]: (r, d, b, n) => {
    const status = PYTHON_STATUS[r.u32(b)];
    if (!status) throw new ImportError(`raw capture corrupt: Python status ${r.u32(b)} is not one of 0 to 3`, b);
    d.raw.python = { status, hexVersion: r.u32(b + 4), unreadable: r.u32(b + 8), text: r.text(b + 12, n - 12) };
  },
  [RECORD.pyFrame]: (r, d, b, n) => {
    const fileBytes = r.u32(b + 12);
    if (fileBytes > n - 16)
      throw new ImportError(`raw capture corrupt: a Python frame names a file of ${fileBytes} bytes in ${n - 16}`, b);
    const line = r.u32(b + 4);
    if (!isFrameLine(line))
      throw new ImportError(
        `raw capture corrupt: a Python frame is at line ${line}; expected 0 (unknown) to ${MAX_SOURCE_LINE}`,
        b,
      );
    d.raw.pyFrames.set(r.u32(b), {
      line,
      firstLine: r.u32(b + 8),
      file: r.text(b + 16, fileBytes),
      function: r.text(b + 16 + fileBytes, n - 16 - fileBytes),
    });
  },
  [RECORD.pyStack]: (r, d, b, n) => {
    if ((n - 8) % 4 !== 0)
      throw new ImportError(
        `raw capture corrupt: a Python stack has ${n - 8} bytes of frame ids, not a multiple of 4`,
        b,
      );
    const frames: number[] = [];
    for (let o = b + 8; o < b + n; o += 4) frames.push(r.u32(o));
    d.raw.pyStacks.set(r.u32(b), { frames, truncated: (r.u32(b + 4) & 1) === 1 });
  },
  [RECORD.end]: (r, d, b) => {
    d.end = { calls: r.u64(b), activities: r.u64(b + 8), threads: r.u32(b + 24) };
    d.raw.incompleteCalls = r.u32(b + 28);
  },
};

const decodeCall = (r: CaptureReader, b: number): RawCall => ({
  api: r.bytes[b],
  domain: r.bytes[b + 1],
  cbid: r.v.getUint16(b + 2, true),
  thread: r.u32(b + 4),
  correlationId: r.u32(b + 8),
  result: r.v.getInt32(b + 12, true),
  begin: r.time(b + 16),
  end: r.time(b + 24),
  stream: r.u64(b + 32),
  event: r.u64(b + 40),
  event2: r.u64(b + 48),
  seq: r.seq(b + 56),
  seq2: r.seq(b + 64),
  bytes: r.u64(b + 72),
  flags: r.u32(b + 80),
  priority: r.v.getInt32(b + 84, true),
  value: r.v.getFloat32(b + 88, true),
  streamId: r.u32(b + 92),
  hostMemory: r.bytes[b + 96],
  copyDir: r.bytes[b + 97],
  device: r.bytes[b + 99] - 1,
  pyStack: r.u32(b + 100),
});

const decodeKernel = (r: CaptureReader, b: number): RawKernel => ({
  correlationId: r.u32(b),
  deviceId: r.u32(b + 4),
  streamId: r.u32(b + 8),
  name: r.u32(b + 12),
  start: r.time(b + 16),
  end: r.time(b + 24),
  grid: r.v.getInt32(b + 32, true) * r.v.getInt32(b + 36, true) * r.v.getInt32(b + 40, true),
  block: r.v.getInt32(b + 44, true) * r.v.getInt32(b + 48, true) * r.v.getInt32(b + 52, true),
});

const decodeMemcpy = (r: CaptureReader, b: number): RawMemcpy => ({
  correlationId: r.u32(b),
  deviceId: r.u32(b + 4),
  streamId: r.u32(b + 8),
  copyKind: r.bytes[b + 12],
  srcKind: r.bytes[b + 13],
  dstKind: r.bytes[b + 14],
  bytes: r.u64(b + 16),
  start: r.time(b + 24),
  end: r.time(b + 32),
});

const decodeMemset = (r: CaptureReader, b: number): RawMemset => ({
  correlationId: r.u32(b),
  deviceId: r.u32(b + 4),
  streamId: r.u32(b + 8),
  memoryKind: r.u32(b + 12),
  bytes: r.u64(b + 16),
  start: r.time(b + 24),
  end: r.time(b + 32),
});

/** A device timestamp of 0 means the event was never recorded on the GPU. */
const decodeCudaEvent = (r: CaptureReader, b: number): RawCudaEvent => ({
  correlationId: r.u32(b),
  deviceId: r.u32(b + 4),
  streamId: r.u32(b + 8),
  eventId: r.u32(b + 12),
  deviceTimestamp: r.u64(b + 16) === 0 ? NaN : r.time(b + 16),
  syncId: r.u64(b + 24),
});

const decodeSync = (r: CaptureReader, b: number): RawSync => ({
  correlationId: r.u32(b),
  type: r.u32(b + 4),
  streamId: r.u32(b + 8),
  eventId: r.u32(b + 12),
  start: r.time(b + 16),
  end: r.time(b + 24),
  syncId: r.u64(b + 32),
  returnValue: r.u32(b + 40),
});

const decodeDevice = (r: CaptureReader, b: number, n: number): RawDevice => ({
  id: r.u32(b),
  sms: r.u32(b + 4),
  computeCapability: `${r.u32(b + 8)}.${r.u32(b + 12)}`,
  name: r.text(b + 16, n - 16),
});

/** The end record's counts against what the stream held. */
function checkTotals(d: Decoding, length: number, index: number): void {
  const { raw, end } = d;
  if (!end) {
    throw new ImportError(
      `raw capture truncated: it ends at byte ${length}, after ${index} records, without its end record`,
      length,
    );
  }
  if (end.calls !== raw.calls.length)
    throw new ImportError(
      `raw capture corrupt: its end record counts ${end.calls} calls, the stream holds ${raw.calls.length}`,
      length,
    );
  if (end.threads !== raw.threads.length)
    throw new ImportError(
      `raw capture corrupt: its end record counts ${end.threads} threads, the stream holds ${raw.threads.length}`,
      length,
    );
  if (end.activities !== d.activities)
    throw new ImportError(
      `raw capture corrupt: its end record counts ${end.activities} activity records, the stream holds ${d.activities}`,
      length,
    );
  for (const c of raw.calls) {
    if (c.thread >= raw.threads.length)
      throw new ImportError(
        `raw capture corrupt: call ${c.correlationId} names thread ${c.thread}, but there are ${raw.threads.length}`,
      );
    if (c.pyStack !== 0 && !raw.pyStacks.has(c.pyStack))
      throw new ImportError(
        `raw capture corrupt: call ${c.correlationId} names Python stack ${c.pyStack}, which the stream does not hold`,
      );
  }
  for (const [id, s] of raw.pyStacks) {
    const missing = s.frames.find((f) => f !== 0 && !raw.pyFrames.has(f));
    if (missing !== undefined)
      throw new ImportError(
        `raw capture corrupt: Python stack ${id} names frame ${missing}, which the stream does not hold`,
      );
  }
}
