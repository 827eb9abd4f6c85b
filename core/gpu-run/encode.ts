// The compact form of a Program that the native runtime reads: flat typed arrays, so that C++ never
// walks JavaScript objects. native/src/runtime.h holds the same widths and opcodes.
import type { Program, Schedule, Step } from '../scenario/program';

export const STEP_WIDTH = 8;
export const STREAM_WIDTH = 5;
export const EVENT_WIDTH = 3;
export const BUFFER_WIDTH = 3;
export const RECORD_WIDTH = 10;
/** Numbers per latency sample in a device's calibration block (runtime.h): a chain row (3), an idle row (5), an after-copy row (4). */
export const LATENCY_SAMPLE_WIDTH = 12;
/** The last word of a step: the device whose context it runs in, or -1 for host-only work. */
export const STEP_DEVICE = 7;

export const OPCODES = [
  'launch',
  'record',
  'wait',
  'query',
  'eventSync',
  'streamSync',
  'deviceSync',
  'elapsed',
  'copy',
  'memset',
  'hostWork',
  'hostFunc',
  'setDevice',
] as const satisfies readonly Step['op'][];

/** Offsets into one record of `records` (RECORD_WIDTH numbers per step). */
export const REC = {
  hostBegin: 0,
  hostEnd: 1,
  status: 2,
  answer: 3,
  value: 4,
  gpuStart: 5,
  gpuEnd: 6,
  truthStart: 7,
  truthEnd: 8,
  done: 9,
} as const;

/** CU_CTX_SCHED_* */
export const SCHEDULE_FLAGS: Record<Schedule, number> = { auto: 0, spin: 1, yield: 2, blockingSync: 4 };

export interface EncodedJob {
  /** Per scenario device number: the CUDA device it runs on, or -1 where the scenario does not use it. */
  devices: Int32Array;
  /** Per scenario device number: its CU_CTX_SCHED_* flag. */
  schedules: Int32Array;
  /**
   * Per step, 1 where the step is issued without its timing event: the recorder benchmark
   * alternates bare and recorded blocks in one run. Absent: every step is recorded.
   */
  bareSteps?: Uint8Array;
  calibrationSamples: number;
  /** Per stream: kind (0 created, 1 legacy default, 2 per-thread default), nonBlocking, priority, thread, device. */
  streams: Int32Array;
  /** Per event: timing, blockingSync, device. */
  events: Int32Array;
  /** Per buffer: bytes, memory (0 device, 1 pinned host, 2 pageable host), device (-1 for host memory). */
  buffers: Float64Array;
  /** threads[t]..threads[t+1] are thread t's steps. */
  threads: Int32Array;
  steps: Int32Array;
  /** Per step: a duration in ns, or a byte count. */
  values: Float64Array;
}

/** Global step index of each thread's first step, as in EncodedJob.threads. */
export function threadOffsets(program: Program): number[] {
  const out = [0];
  for (const t of program.threads) out.push(out[out.length - 1] + t.steps.length);
  return out;
}

/**
 * The device whose context a step runs in (S21): its stream's, its event's, the one it names, or -1
 * for host work. A step on a stream of another device than the thread's current one runs with that
 * device current, as PyTorch's `with torch.cuda.stream(s)` makes it.
 */
export function stepDevice(program: Program, s: Step): number {
  switch (s.op) {
    case 'launch':
    case 'record':
    case 'wait':
    case 'streamSync':
    case 'copy':
    case 'memset':
    case 'hostFunc':
      return program.streams[s.stream].device;
    case 'query':
    case 'eventSync':
      return program.events[s.event].device;
    case 'elapsed':
      return program.events[s.from].device;
    case 'deviceSync':
    case 'setDevice':
      return s.device;
    case 'hostWork':
      return -1;
  }
}

/** `device`: the CUDA device that the scenario's device 0 runs on; device d runs on `device + d`. */
export function encodeProgram(
  program: Program,
  opts: { device?: number; bareSteps?: Uint8Array; calibrationSamples?: number } = {},
): EncodedJob {
  const offsets = threadOffsets(program);
  const total = offsets[offsets.length - 1];
  const steps = new Int32Array(total * STEP_WIDTH);
  const values = new Float64Array(total);
  const base = opts.device ?? 0;
  program.threads.forEach((thread, t) => {
    thread.steps.forEach((s, i) => {
      const g = offsets[t] + i;
      const w = steps.subarray(g * STEP_WIDTH, (g + 1) * STEP_WIDTH);
      w[0] = OPCODES.indexOf(s.op);
      w[STEP_DEVICE] = stepDevice(program, s);
      switch (s.op) {
        case 'launch':
          w.set([s.stream, s.touch ?? -1, s.grid, s.block], 1);
          values[g] = s.ns ?? 0;
          break;
        case 'record':
        case 'wait':
          w.set([s.event, s.stream], 1);
          break;
        case 'query':
        case 'eventSync':
          w[1] = s.event;
          break;
        case 'streamSync':
          w[1] = s.stream;
          break;
        case 'elapsed':
          w.set([s.from, s.to], 1);
          break;
        case 'copy':
          // A synchronous copy's stream is the calling thread's default stream on its current device.
          w.set([s.src, s.dst, s.async ? 1 : 0, s.stream], 1);
          values[g] = s.bytes;
          break;
        case 'memset':
          w.set([s.buffer, 0, s.async ? 1 : 0, s.stream], 1);
          values[g] = s.bytes;
          break;
        case 'hostWork':
          values[g] = s.ns;
          break;
        case 'hostFunc':
          w[1] = s.stream;
          values[g] = s.ns;
          break;
        case 'deviceSync':
        case 'setDevice':
          w[1] = s.device;
          break;
      }
    });
  });
  return {
    devices: Int32Array.from(program.devices, (d) => (d.used ? base + d.id : -1)),
    schedules: Int32Array.from(program.devices, (d) => SCHEDULE_FLAGS[d.schedule]),
    ...(opts.bareSteps ? { bareSteps: opts.bareSteps } : {}),
    calibrationSamples: opts.calibrationSamples ?? 100,
    streams: Int32Array.from(
      program.streams.flatMap((s) => [
        s.legacyDefault ? 1 : s.perThreadDefault ? 2 : 0,
        s.nonBlocking ? 1 : 0,
        s.priority,
        s.thread ?? -1,
        s.device,
      ]),
    ),
    events: Int32Array.from(program.events.flatMap((e) => [e.timing ? 1 : 0, e.blockingSync ? 1 : 0, e.device])),
    buffers: Float64Array.from(
      program.buffers.flatMap((b) => [
        b.bytes,
        b.host === 'pinned' ? 1 : b.host === 'pageable' ? 2 : 0,
        b.device ?? -1,
      ]),
    ),
    threads: Int32Array.from(offsets),
    steps,
    values,
  };
}
