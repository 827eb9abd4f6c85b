// The compiled form of a scenario: flat, with every name resolved to an index and every step
// carrying its source position. The simulator and the native runtime both execute exactly this.

export interface Pos {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export type Schedule = 'auto' | 'spin' | 'yield' | 'blockingSync';
export type HostMemoryKind = 'pinned' | 'pageable';
/** PtoP: device to device across two GPUs (cudaMemcpyPeerAsync). */
export type CopyDirection = 'HtoD' | 'DtoH' | 'DtoD' | 'HtoH' | 'PtoP';

export interface StreamDecl {
  id: number;
  name: string;
  nonBlocking: boolean;
  /** CUDA convention: lower numbers are higher priority (0 is the default, -5 the highest on H200). */
  priority: number;
  legacyDefault: boolean;
  perThreadDefault: boolean;
  /** For a per-thread default stream, the thread that owns it. */
  thread?: number;
  /** The GPU the stream belongs to (S21). */
  device: number;
  pos: Pos;
}

export interface EventDecl {
  id: number;
  name: string;
  timing: boolean;
  blockingSync: boolean;
  /** Internal events made by `waitStream` steps are not declared by the user. */
  internal: boolean;
  /** The GPU whose streams may record it; any stream may wait for it (S21). */
  device: number;
  pos: Pos;
}

export interface BufferDecl {
  id: number;
  name: string;
  bytes: number;
  /** Absent for device memory. */
  host?: HostMemoryKind;
  /** The GPU that holds a device buffer; absent for host memory, which every GPU reaches. */
  device?: number;
  pos: Pos;
}

/** A GPU that the scenario may use. Program.devices[d] describes device d. */
export interface DeviceDecl {
  id: number;
  schedule: Schedule;
  /** Whether any stream, event, buffer or step names it; device numbers between used ones are listed unused. */
  used: boolean;
  /** Where the scenario first names it (for device 0 without a mention, the scenario's start). */
  pos: Pos;
}

/**
 * A step's index in its thread is its position in `ThreadDecl.steps`. The repetitions of a `repeat`
 * are the same step objects, so that a long loop costs a reference per step: never mutate a step.
 */
interface StepBase {
  pos: Pos;
}

export type Step =
  | (StepBase & {
      op: 'launch';
      name: string;
      stream: number;
      /** Duration in ns for a spin kernel; absent when `touch` sets the work. */
      ns?: number;
      /** A touch kernel: reads and writes this buffer (real memory traffic). */
      touch?: number;
      grid: number;
      block: number;
      /** At most this many of its blocks on one SM at once (its registers and shared memory decide); absent: by its threads. */
      blocksPerSm?: number;
      /** How long it holds its stream past its blocks' run, once; absent: the simulator profile's kernelOverheadNs. */
      latencyNs?: number;
      /** A further node of the CUDA graph launched with the launch before it: no call of its own, no launch-queue entry (S19). */
      graphNode?: boolean;
      reads: number[];
      writes: number[];
    })
  | (StepBase & { op: 'record'; event: number; stream: number })
  | (StepBase & { op: 'wait'; event: number; stream: number })
  | (StepBase & { op: 'query'; event: number; expect?: 'ready' | 'notReady' })
  | (StepBase & { op: 'eventSync'; event: number })
  | (StepBase & { op: 'streamSync'; stream: number })
  /** `device`: the device it synchronizes, the thread's current device unless the step names one. */
  | (StepBase & { op: 'deviceSync'; device: number })
  /** cudaSetDevice: later steps of the thread were compiled against this device. */
  | (StepBase & { op: 'setDevice'; device: number })
  | (StepBase & { op: 'elapsed'; from: number; to: number })
  | (StepBase & {
      op: 'copy';
      src: number;
      dst: number;
      bytes: number;
      direction: CopyDirection;
      async: boolean;
      stream: number;
      /** A measured duration on the GPU, replacing the profile's bandwidth and latency for it. */
      ns?: number;
    })
  | (StepBase & { op: 'memset'; buffer: number; bytes: number; async: boolean; stream: number })
  | (StepBase & { op: 'hostWork'; ns: number })
  | (StepBase & { op: 'hostFunc'; name: string; stream: number; ns: number });

export type StepOp = Step['op'];

export interface ThreadDecl {
  id: number;
  name: string;
  /** The stream that `"stream"`-less steps of this thread use: the legacy default stream, or
   * this thread's per-thread default stream. */
  defaultStream: number;
  steps: Step[];
}

export interface Program {
  name: string;
  description?: string;
  /** The scenario file's name, for messages. */
  file?: string;
  /** The defaults: `schedule` for every device that `devices` does not set, `perThreadDefaultStream` for all. */
  device: { schedule: Schedule; perThreadDefaultStream: boolean };
  /** Devices 0 to the highest one used, each with its own schedule. */
  devices: DeviceDecl[];
  /** streams[0] is always device 0's legacy default stream, named "default". Other devices'
   * legacy default streams ("default (GPU 1)") and per-thread default streams are added when a
   * step first needs them. */
  streams: StreamDecl[];
  events: EventDecl[];
  buffers: BufferDecl[];
  threads: ThreadDecl[];
  /** Total steps over all threads. */
  stepCount: number;
}
