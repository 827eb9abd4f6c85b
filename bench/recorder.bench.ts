// The recorder's cost and accuracy on the GPU: host time per launch with events around every
// launch against bare launches, in one run, for 1, 4 and 8 streams; the clock alignment bound;
// event spans against the kernels' own stamps; spin against blocking-sync wake-up.
// Writes a Markdown table to stdout, and to $SYNCSCOPE_BENCH_OUT when set.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileScenario } from '../core/scenario/parse';
import { traceToJson } from '../core/trace/json';
import { str, type Trace } from '../core/trace/model';
import { REC, RECORD_WIDTH } from '../runner/encode';
import { runOnGpu, runRaw } from '../runner/gpu';
import { availability } from '../runner/native';

const LAUNCHES = 2000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const us = (ns: number) => (ns / 1000).toFixed(2);

const launches = (streams: number) => compileScenario(JSON.stringify({
  name: `${streams} streams`,
  streams: Object.fromEntries(Array.from({ length: streams }, (_, i) => [`s${i}`, { nonBlocking: true }])),
  // Each kernel lasts about as long as the host takes to come back to its stream, so streams stay
  // busy (the recorder's steady state) without filling the launch queue.
  steps: [{ repeat: LAUNCHES / streams, steps: Array.from({ length: streams }, (_, i) => ({ launch: 'k', stream: `s${i}`, us: 6 * streams + 1 })) }, { deviceSync: true }],
}), 'bench.scenario.json');

/** Host ns per launch step, start of the first to end of the last, and the median launch call. */
async function perLaunch(streams: number, record: boolean) {
  const program = launches(streams);
  const r = await runRaw(program, { record });
  const at = (g: number, k: number) => r.records[g * RECORD_WIDTH + k];
  const calls = Array.from({ length: LAUNCHES }, (_, g) => at(g, REC.hostEnd) - at(g, REC.hostBegin));
  return { perStep: (at(LAUNCHES - 1, REC.hostEnd) - at(0, REC.hostBegin)) / (LAUNCHES - 1), call: median(calls) };
}

async function main() {
  const a = availability();
  if (!a.ok) {
    console.log(`skipped: ${a.reason}`);
    return;
  }
  const rows: string[] = [];
  let device = '';
  for (const streams of [1, 4, 8]) {
    const over: number[] = [];
    let bare = 0;
    let rec = 0;
    for (let i = 0; i < 5; i++) {
      const b = await perLaunch(streams, false);
      const r = await perLaunch(streams, true);
      over.push(r.perStep - b.perStep);
      bare += b.perStep / 5;
      rec += r.perStep / 5;
    }
    rows.push(`| ${streams} | ${us(bare)} | ${us(rec)} | ${(rec / bare).toFixed(2)} | ${us(median(over))} |`);
  }
  const spans = await runOnGpu(compileScenario(JSON.stringify({
    name: 'spans', streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    events: { spin: {}, sleep: { blockingSync: true } },
    steps: [
      { repeat: 200, steps: [{ launch: 'busyA', stream: 'a', us: 20 }, { launch: 'busyB', stream: 'b', us: 30 }] }, { deviceSync: true },
      { repeat: 100, steps: [{ launch: 'idle', stream: 'a', us: 50 }, { streamSync: 'a' }] },
      { repeat: 50, steps: [{ launch: 'w', stream: 'a', us: 100 }, { record: 'spin', stream: 'a' }, { eventSync: 'spin' },
        { launch: 'w', stream: 'a', us: 100 }, { record: 'sleep', stream: 'a' }, { eventSync: 'sleep' }] },
    ],
  }), 'spans.scenario.json'));
  device = `${spans.meta.device?.name}, driver ${spans.meta.device?.driver}`;
  // The raw trace, for studying the span error's tail away from the GPU.
  if (process.env.SYNCSCOPE_DUMP) writeFileSync(join(process.env.SYNCSCOPE_DUMP, 'spans.json'), traceToJson(spans));
  const err = (t: Trace, name: string) => {
    const o = t.ops;
    const e: number[] = [];
    for (let i = 0; i < o.count; i++) if (str(t, o.name[i]) === name) e.push(Math.abs((o.end[i] - o.start[i]) - (o.truthEnd[i] - o.truthStart[i])));
    return e;
  };
  const busy = [...err(spans, 'busyA'), ...err(spans, 'busyB')];
  const idle = err(spans, 'idle');
  const wake = (ev: string) => {
    const c = spans.calls;
    const v: number[] = [];
    for (let i = 0; i < c.count; i++) if (str(spans, c.event[i]) === ev && c.releasedBy[i] >= 0 && str(spans, c.name[i]) === 'cudaEventSynchronize') v.push(c.unblockNs[i]);
    return v;
  };
  const lines = [
    `# Recorder benchmark`, '',
    `- date: ${new Date().toISOString()}`, `- device: ${device}`, `- commit: ${process.env.SYNCSCOPE_COMMIT ?? 'unknown'}`,
    `- command: node out/bench/recorder.bench.js (${LAUNCHES} launches of a (6 x streams + 1) us kernel, round-robin over the streams, one host thread; 5 alternating runs each)`, '',
    '| streams | bare launch loop, us/launch | recorded, us/launch | ratio | added overhead (median of 5), us/launch |', '| --- | --- | --- | --- | --- |', ...rows, '',
    '| measure | value |', '| --- | --- |',
    `| clock alignment bound (meta.alignmentErrorNs) | ${us(spans.meta.alignmentErrorNs)} us |`,
    `| span length error, back-to-back kernels (400), median / p99 | ${us(median(busy))} / ${us(quantile(busy, 0.99))} us |`,
    `| span length error, kernels on an idle stream (100), median / p99 | ${us(median(idle))} / ${us(quantile(idle, 0.99))} us |`,
    `| unblock latency, spin event synchronize (50), median / p90 | ${us(median(wake('spin')))} / ${us(quantile(wake('spin'), 0.9))} us |`,
    `| unblock latency, blocking-sync event synchronize (50), median / p90 | ${us(median(wake('sleep')))} / ${us(quantile(wake('sleep'), 0.9))} us |`,
    '', ...(spans.meta.notes ?? []).map((n) => `- ${n}`), '',
  ];
  const text = lines.join('\n');
  console.log(text);
  if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
