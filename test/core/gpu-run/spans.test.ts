import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario } from '../../../core/scenario/parse';
import { splitDevices, type ClockMap } from '../../../core/gpu-run/align';
import { asRecorded, depthFromRecorded, launchesThatFit } from '../../../core/gpu-run/recorded';
import {
  gpuLatency,
  NO_LATENCY,
  queuedBehind,
  SpanPlacer,
  splitLatency,
  type LatencySamples,
} from '../../../core/gpu-run/spans';
import { h200 } from '../../../core/simulate/profile';

const exact: ClockMap = { toHost: (g) => g, errorNs: 0, driftNsPerS: 0 };
const A = 2000; // kernel end to its event
const B = 1000; // event to the next queued kernel
const L = 1500; // launch return to an idle kernel
const C = 3500; // a copy's end event to the next queued kernel
const RUN = 2000;

/** Latency samples of a device with exactly these latencies, in the addon's calibration layout. */
function calibrationBlock(m: number): Float64Array {
  const chain: number[] = [];
  let start = 50_000;
  for (let i = 0; i < m; i++) {
    const end = start + RUN;
    chain.push(end + A, start, end);
    start = end + A + B;
  }
  const idle: number[] = [];
  for (let i = 0; i < m; i++) {
    const h1 = 1e6 + i * 100_000;
    const s = h1 + L;
    idle.push(h1 - 4000, h1, s + RUN + A, s, s + RUN);
  }
  const afterCopy: number[] = [];
  for (let i = 0; i < m; i++) {
    const copyEvent = 2e7 + i * 100_000;
    const s = copyEvent + C;
    afterCopy.push(copyEvent, s + RUN + A, s, s + RUN);
  }
  const n = 1;
  return Float64Array.from([n, ...Array(12 * n).fill(0), 1, m, ...chain, ...idle, ...afterCopy]);
}

test('the GPU latencies come back from samples of a device that has them', () => {
  const s = splitLatency(calibrationBlock(8)) as LatencySamples;
  assert.equal(s.method, 1);
  assert.equal(s.chain.length, 8);
  assert.deepEqual(gpuLatency(s, exact, exact), {
    kernelToEventNs: A,
    eventToKernelNs: B,
    launchToKernelNs: L,
    copyToKernelNs: C,
  });
});

test("S21 two devices' blocks with latency samples split where each ends, and each gives its latencies", () => {
  const one = calibrationBlock(8);
  const blocks = splitDevices(Float64Array.from([...one, ...one]));
  assert.deepEqual(
    blocks.map((b) => b.length),
    [one.length, one.length],
  );
  for (const b of blocks) assert.equal(gpuLatency(splitLatency(b), exact, exact).copyToKernelNs, C);
});

test('a clock offset between events and stamps moves kernels but keeps their lengths', () => {
  const skewed: ClockMap = { ...exact, toHost: (g) => g + 700 };
  const lat = gpuLatency(splitLatency(calibrationBlock(8)), exact, skewed);
  assert.equal(lat.kernelToEventNs + lat.eventToKernelNs, A + B);
  assert.equal(lat.kernelToEventNs + lat.launchToKernelNs, A + L);
  assert.notEqual(lat.kernelToEventNs, A);
});

test('no latency samples (an older block): nothing is subtracted', () => {
  assert.equal(splitLatency(Float64Array.from([1, ...Array(12).fill(0)])), undefined);
  assert.deepEqual(gpuLatency(undefined, exact, exact), NO_LATENCY);
});

const program = compileScenario(
  JSON.stringify({
    name: 'spans',
    streams: { s: { nonBlocking: true }, blocking: {} },
    steps: [
      { launch: 'k', stream: 's', us: 1 },
      { launch: 'l', us: 1 },
    ],
  }),
  'spans.scenario.json',
);
const streamIndex = (name: string) => program.streams.findIndex((s) => s.name === name);
const lat = { kernelToEventNs: A, eventToKernelNs: B, launchToKernelNs: L, copyToKernelNs: C };

test("S1 an idle stream's kernel starts after its launch returns; a queued one after the previous end event", () => {
  const p = new SpanPlacer(program.streams, lat);
  const s = streamIndex('s');
  const first = p.place(s, 'kernel', 0, 4000, 4000 + L + 5000 + A);
  assert.deepEqual(first, { start: 4000 + L, end: 4000 + L + 5000 });
  const secondEvent = 4000 + L + 5000 + A + B + 3000 + A;
  const second = p.place(s, 'kernel', 6000, 10_000, secondEvent);
  assert.equal(second.end - second.start, 3000);
  assert.equal(second.start, first.end + A + B);
});

test("a kernel right behind a copy on its stream starts copyToKernelNs after the copy's end event, also across a record", () => {
  const p = new SpanPlacer(program.streams, lat);
  const s = streamIndex('s');
  const copy = p.place(s, 'copy', 0, 2000, 50_000);
  assert.deepEqual(copy, { start: 0, end: 50_000 });
  assert.equal(p.place(s, 'kernel', 3000, 6000, 90_000).start, 50_000 + C);
  p.place(s, 'copy', 7000, 9000, 120_000);
  p.place(s, 'marker', 9500, 10_000, 120_500);
  assert.equal(p.place(s, 'kernel', 11_000, 14_000, 200_000).start, 120_500 + C);
  // Behind a kernel again: the kernel latency.
  assert.equal(p.place(s, 'kernel', 15_000, 18_000, 300_000).start, 200_000 + B);
});

test('a kernel of known length right behind a copy starts that long before its end, never sooner than a kernel behind a kernel would', () => {
  const p = new SpanPlacer(program.streams, lat);
  const s = streamIndex('s');
  // The slow case: it started 9 us after the copy's end event, where copyToKernelNs says 3.5.
  p.place(s, 'copy', 0, 2000, 50_000);
  assert.deepEqual(p.place(s, 'kernel', 3000, 6000, 50_000 + 9000 + 10_000 + A, 50_000 + 9000 + 10_000 + A, 10_000), {
    start: 59_000,
    end: 69_000,
  });
  // A length that would put it before the copy's end event plus the latency behind a kernel.
  p.place(s, 'copy', 70_000, 72_000, 100_000);
  assert.equal(p.place(s, 'kernel', 73_000, 76_000, 100_000 + 5000 + A, 100_000 + 5000 + A, 10_000).start, 100_000 + B);
  // Behind a kernel its length changes nothing: the latency behind a kernel is steady.
  assert.equal(p.place(s, 'kernel', 77_000, 80_000, 200_000, 200_000, 10_000).start, 100_000 + 5000 + A + B);
});

test("an end event within one back-to-back pitch of another stream's may have queued behind it, and runs of them chain", () => {
  const [s, b, d] = [streamIndex('s'), streamIndex('blocking'), streamIndex('default')];
  const pitch = A + B;
  const since = queuedBehind(
    [
      { stream: s, at: 100_000 },
      { stream: b, at: 100_000 + pitch - 1 }, // within the pitch: queued
      { stream: s, at: 200_000 },
      { stream: b, at: 200_000 + pitch }, // a pitch apart: not
      { stream: s, at: 300_000 },
      { stream: b, at: 301_000 },
      { stream: d, at: 302_000 }, // a run: the last waited since the first
      { stream: s, at: 400_000 },
      { stream: s, at: 401_000 }, // its own stream's events do not delay it
      { stream: b, at: NaN },
    ],
    program.streams,
    () => lat,
  );
  assert.deepEqual(
    [...since],
    [100_000, 100_000, 200_000, 200_000 + pitch, 300_000, 300_000, 300_000, 400_000, 401_000, NaN],
  );
});

test("a kernel whose end event queued behind another stream's ended between the two: its span takes the middle", () => {
  const p = new SpanPlacer(program.streams, lat);
  const s = streamIndex('s');
  const queued = p.place(s, 'kernel', 0, 4000, 100_000, 98_000);
  assert.deepEqual(queued, { start: 4000 + L, end: 99_000 - A });
  // Never before its own start: the middle of what is left after it.
  const late = p.place(s, 'kernel', 5000, 9000, 120_000, 90_000);
  assert.equal(late.start, 100_000 + B);
  assert.equal(late.end, (late.start + 120_000 - A) / 2);
});

test("S3 a legacy-stream kernel starts after the blocking stream's last end event", () => {
  const p = new SpanPlacer(program.streams, lat);
  p.place(streamIndex('blocking'), 'kernel', 0, 4000, 100_000);
  const legacy = p.place(streamIndex('default'), 'kernel', 5000, 9000, 150_000);
  assert.equal(legacy.start, 100_000 + B);
});

test('a launch that returned after its kernel ended is bounded by its begin; markers are instants', () => {
  const p = new SpanPlacer(program.streams, lat);
  const s = streamIndex('s');
  assert.deepEqual(p.place(s, 'kernel', 1000, 40_000, 30_000), { start: 1000, end: 30_000 - A });
  assert.deepEqual(p.place(s, 'marker', 41_000, 42_000, 45_000), { start: 45_000, end: 45_000 });
  assert.deepEqual(p.place(s, 'work', 46_000, 47_000, 60_000), { start: 46_000, end: 60_000 });
});

test("S19 the recorder's end events halve the launches that fit in the launch queue", () => {
  assert.equal(launchesThatFit(h200.queueDepth, 1), h200.queueDepth);
  assert.equal(depthFromRecorded(launchesThatFit(h200.queueDepth, 2)), h200.queueDepth);
  const r = asRecorded(h200);
  assert.equal(r.queueDepth, Math.floor((h200.queueDepth - 1) / 2));
  assert.equal(r.launchNs, h200.launchNs);
  assert.equal(r.afterStreamOpNs, h200.recordTimingNs);
  assert.equal(r.syncNs, h200.syncNs);
});
