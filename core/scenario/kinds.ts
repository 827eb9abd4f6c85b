// The vocabulary of scenario files: the keys each object may have. The parser validates against
// these lists, and a test checks that the JSON schema offers exactly the same ones.

/** Each step kind and the keys a step of that kind may have besides its kind key. */
export const STEP_KEYS = {
  launch: [
    'stream',
    'us',
    'ms',
    'ns',
    'touch',
    'grid',
    'block',
    'blocksPerSm',
    'latencyNs',
    'graphNode',
    'reads',
    'writes',
  ],
  record: ['stream'],
  wait: ['stream'],
  waitStream: ['stream'],
  query: ['expect'],
  eventSync: [],
  streamSync: [],
  deviceSync: [],
  setDevice: [],
  elapsed: [],
  copy: ['to', 'bytes', 'async', 'stream', 'us', 'ms', 'ns'],
  memset: ['bytes', 'async', 'stream'],
  hostWork: [],
  hostFunc: ['stream', 'us', 'ms', 'ns'],
  repeat: ['steps'],
} as const satisfies Record<string, readonly string[]>;

export type StepKind = keyof typeof STEP_KEYS;
export const STEP_KINDS = Object.keys(STEP_KEYS) as StepKind[];

export const TOP_LEVEL_KEYS = [
  '$schema',
  'name',
  'description',
  'device',
  'devices',
  'streams',
  'events',
  'buffers',
  'steps',
  'threads',
] as const;
export const DEVICE_KEYS = ['schedule', 'perThreadDefaultStream'] as const;
/** The keys of one entry of `devices`: what may differ between GPUs (per-thread default streams are a
 * compile flag of the whole program, so they stay in `device`). */
export const PER_DEVICE_KEYS = ['schedule'] as const;
export const STREAM_KEYS = ['nonBlocking', 'priority', 'device'] as const;
export const EVENT_KEYS = ['timing', 'blockingSync', 'device'] as const;
export const BUFFER_KEYS = ['bytes', 'host', 'device'] as const;
export const DURATION_KEYS = ['us', 'ms', 'ns'] as const;

export const SCHEDULES = ['auto', 'spin', 'yield', 'blockingSync'] as const;
export const HOST_MEMORY = ['pinned', 'pageable'] as const;
export const QUERY_EXPECT = ['ready', 'notReady'] as const;

/** "default" is the calling thread's default stream and "legacy" the legacy default stream. */
export const RESERVED_STREAMS = ['default', 'legacy'] as const;

/**
 * How far a scenario may unroll: compiled steps, and units of simulated work (one per plain step;
 * see stepWork). Every compiled step is an object, and a row or more of the trace, so the steps
 * bound memory; the work bounds time.
 */
export interface ScenarioBudget {
  steps: number;
  work: number;
  /** What sets the step limit and how to raise it, said where a scenario passes it. */
  raise?: string;
}

/**
 * The budget for input nobody vouched for (the editor parses and simulates a file on every edit):
 * this many steps take at most 1.3 GB (BYTES_PER_STEP, core/memory.ts), and this much work compiles
 * and simulates well under 20 s. The CLI sizes its own by the memory it may use (cli/input.ts).
 */
export const HOSTILE_BUDGET: ScenarioBudget = { steps: 2_000_000, work: 4_000_000 };

export const LIMITS = {
  repeat: 1_000_000,
  /** Each repeat nests one level deeper in the compiler. */
  repeatNesting: 64,
  /** Larger than any GPU's memory: a bigger number is a typo. */
  bufferBytes: 2 ** 40,
  block: 1024,
  /** Resident blocks per SM: 32 on every GPU since Maxwell. */
  blocksPerSm: 32,
  grid: 2 ** 31 - 1,
  /** A kernel's latency: a second is far past any GPU's. */
  latencyNs: 1_000_000_000,
  /** CUDA's stream priority range on current GPUs: 0 (lowest) to -5 (highest). */
  priorityHighest: -5,
  /** Device numbers run from 0 to this: more GPUs than any one host has. */
  deviceHighest: 15,
} as const;
