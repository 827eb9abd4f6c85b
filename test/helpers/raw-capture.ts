// Writes raw capture streams the way the capture library does (native/capture/src/raw_format.h),
// so converter tests build the exact situations they check, byte for byte.
import { API, RECORD, SEQ_UNKNOWN } from '../../core/import/capture-raw';

/** CUPTI timestamps are large (ns since an epoch); the converter must subtract them exactly. */
const BASE = 1_764_000_000_000_000_000n;

export interface CallSpec {
  api: keyof typeof API;
  name: string;
  thread?: number;
  begin: number;
  end: number;
  result?: number;
  stream?: number;
  event?: number;
  event2?: number;
  seq?: number;
  seq2?: number;
  bytes?: number;
  flags?: number;
  priority?: number;
  value?: number;
  streamId?: number;
  hostMemory?: number;
  copyDir?: number;
  /** The device of the context current to the call; none by default, as when no context was current. */
  device?: number;
  /** A stack from RawCaptureWriter.pyStack; none by default. */
  pyStack?: number;
}

/** A Python frame as the capture library interns it: file, line, function. */
/** A frame: its file, line and function, and its code's first line (co_firstlineno; the line where not given). */
export type PyFrameSpec = [file: string, line: number, fn: string, firstLine?: number];

class Bytes {
  private buf = new Uint8Array(1 << 12);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf);
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): this {
    this.room(1);
    this.view.setUint8(this.length, v);
    this.length += 1;
    return this;
  }
  u16(v: number): this {
    this.room(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
    return this;
  }
  u32(v: number): this {
    this.room(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
    return this;
  }
  i32(v: number): this {
    this.room(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
    return this;
  }
  f32(v: number): this {
    this.room(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
    return this;
  }
  u64(v: bigint): this {
    this.room(8);
    this.view.setBigUint64(this.length, v, true);
    this.length += 8;
    return this;
  }
  time(ns: number): this {
    return this.u64(BASE + BigInt(ns));
  }
  text(s: string): this {
    return this.concat(new TextEncoder().encode(s));
  }
  concat(b: Uint8Array): this {
    for (const x of b) this.u8(x);
    return this;
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

export class RawCaptureWriter {
  /** The main thread (its tid is the pid) is thread 0, as in a real process. */
  private readonly threads: { osTid: number; name: string }[] = [{ osTid: 4242, name: 'python3' }];
  private readonly calls: (CallSpec & { corr: number })[] = [];
  private readonly activities: Bytes[] = [];
  private readonly cbids = new Map<string, number>();
  private readonly kernelNames = new Map<string, number>();
  private corr = 0;
  pid = 4242;
  dropped = 0;
  /** What the library made of Python: status (python_stack.h), text, PY_VERSION_HEX; none written when unset. */
  python: { status: number; text: string; hexVersion: number; unreadable?: number } | undefined;
  private readonly pyFrames = new Map<string, number>();
  private readonly pyStacks: { frames: number[]; truncated: boolean }[] = [];

  /** Interns a Python stack, innermost frame first; its id, for CallSpec.pyStack. */
  pyStack(frames: PyFrameSpec[], truncated = false): number {
    const ids = frames.map((f) => {
      const key = JSON.stringify(f);
      if (!this.pyFrames.has(key)) this.pyFrames.set(key, this.pyFrames.size + 1);
      return this.pyFrames.get(key)!;
    });
    this.pyStacks.push({ frames: ids, truncated });
    return this.pyStacks.length;
  }

  thread(name: string, osTid = this.pid + this.threads.length): number {
    this.threads.push({ osTid, name });
    return this.threads.length - 1;
  }

  /** Adds a call; returns its correlation id, which activity records name. */
  call(spec: CallSpec): number {
    if (!this.cbids.has(spec.name)) this.cbids.set(spec.name, this.cbids.size + 10);
    const corr = ++this.corr;
    this.calls.push({ ...spec, corr });
    return corr;
  }

  kernel(
    corr: number,
    name: string,
    start: number,
    end: number,
    streamId = 7,
    grid = 132,
    block = 256,
    device = 0,
  ): void {
    if (!this.kernelNames.has(name)) {
      const id = this.kernelNames.size + 1;
      this.kernelNames.set(name, id);
      this.record(RECORD.string, new Bytes().u32(id).text(name));
    }
    this.record(
      RECORD.kernel,
      new Bytes()
        .u32(corr)
        .u32(device)
        .u32(streamId)
        .u32(this.kernelNames.get(name) ?? 0)
        .time(start)
        .time(end)
        .i32(grid)
        .i32(1)
        .i32(1)
        .i32(block)
        .i32(1)
        .i32(1),
    );
  }

  /** `copyKind`, `src`, `dst`: CUPTI's memcpy and memory kinds (1 HtoD, 2 DtoH; 1 pageable, 2 pinned, 3 device). */
  memcpy(
    corr: number,
    copyKind: number,
    src: number,
    dst: number,
    bytes: number,
    start: number,
    end: number,
    streamId = 7,
    device = 0,
  ): void {
    this.record(
      RECORD.memcpy,
      new Bytes()
        .u32(corr)
        .u32(device)
        .u32(streamId)
        .u8(copyKind)
        .u8(src)
        .u8(dst)
        .u8(0)
        .u64(BigInt(bytes))
        .time(start)
        .time(end),
    );
  }

  memset(corr: number, memoryKind: number, bytes: number, start: number, end: number, streamId = 7, device = 0): void {
    this.record(
      RECORD.memset,
      new Bytes().u32(corr).u32(device).u32(streamId).u32(memoryKind).u64(BigInt(bytes)).time(start).time(end),
    );
  }

  /** `deviceTimestamp`: when the GPU passed the record (ns, as the other times), or none. */
  cudaEvent(corr: number, syncId: number, streamId = 7, deviceTimestamp?: number, deviceId = 0): void {
    const device = new Bytes();
    if (deviceTimestamp === undefined) device.u64(0n);
    else device.time(deviceTimestamp);
    this.record(
      RECORD.cudaEvent,
      new Bytes().u32(corr).u32(deviceId).u32(streamId).u32(1).concat(device.bytes()).u64(BigInt(syncId)),
    );
  }

  /** `type`: 1 event synchronize, 2 stream wait event. */
  sync(corr: number, type: number, syncId: number, start: number, end: number): void {
    this.record(
      RECORD.sync,
      new Bytes().u32(corr).u32(type).u32(7).u32(1).time(start).time(end).u64(BigInt(syncId)).u32(0).u32(0),
    );
  }

  device(name: string, sms: number, id = 0): void {
    this.record(RECORD.device, new Bytes().u32(id).u32(sms).u32(9).u32(0).text(name));
  }

  private pythonRecords(out: Bytes): void {
    const put = (type: number, body: Uint8Array) => out.u16(type).u16(0).u32(body.length).concat(body);
    const py = this.python;
    if (py)
      put(
        RECORD.python,
        new Bytes()
          .u32(py.status)
          .u32(py.hexVersion)
          .u32(py.unreadable ?? 0)
          .text(py.text)
          .bytes(),
      );
    for (const [key, id] of this.pyFrames) {
      const [file, line, fn, firstLine = line] = JSON.parse(key) as PyFrameSpec;
      const name = new TextEncoder().encode(file);
      put(RECORD.pyFrame, new Bytes().u32(id).u32(line).u32(firstLine).u32(name.length).concat(name).text(fn).bytes());
    }
    this.pyStacks.forEach((s, i) => {
      const body = new Bytes().u32(i + 1).u32(s.truncated ? 1 : 0);
      for (const f of s.frames) body.u32(f);
      put(RECORD.pyStack, body.bytes());
    });
  }

  private record(type: number, body: Bytes): void {
    const b = body.bytes();
    this.activities.push(new Bytes().u16(type).u16(0).u32(b.length).concat(b));
  }

  /** The whole stream; `end: false` leaves out the end record, as a killed writer would. */
  bytes(opts: { end?: boolean; version?: number } = {}): Uint8Array {
    const out = new Bytes()
      .text('SYNCCAP1')
      .u32(opts.version ?? 1)
      .u32(40)
      .u32(this.pid)
      .u32(130001)
      .u64(BASE)
      .i32(13000)
      .u32(0);
    this.threads.forEach((t, i) => {
      const body = new Bytes().u32(i).u32(t.osTid).text(t.name).bytes();
      out.u16(RECORD.thread).u16(0).u32(body.length).concat(body);
    });
    for (const c of this.calls) {
      const domain = c.name.startsWith('cuda') ? 2 : 1;
      const seq = (v: number | undefined) => (v === SEQ_UNKNOWN ? 0xffffffffffffffffn : BigInt(v ?? 0));
      const body = new Bytes()
        .u8(API[c.api])
        .u8(domain)
        .u16(this.cbids.get(c.name) ?? 0)
        .u32(c.thread ?? 0)
        .u32(c.corr)
        .i32(c.result ?? 0)
        .time(c.begin)
        .time(c.end)
        .u64(BigInt(c.stream ?? 0))
        .u64(BigInt(c.event ?? 0))
        .u64(BigInt(c.event2 ?? 0))
        .u64(seq(c.seq))
        .u64(seq(c.seq2))
        .u64(BigInt(c.bytes ?? 0))
        .u32(c.flags ?? 0)
        .i32(c.priority ?? 0)
        .f32(c.value ?? 0)
        .u32(c.streamId ?? 0)
        .u8(c.hostMemory ?? 0)
        .u8(c.copyDir ?? 0)
        .u8(1)
        .u8(c.device === undefined ? 0 : c.device + 1)
        .u32(c.pyStack ?? 0)
        .bytes();
      out.u16(RECORD.call).u16(0).u32(body.length).concat(body);
    }
    this.pythonRecords(out);
    for (const [name, cbid] of this.cbids) {
      const body = new Bytes()
        .u8(name.startsWith('cuda') ? 2 : 1)
        .u8(0)
        .u16(cbid)
        .text(name)
        .bytes();
      out.u16(RECORD.apiName).u16(0).u32(body.length).concat(body);
    }
    for (const a of this.activities) out.concat(a.bytes());
    if (this.dropped) out.u16(RECORD.dropped).u16(0).u32(8).u64(BigInt(this.dropped));
    if (opts.end !== false) {
      out
        .u16(RECORD.end)
        .u16(0)
        .u32(32)
        .u64(BigInt(this.calls.length))
        .u64(BigInt(this.activities.length))
        .time(0)
        .u32(this.threads.length)
        .u32(0);
    }
    return out.bytes();
  }
}
