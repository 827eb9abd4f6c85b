// The benchmarks' synthetic scenario: four streams with events, waits, a copy and periodic syncs,
// sized by its op count. One definition, so that the simulator and trace-file benchmarks measure
// the same work.
/** One iteration issues 10 ops: 4 kernels, 3 records, 2 waits and 1 copy. */
const OPS_PER_ITERATION = 10;

export function benchScenario(ops: number): string {
  const iterations = ops / OPS_PER_ITERATION;
  return JSON.stringify({
    name: `bench ${ops} ops`,
    streams: { a: {}, b: { nonBlocking: true }, c: { nonBlocking: true, priority: -1 }, d: {} },
    events: { ea: {}, eb: { timing: true }, ec: {} },
    buffers: { x: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pinned' } },
    steps: [
      {
        repeat: iterations / 100,
        steps: [
          {
            repeat: 100,
            steps: [
              { launch: 'ka', stream: 'a', us: 20, grid: 264 },
              { record: 'ea', stream: 'a' },
              { launch: 'kb', stream: 'b', us: 15, grid: 132 },
              { wait: 'ea', stream: 'b' },
              { record: 'eb', stream: 'b' },
              { launch: 'kc', stream: 'c', us: 10 },
              { wait: 'eb', stream: 'c' },
              { record: 'ec', stream: 'c' },
              { launch: 'kd', stream: 'd', us: 5 },
              { copy: 'x', to: 'h', async: true, stream: 'd' },
            ],
          },
          { query: 'ec' },
          { eventSync: 'ea' },
        ],
      },
      { deviceSync: true },
    ],
  });
}
