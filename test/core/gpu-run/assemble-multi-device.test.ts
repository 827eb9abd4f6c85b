// S21 in the GPU assembly: each device's times map through its own clock, lanes carry their
// device, and a deviceSync is released by its own device's work only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario } from '../../../core/scenario/parse';
import { EDGE_KINDS, str } from '../../../core/trace/model';
import { splitDevices } from '../../../core/gpu-run/align';
import { assembleTrace } from '../../../core/gpu-run/assemble';
import { encodeProgram, REC, RECORD_WIDTH, STEP_DEVICE, STEP_WIDTH } from '../../../core/gpu-run/encode';

const program = compileScenario(
  JSON.stringify(
    {
      name: 'two devices',
      streams: { s0: { nonBlocking: true }, s1: { nonBlocking: true, device: 1 } },
      events: { e: {} },
      steps: [
        { launch: 'produce', stream: 's0', us: 390 },
        { launch: 'consume', stream: 's1', us: 80 },
        { deviceSync: 1 },
        { deviceSync: 0 },
        { record: 'e', stream: 's0' },
        { wait: 'e', stream: 's1' },
        { launch: 'late', stream: 's1', us: 10 },
        { deviceSync: 1 },
      ],
    },
    null,
    2,
  ),
  'two.scenario.json',
);

/** Device 1's clock runs 1 ms behind the host's; device 0's is the host's. */
const BEHIND_US = 1000;

/** One calibration block of exact brackets for a device whose clock is `offsetNs` behind the host. */
function block(offsetNs: number): number[] {
  const burst = (at: number) => [0, 1, 2].flatMap((i) => [at + i * 1e6, at + i * 1e6, at + i * 1e6 - offsetNs]);
  return [3, ...burst(0), ...burst(5e6), ...burst(0), ...burst(5e6), 0, 0];
}

function raw(rows: Partial<Record<keyof typeof REC, number>>[]) {
  const records = new Float64Array(rows.length * RECORD_WIDTH).fill(NaN);
  rows.forEach((r, g) => {
    for (const [k, v] of Object.entries(r))
      records[g * RECORD_WIDTH + REC[k as keyof typeof REC]] = k === 'done' ? v : v * 1000;
  });
  const gpu = { sms: 4, computeCapability: '9.0', cudaDriverVersion: 13000 };
  return {
    records,
    calibration: Float64Array.from([...block(0), ...block(BEHIND_US * 1000)]),
    device: { name: 'GPU A', ...gpu, index: 0 },
    devices: [
      { device: 0, name: 'GPU A', ...gpu, index: 0 },
      { device: 1, name: 'GPU B', ...gpu, index: 1 },
    ],
  };
}

const on1 = (us: number) => us - BEHIND_US;
const trace = assembleTrace(
  program,
  raw([
    { hostBegin: 10, hostEnd: 14, gpuEnd: 405, done: 1 }, // produce, device 0
    { hostBegin: 15, hostEnd: 19, gpuEnd: on1(100), done: 1 }, // consume, device 1
    { hostBegin: 20, hostEnd: 104, done: 1 }, // deviceSync 1
    { hostBegin: 105, hostEnd: 409, done: 1 }, // deviceSync 0
    { hostBegin: 410, hostEnd: 411, gpuEnd: 412, done: 1 }, // record e, device 0
    { hostBegin: 412, hostEnd: 413, gpuEnd: on1(414), done: 1 }, // wait e, device 1
    { hostBegin: 414, hostEnd: 418, gpuEnd: on1(432), done: 1 }, // late, device 1
    { hostBegin: 419, hostEnd: 436, done: 1 }, // deviceSync 1
  ]),
);

const op = (name: string) => [...Array(trace.ops.count).keys()].find((i) => str(trace, trace.ops.name[i]) === name)!;
const syncs = [...Array(trace.calls.count).keys()].filter(
  (i) => str(trace, trace.calls.name[i]) === 'cudaDeviceSynchronize',
);
const origin = 10_000;

test("S21 the calibration holds one block per device, and each device's times map through its own clock", () => {
  assert.deepEqual(
    splitDevices(raw([]).calibration).map((b) => b.length),
    [39, 39],
  );
  assert.equal(trace.ops.end[op('produce')], 405_000 - origin);
  assert.equal(trace.ops.end[op('consume')], 100_000 - origin);
  assert.equal(trace.ops.end[op('late')], 432_000 - origin);
  assert.deepEqual(
    ['produce', 'consume', 'late'].map((n) => trace.lanes[trace.ops.lane[op(n)]].device),
    [0, 1, 1],
  );
  assert.deepEqual(
    trace.meta.devices?.map((d) => [d.device, d.name]),
    [
      [0, 'GPU A'],
      [1, 'GPU B'],
    ],
  );
});

test("S21 a deviceSync is released by its own device's work only", () => {
  const [sync1, sync0, late1] = syncs;
  assert.deepEqual(
    [...syncs].map((c) => trace.calls.device[c]),
    [1, 0, 1],
  );
  assert.equal(trace.calls.releasedBy[sync1], op('consume'));
  assert.equal(trace.calls.unblockNs[sync1], 4000);
  assert.equal(trace.calls.releasedBy[sync0], op('produce'));
  // Behind device 1's wait marker is device 0's record, and behind that, nothing pending: the kernel
  // on device 1 that ran after the wait released it.
  assert.equal(trace.calls.releasedBy[late1], op('late'));
});

test('S21 a cross-device wait keeps its event edge', () => {
  const edges = [...Array(trace.edges.count).keys()].map(
    (i) => `${EDGE_KINDS[trace.edges.kind[i]]}:${trace.edges.from[i]}->${trace.edges.to[i]}`,
  );
  assert.ok(edges.includes(`event:${op('record e')}->${op('wait e')}`));
});

test('S21 the encoded job names the CUDA device of each scenario device and the device each step runs on', () => {
  const job = encodeProgram(program, { device: 2 });
  assert.deepEqual([...job.devices], [2, 3]);
  const devices = Array.from({ length: program.stepCount }, (_, g) => job.steps[g * STEP_WIDTH + STEP_DEVICE]);
  assert.deepEqual(devices, [0, 1, 1, 0, 0, 1, 1, 1]);
  assert.deepEqual([...job.events], [0, 0, 0]);
});
