// The scenarios equivalent to the capture test programs (programs/rules.cu, programs/seed_events.py):
// the same calls in the same order on the same kinds of stream, for the simulator to run.
const MB = 1 << 20;
const on = (stream: string, us: number) => ({ launch: `spin ${stream} ${us}`, stream, us });

export const rulesScenario = {
  name: 'capture test: rules.cu',
  streams: {
    a: {}, b: { nonBlocking: true }, hi: { nonBlocking: true, priority: -5 }, lo: { nonBlocking: true, priority: 0 }, w: { nonBlocking: true },
  },
  events: {
    ev: { timing: true }, never: { timing: true }, start: { timing: true }, stop: { timing: true }, noTiming: {}, sleepy: { blockingSync: true },
  },
  buffers: { d: { bytes: MB }, pinned: { bytes: MB, host: 'pinned' }, pageable: { bytes: MB, host: 'pageable' } },
  threads: {
    // The program's main thread warms up, then starts the worker and joins it (hostWork stands for
    // the join, the worker's hostWork for starting after the warm-up).
    main: [
      on('a', 1), on('b', 1), on('hi', 1), on('lo', 1), on('legacy', 1), on('w', 1), { deviceSync: true },
      { hostWork: { ms: 25 } },
      on('a', 200), on('a', 100), { streamSync: 'a' },
      on('a', 300), on('legacy', 50), on('b', 50), { streamSync: 'legacy' }, { deviceSync: true },
      on('a', 300), { record: 'ev', stream: 'a' }, { wait: 'ev', stream: 'b' }, on('b', 50), { streamSync: 'b' },
      on('a', 200), { record: 'ev', stream: 'a' }, { query: 'ev' }, { eventSync: 'ev' }, { query: 'ev' },
      { wait: 'never', stream: 'b' }, { eventSync: 'never' }, { query: 'never' },
      { record: 'start', stream: 'a' }, on('a', 100), { record: 'stop', stream: 'a' }, { eventSync: 'stop' }, { elapsed: ['start', 'stop'] },
      { record: 'noTiming', stream: 'a' }, { eventSync: 'noTiming' }, { elapsed: ['start', 'noTiming'] },
      on('a', 200), { record: 'sleepy', stream: 'a' }, { eventSync: 'sleepy' },
      on('a', 200), { copy: 'd', to: 'pageable', async: true, stream: 'a' }, { copy: 'pinned', to: 'd', async: true, stream: 'a' }, { streamSync: 'a' },
      on('a', 200), { copy: 'pinned', to: 'd' }, { memset: 'd' }, { memset: 'd', async: true, stream: 'b' }, { deviceSync: true },
      on('a', 100), { hostFunc: 'fn', stream: 'a', us: 50 }, on('a', 50), { streamSync: 'a' },
      on('lo', 100), on('hi', 20), { deviceSync: true },
      on('legacy', 20), { deviceSync: true },
    ],
    worker: [{ hostWork: { us: 300 } }, on('w', 20000), { streamSync: 'w' }],
  },
};

/** `sideNonBlocking`: how PyTorch created its side stream, as the capture saw it. */
export const seedScenario = (sideNonBlocking: boolean) => ({
  name: 'capture test: seed_events.py',
  streams: { side: { nonBlocking: sideNonBlocking } },
  events: { ev: {} },
  steps: [
    { launch: 'sleep side', stream: 'side', us: 5000 }, { record: 'ev', stream: 'side' }, { wait: 'ev', stream: 'default' },
    { launch: 'sleep default', us: 500 }, { query: 'ev' }, { eventSync: 'ev' }, { query: 'ev' }, { deviceSync: true },
  ],
});
