// What calibration reads from a run, checked on the simulator's own run of the calibration
// scenario: each cost it measures comes back as the profile that made the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario } from '../../../core/scenario/parse';
import { loadProfile, simulate } from '../../../core/simulate';
import {
  CALIBRATION_RUNS,
  calibrationProgram,
  calibrationsIn,
  firstCallNs,
  profileFromRuns,
  profileFromTrace,
} from '../../../core/gpu-run/calibration';
import { asRecorded } from '../../../core/gpu-run/recorded';

test('calibration reads the call costs, the cold calls, the recorder and the pageable copies back from a simulated run', () => {
  const p = loadProfile({
    coldCallNs: 1700,
    coldTinyCopyNs: 600,
    coldCopyNs: 1300,
    copyCallNs: 1200,
    idleLaunchNs: 3600,
    launchNs: 3000,
    recordTimingNs: 1100,
    pageableHtoDGBps: 9.5,
  });
  // Run as the GPU runs it: a timing event after every stream op, cold at first.
  const recorder = { tailNs: 900, coldTailNs: 1400 };
  const t = simulate(calibrationProgram('calibration'), asRecorded(p, recorder));
  const first = simulate(calibrationProgram('calibration-first'), asRecorded(p, recorder));
  const firstTiny = simulate(calibrationProgram('calibration-first-tiny'), asRecorded(p, recorder));
  const read = profileFromRuns([{ trace: t, first: [first], firstTiny: [firstTiny] }]);
  assert.deepEqual(read.recorder, recorder);
  const m = { ...profileFromTrace(t), ...read.profile };
  for (const k of [
    'launchNs',
    'idleLaunchNs',
    'coldCallNs',
    'coldTinyCopyNs',
    'coldCopyNs',
    'recordTimingNs',
    'recordNoTimingNs',
    'queryNs',
    'copyCallNs',
    'memsetCallNs',
    'queueDepth',
  ] as const) {
    assert.equal(m[k], p[k], k);
  }
  for (const k of ['pinnedHtoDGBps', 'pageableHtoDGBps', 'pageableDtoHGBps', 'dtoDGBps'] as const) {
    assert.ok(Math.abs((m[k] as number) / p[k] - 1) < 1e-4, `${k}: ${m[k]} against ${p[k]}`);
  }
});

test("over several runs, a program's cold first copy simulates as long as the runs' cold copies took, in the median", () => {
  // Each first-call run has one cold copy, so its extra cost is one sample: here the run with the
  // median warm copy has neither the median cold copy nor the median extra cost.
  const hosts = [
    { copyCallNs: 1000, coldCallNs: 2000 },
    { copyCallNs: 2000, coldCallNs: 100 },
    { copyCallNs: 1500, coldCallNs: 300 },
  ];
  const runs = hosts.map((h) => {
    const recorded = asRecorded(loadProfile(h), { tailNs: 900, coldTailNs: 600 });
    return {
      trace: simulate(calibrationProgram('calibration'), recorded),
      first: [simulate(calibrationProgram('calibration-first'), recorded)],
    };
  });
  const { profile, recorder } = profileFromRuns(runs);
  const first = compileScenario(
    JSON.stringify({
      name: 'first copy',
      buffers: { h: { bytes: 64, host: 'pageable' }, d: { bytes: 64 } },
      steps: [{ copy: 'h', to: 'd', async: true }],
    }),
    'first.scenario.json',
  );
  const medianCold = runs.map((r) => firstCallNs(r.first[0])).sort((a, b) => a - b)[1];
  const simulated = firstCallNs(simulate(first, asRecorded(profile, recorder)));
  assert.ok(Math.abs(simulated - medianCold) <= 2, `${simulated} against ${medianCold}`);
});

test("calibration runs spread over rounds add up to a calibration's, as evenly as the rounds allow", () => {
  for (const rounds of [1, 3, 5, 7, 15, 40]) {
    const per = Array.from({ length: rounds }, (_, r) => calibrationsIn(r, rounds));
    assert.equal(
      per.reduce((a, b) => a + b, 0),
      CALIBRATION_RUNS,
      `${rounds} rounds: ${per}`,
    );
    assert.ok(Math.max(...per) - Math.min(...per) <= 1, `${rounds} rounds: ${per}`);
  }
});
