import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clockMap, offsetFrom, splitCalibration, type Sample } from '../../../core/gpu-run/align';

/** Samples of a device clock that runs `offset` behind the host, drifting by `ppm`, with bracket jitter from a fixed pseudo-random walk. */
function samples(n: number, hostStart: number, offset: number, ppm: number): Sample[] {
  let seed = 7;
  const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  return Array.from({ length: n }, (_, i) => {
    const trueHost = hostStart + i * 10_000;
    const g = trueHost - offset - (trueHost * ppm) / 1e6;
    return { h0: trueHost - 2000 - 3000 * rnd(), h1: trueHost + 3000 + 4000 * rnd(), g };
  });
}

test('the intersection of brackets is tighter than any one bracket and holds the true offset', () => {
  const s = samples(100, 1e9, 5e8, 0);
  const o = offsetFrom(s);
  assert.ok(Math.abs(o.offset - 5e8) <= o.errorNs, `offset ${o.offset} within ${o.errorNs}`);
  const tightest = Math.min(...s.map((x) => x.h1 - x.h0)) / 2;
  assert.ok(o.errorNs < tightest, `${o.errorNs} < ${tightest}`);
});

test('disjoint brackets fall back to the tightest one, widened by the disagreement', () => {
  const o = offsetFrom([
    { h0: 0, h1: 10, g: 0 },
    { h0: 100, h1: 130, g: 0 },
  ]);
  assert.equal(o.offset, 5);
  assert.equal(o.errorNs, 90);
});

test('drift between the before and after calibrations is corrected linearly', () => {
  const ppm = 25;
  const before = samples(100, 1e9, 5e8, ppm);
  const after = samples(100, 1e9 + 2e9, 5e8, ppm);
  const map = clockMap(before, after);
  for (const host of [1e9 + 1e6, 1e9 + 1e9, 1e9 + 1.9e9]) {
    const g = host - 5e8 - (host * ppm) / 1e6;
    assert.ok(
      Math.abs(map.toHost(g) - host) <= map.errorNs + 1,
      `at ${host}: ${map.toHost(g) - host} > ${map.errorNs}`,
    );
  }
  assert.ok(Math.abs(map.driftNsPerS - ppm * 1000) < 3000, `drift ${map.driftNsPerS} ns/s`);
});

test("the addon's calibration block splits into four bursts of samples", () => {
  const n = 2;
  const c = Float64Array.from([n, ...Array.from({ length: 12 * n }, (_, i) => i)]);
  const s = splitCalibration(c);
  assert.deepEqual(s.events[0][1], { h0: 3, h1: 4, g: 5 });
  assert.deepEqual(s.events[1][0], { h0: 6, h1: 7, g: 8 });
  assert.deepEqual(s.timer[1][1], { h0: 21, h1: 22, g: 23 });
});
