// The recorder's cost and accuracy on the GPU: host time per launch with events around every
// launch against bare launches, in one run, for 1, 4 and 8 streams; the clock alignment bound;
// event spans against the kernels' own stamps; spin against blocking-sync wake-up.
// Writes a Markdown table to stdout, and to $SYNCSCOPE_BENCH_OUT when set.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileScenario } from '../core/scenario/parse';
import { median, quantile } from '../core/stats';
import { traceToJson } from '../core/trace/json';
import { str, type Trace } from '../core/trace/model';
import { REC, RECORD_WIDTH } from '../core/gpu-run/encode';
import { runOnGpu, runRaw } from '../runner/gpu';
import { availability } from '../runner/native';

const LAUNCHES = 8192;
/** Rounds (a launch on every stream) between device synchronizes: the launch queue never fills, so no launch waits for room. */
const ROUNDS = 64;
const RUNS = 9;
const us = (ns: number) => (ns / 1000).toFixed(2);

const launches = (streams: number) =>
  compileScenario(
    JSON.stringify({
      name: `${streams} streams`,
      streams: Object.fromEntries(Array.from({ length: streams }, (_, i) => [`s${i}`, { nonBlocking: true }])),
      // Each kernel lasts about as long as the host takes to come back to its stream, so streams stay
      // busy (the recorder's steady state).
      steps: [
        {
          repeat: LAUNCHES / (streams * ROUNDS),
          steps: [
            {
              repeat: ROUNDS,
              steps: Array.from({ length: streams }, (_, i) => ({ launch: 'k', stream: `s${i}`, us: 6 * streams + 1 })),
            },
            { deviceSync: true },
          ],
        },
      ],
    }),
    'bench.scenario.json',
  );

/**
 * Host ns per launch in one run, bare and recorded: the median time from one launch step's start
 * to the next's (the launch, the recorder's event record, the loop; no synchronize) over the bare
 * blocks and over the recorded ones. The blocks alternate within the run, so the host's drift from
 * run to run (a microsecond per launch on the H200's host) stays out of the difference.
 */
async function perLaunch(streams: number): Promise<{ bare: number; rec: number }> {
  const program = launches(streams);
  const block = streams * ROUNDS + 1;
  const bareSteps = Uint8Array.from({ length: program.stepCount }, (_, g) => (Math.floor(g / block) % 2 === 0 ? 1 : 0));
  const r = await runRaw(program, { bareSteps });
  const begin = (g: number) => r.records[g * RECORD_WIDTH + REC.hostBegin];
  const bare: number[] = [];
  const rec: number[] = [];
  for (let g = 0; g + 1 < program.stepCount; g++)
    if (g % block < block - 2) (bareSteps[g] ? bare : rec).push(begin(g + 1) - begin(g));
  return { bare: median(bare), rec: median(rec) };
}

/** Back-to-back kernels in other layouts: where the long end events come from (bench/results/recorder.md). */
const LAYOUTS: { name: string; kernels: [stream: string, us: number][]; priority?: Record<string, number> }[] = [
  {
    name: '1 stream, 30 us',
    kernels: [
      ['a', 30],
      ['a', 30],
    ],
  },
  {
    name: '2 streams, 30 / 30 us',
    kernels: [
      ['a', 30],
      ['b', 30],
    ],
  },
  {
    name: '2 streams, 200 / 300 us',
    kernels: [
      ['a', 200],
      ['b', 300],
    ],
  },
  {
    name: '2 streams, 20 / 30 us, b high priority',
    kernels: [
      ['a', 20],
      ['b', 30],
    ],
    priority: { b: -1 },
  },
  {
    name: '4 streams, 20 / 30 / 20 / 30 us',
    kernels: [
      ['a', 20],
      ['b', 30],
      ['c', 20],
      ['d', 30],
    ],
  },
];

/** |event span - stamped span| of every kernel named in `names`, in launch order. */
const spanErrors = (t: Trace, names: (n: string) => boolean) => {
  const o = t.ops;
  const e: number[] = [];
  for (let i = 0; i < o.count; i++)
    if (names(str(t, o.name[i]))) e.push(Math.abs(o.end[i] - o.start[i] - (o.truthEnd[i] - o.truthStart[i])));
  return e;
};

async function layoutRows(): Promise<string[]> {
  const rows: string[] = [];
  for (const l of LAYOUTS) {
    const streams = [...new Set(l.kernels.map(([s]) => s))];
    const trace = await runOnGpu(
      compileScenario(
        JSON.stringify({
          name: l.name,
          streams: Object.fromEntries(streams.map((s) => [s, { nonBlocking: true, priority: l.priority?.[s] ?? 0 }])),
          steps: [
            {
              repeat: 400 / l.kernels.length,
              steps: l.kernels.map(([stream, us], i) => ({ launch: `k${i}`, stream, us })),
            },
            { deviceSync: true },
          ],
        }),
        'layout.scenario.json',
      ),
    );
    if (process.env.SYNCSCOPE_DUMP)
      writeFileSync(join(process.env.SYNCSCOPE_DUMP, `layout-${LAYOUTS.indexOf(l)}.json`), traceToJson(trace));
    const e = spanErrors(trace, (n) => /^k\d+$/.test(n));
    rows.push(
      `| ${l.name} | ${us(median(e))} | ${us(quantile(e, 0.99))} | ${e.filter((x) => x > 1000).length} of ${e.length} |`,
    );
  }
  return rows;
}

async function main() {
  const a = availability();
  if (!a.ok) {
    console.log(`skipped: ${a.reason}`);
    return;
  }
  const rows: string[] = [];
  const perRun: string[] = [];
  for (const streams of [1, 4, 8]) {
    const runs: { bare: number; rec: number }[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await perLaunch(streams));
    const bare = runs.map((r) => r.bare);
    const rec = runs.map((r) => r.rec);
    const over = runs.map((r) => r.rec - r.bare);
    rows.push(
      `| ${streams} | ${us(median(bare))} | ${us(median(rec))} | ${(median(rec) / median(bare)).toFixed(2)} | ${us(median(over))} (${us(Math.min(...over))} to ${us(Math.max(...over))}) |`,
    );
    perRun.push(`| ${streams} | ${bare.map(us).join(' ')} | ${rec.map(us).join(' ')} |`);
  }
  const spans = await runOnGpu(
    compileScenario(
      JSON.stringify({
        name: 'spans',
        streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
        events: { spin: {}, sleep: { blockingSync: true } },
        steps: [
          {
            repeat: 200,
            steps: [
              { launch: 'busyA', stream: 'a', us: 20 },
              { launch: 'busyB', stream: 'b', us: 30 },
            ],
          },
          { deviceSync: true },
          { repeat: 100, steps: [{ launch: 'idle', stream: 'a', us: 50 }, { streamSync: 'a' }] },
          {
            repeat: 50,
            steps: [
              { launch: 'w', stream: 'a', us: 100 },
              { record: 'spin', stream: 'a' },
              { eventSync: 'spin' },
              { launch: 'w', stream: 'a', us: 100 },
              { record: 'sleep', stream: 'a' },
              { eventSync: 'sleep' },
            ],
          },
        ],
      }),
      'spans.scenario.json',
    ),
  );
  const device = `${spans.meta.device?.name}, driver ${spans.meta.device?.driver}`;
  // The raw trace, for studying the span error's tail away from the GPU.
  if (process.env.SYNCSCOPE_DUMP) writeFileSync(join(process.env.SYNCSCOPE_DUMP, 'spans.json'), traceToJson(spans));
  const busy = spanErrors(spans, (n) => n === 'busyA' || n === 'busyB');
  const idle = spanErrors(spans, (n) => n === 'idle');
  const layouts = await layoutRows();
  const wake = (ev: string) => {
    const c = spans.calls;
    const v: number[] = [];
    for (let i = 0; i < c.count; i++)
      if (str(spans, c.event[i]) === ev && c.releasedBy[i] >= 0 && str(spans, c.name[i]) === 'cudaEventSynchronize')
        v.push(c.unblockNs[i]);
    return v;
  };
  const lines = [
    `# Recorder benchmark`,
    '',
    `- date: ${new Date().toISOString()}`,
    `- device: ${device}`,
    `- commit: ${process.env.SYNCSCOPE_COMMIT ?? 'unknown'}`,
    `- command: node out/bench/recorder.bench.js (${LAUNCHES} launches of a (6 x streams + 1) us kernel, round-robin over the streams, a device synchronize every ${ROUNDS} rounds, bare and recorded blocks alternating, one host thread; host time from one launch step to the next, median per kind of block; ${RUNS} runs)`,
    '',
    `| streams | bare, us/launch | recorded, us/launch | ratio | added overhead, median of ${RUNS} runs (range), us/launch |`,
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '| streams | bare blocks per run, us/launch | recorded blocks per run, us/launch |',
    '| --- | --- | --- |',
    ...perRun,
    '',
    '| measure | value |',
    '| --- | --- |',
    `| clock alignment bound (meta.alignmentErrorNs) | ${us(spans.meta.alignmentErrorNs)} us |`,
    `| span length error, back-to-back kernels (400), median / p99 | ${us(median(busy))} / ${us(quantile(busy, 0.99))} us |`,
    `| span length error, kernels on an idle stream (100), median / p99 | ${us(median(idle))} / ${us(quantile(idle, 0.99))} us |`,
    `| unblock latency, spin event synchronize (50), median / p90 | ${us(median(wake('spin')))} / ${us(quantile(wake('spin'), 0.9))} us |`,
    `| unblock latency, blocking-sync event synchronize (50), median / p90 | ${us(median(wake('sleep')))} / ${us(quantile(wake('sleep'), 0.9))} us |`,
    '',
    '| back-to-back layout (400 kernels) | span error median, us | p99, us | errors over 1 us |',
    '| --- | --- | --- | --- |',
    ...layouts,
    '',
    ...(spans.meta.notes ?? []).map((n) => `- ${n}`),
    '',
  ];
  const text = lines.join('\n');
  console.log(text);
  if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
