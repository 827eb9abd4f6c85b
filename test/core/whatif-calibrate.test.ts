// The what-if's calibration to the program's plain speed (core/whatif/calibrate.ts): a profile from
// `syncscope profile` holds the script's step timed with the profiler off, and the what-if scales the
// recorded host work so that the unchanged program's simulated step takes that long. loop_sync's
// profile (test/fixtures/whatif-truth, H100): its plain step, read by hand from the trace's marker,
// is 4140176 ns over 5 steps; its recorded steps take about 7.9 ms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { importPytorch } from '../../core/import/pytorch';
import { h200 } from '../../core/simulate/profile';
import { whatIf } from '../../core/whatif/fixes';
import { scaleHostWork } from '../../core/whatif/calibrate';
import { overheadText } from '../../core/whatif/overhead';
import type { GeneratedStep } from '../../core/whatif/from-trace';
import { repoPath } from '../helpers/paths';

const loopSync = () =>
  importPytorch(gunzipSync(readFileSync(repoPath('test/fixtures/whatif-truth/loop_sync.profile.json.gz'))));

test('scaleHostWork scales host work steps alone, on the copy it is given, and never to 0 ns', () => {
  const steps: GeneratedStep[] = [
    { step: { hostWork: { ns: 1000 } }, call: -1 },
    { step: { sync: 'device' }, call: 3 },
    { step: { hostWork: { ns: 1 } }, call: -1 },
  ];
  const th = new Map([['main', steps.slice()]]);
  scaleHostWork(th, 0.25);
  assert.deepEqual(
    th.get('main')!.map((s) => s.step),
    [{ hostWork: { ns: 250 } }, { sync: 'device' }, { hostWork: { ns: 1 } }],
  );
  assert.deepEqual(steps[0].step, { hostWork: { ns: 1000 } }, 'the original steps are untouched');
});

test("a profile's plain step calibrates the host work: the unchanged program's step takes it, and every fix runs at that scale", () => {
  const t = loopSync();
  assert.deepEqual(t.meta.plainStep, { ns: 4140176, steps: 5 });
  const [fix] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'loop-sync');
  const plain = fix.overhead.plain!;
  assert.equal(plain.plainStepNs, 4140176);
  assert.ok(plain.recordedStepNs > 7_000_000, `recorded ${plain.recordedStepNs}`);
  assert.ok(plain.hostScale > 0 && plain.hostScale < 1, `scale ${plain.hostScale}`);
  assert.ok(Math.abs(plain.calibratedStepNs - 4140176) <= 0.005 * 4140176, `calibrated ${plain.calibratedStepNs}`);
  // Per iteration of the 10 recorded: the calibrated before is the plain step, 10 of them.
  assert.ok(Math.abs(fix.before.doneNs / fix.iterations - plain.calibratedStepNs) < 1000);
  assert.match(
    overheadText(fix.overhead),
    /host work scaled to \d+% so that the unchanged program's step takes 4\.1\d ms, its plain speed of 4\.14 ms/,
  );
  // The same trace without its plain step is not scaled: its before is the recorded step.
  delete t.meta.plainStep;
  const [bare] = whatIf(t, h200, 'all').filter((r) => r.finding.kind === 'loop-sync');
  assert.equal(bare.overhead.plain, undefined);
  assert.ok(Math.abs(bare.before.doneNs / bare.iterations - plain.recordedStepNs) < 1000);
});

test('the plain marker is read, and a malformed one is a counted fault, not a step', () => {
  const marker = (fields: string) => ({
    ph: 'X',
    cat: 'user_annotation',
    name: `syncscope.site:${encodeURIComponent(fields)}`,
    pid: 1,
    tid: 1,
    ts: 10,
    dur: 0,
  });
  const call = {
    ph: 'X',
    cat: 'cuda_runtime',
    name: 'cudaDeviceSynchronize',
    pid: 1,
    tid: 1,
    ts: 20,
    dur: 5,
    args: {},
  };
  const read = (fields: string) =>
    importPytorch(new TextEncoder().encode(JSON.stringify({ traceEvents: [marker(fields), call] })));
  assert.deepEqual(read('{"plain":{"stepNs":2500000,"steps":5}}').meta.plainStep, { ns: 2500000, steps: 5 });
  const bad = read('{"plain":{"stepNs":-1,"steps":5}}');
  assert.equal(bad.meta.plainStep, undefined);
  assert.ok(
    bad.meta.notes?.some((n) => n.includes('"plain" is not {"stepNs": n, "steps": k} with n and k positive integers')),
    JSON.stringify(bad.meta.notes),
  );
});
