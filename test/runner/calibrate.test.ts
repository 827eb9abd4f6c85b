// What calibration reads from a run, checked on the simulator's own run of the calibration
// scenario: each cost it measures comes back as the profile that made the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario } from '../../core/scenario/parse';
import { loadProfile, simulate } from '../../core/simulate';
import { CALIBRATION_RUNS, CALIBRATION_SCENARIO, calibrationsIn, profileFromTrace } from '../../runner/calibrate';
import { asRecorded } from '../../runner/recorded';

test('calibration reads the call costs, the cold first call and the pageable copies back from a simulated run', () => {
  const p = loadProfile({ coldCallNs: 1700, copyCallNs: 1200, idleLaunchNs: 3600, launchNs: 3000, recordTimingNs: 1100, pageableHtoDGBps: 9.5 });
  // Run as the GPU runs it: a timing event after every stream op.
  const t = simulate(compileScenario(JSON.stringify(CALIBRATION_SCENARIO), 'calibration.scenario.json'), asRecorded(p, 900));
  const m = profileFromTrace(t);
  for (const k of ['launchNs', 'idleLaunchNs', 'coldCallNs', 'recordTimingNs', 'recordNoTimingNs', 'queryNs', 'copyCallNs', 'memsetCallNs', 'queueDepth'] as const) {
    assert.equal(m[k], p[k], k);
  }
  for (const k of ['pinnedHtoDGBps', 'pageableHtoDGBps', 'pageableDtoHGBps', 'dtoDGBps'] as const) {
    assert.ok(Math.abs((m[k] as number) / p[k] - 1) < 1e-4, `${k}: ${m[k]} against ${p[k]}`);
  }
});

test('calibration runs spread over rounds add up to a calibration\'s, as evenly as the rounds allow', () => {
  for (const rounds of [1, 3, 5, 7, 15, 40]) {
    const per = Array.from({ length: rounds }, (_, r) => calibrationsIn(r, rounds));
    assert.equal(per.reduce((a, b) => a + b, 0), CALIBRATION_RUNS, `${rounds} rounds: ${per}`);
    assert.ok(Math.max(...per) - Math.min(...per) <= 1, `${rounds} rounds: ${per}`);
  }
});
