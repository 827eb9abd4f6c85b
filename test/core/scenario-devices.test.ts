// Devices in the scenario language (S21): what a multi-device scenario compiles to, and the
// positioned errors for device numbers and for work that mixes devices where CUDA does not allow it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario, parseScenario } from '../../core/scenario/parse';

const FILE = 't.scenario.json';

/** Two devices; the one step (line 8, from column 5) is `step`. */
const withStep = (step: string, extra = ''): string => `{
  "name": "t",${extra}
  "streams": { "s0": {}, "s1": { "device": 1 } },
  "events": { "e0": { "timing": true }, "e1": { "device": 1, "timing": true } },
  "buffers": { "x0": { "bytes": 4096 }, "x1": { "bytes": 4096, "device": 1 }, "h": { "bytes": 4096, "host": "pinned" } },
  "steps": [
    { "launch": "k", "stream": "s1", "us": 1 },
    ${step}
  ]
}`;

const errorsOf = (text: string): string[] => parseScenario(text, FILE).errors.map((e) => e.message);

const rows: [string, string, string][] = [
  [
    'a device number out of range',
    withStep('{ "deviceSync": 16 }'),
    '8:21: "deviceSync" (true for the current device, or a device number): expected a device number from 0 to 15, got 16',
  ],
  [
    'a device written as PyTorch writes it',
    withStep('{ "setDevice": "cuda:1" }'),
    '8:20: "setDevice": expected a device number from 0 to 15, as in 1, got "cuda:1"; did you mean 1?',
  ],
  [
    'a deviceSync of a device nothing uses',
    withStep('{ "deviceSync": 2 }'),
    '8:21: "deviceSync": no stream, event, buffer or setDevice step of this scenario uses device 2; did you mean 1? Devices used: 0, 1',
  ],
  [
    'a record on a stream of another device',
    withStep('{ "record": "e0", "stream": "s1" }'),
    '8:33: event "e0" is on device 0 but stream "s1" is on device 1; cudaEventRecord needs both on one device: use a stream of device 0',
  ],
  [
    'a record without a stream, after setDevice',
    withStep('{ "setDevice": 1 },\n    { "record": "e0" }'),
    '9:17: event "e0" is on device 0 but stream "default (GPU 1)" is on device 1; cudaEventRecord needs both on one device: add { "setDevice": 0 } before it, or a "stream" of device 0',
  ],
  [
    'a peer copy that is not async',
    withStep('{ "copy": "x0", "to": "x1" }'),
    '8:15: a copy from device 0 ("x0") to device 1 ("x1") is a peer copy: it needs "async": true (cudaMemcpyPeerAsync)',
  ],
  [
    'a copy of device 1 memory on a device 0 stream',
    withStep('{ "copy": "x1", "to": "h", "async": true, "stream": "s0" }'),
    '8:57: buffer "x1" is on device 1 but stream "s0" is on device 0; cudaMemcpyAsync needs both on one device: use a stream of device 1',
  ],
  [
    "a touch kernel over another device's memory",
    withStep('{ "launch": "t", "touch": "x1" }'),
    '8:17: buffer "x1" is on device 1 but stream "default" is on device 0; a touch kernel needs both on one device: add { "setDevice": 1 } before it, or a "stream" of device 1',
  ],
  [
    "elapsed time between two devices' events",
    withStep('{ "elapsed": ["e0", "e1"] }'),
    '8:25: event "e1" is on device 1 but "e0" on device 0; cudaEventElapsedTime needs two events of one device',
  ],
  [
    'a repeat that ends on another device',
    withStep('{ "repeat": 2, "steps": [ { "setDevice": 1 } ] }'),
    '8:7: a repeat\'s steps must end on the device they start on (device 0), or each repetition would run somewhere else; end them with { "setDevice": 0 }',
  ],
  [
    'a host buffer with a device',
    withStep('{ "deviceSync": true }').replace('"host": "pinned" }', '"host": "pinned", "device": 1 }'),
    '5:119: buffer "h" is host memory, which belongs to no device (every GPU reaches it); drop "device", or "host" for memory on that GPU',
  ],
  [
    'settings for a device nothing uses',
    withStep('{ "deviceSync": true }', '\n  "devices": { "2": { "schedule": "spin" } },'),
    '3:16: "devices": settings for device 2, which no stream, event, buffer or setDevice step uses; did you mean "1"? Devices used: 0, 1',
  ],
  [
    'a devices key that is not a number',
    withStep('{ "deviceSync": true }', '\n  "devices": { "gpu1": { "schedule": "spin" } },'),
    '3:16: "devices": a key is a device number from 0 to 15, got "gpu1"; did you mean "1"?',
  ],
  [
    'a stream device that is not a whole number',
    withStep('{ "deviceSync": true }').replace('"device": 1 } },', '"device": 0.5 } },'),
    '3:44: "device": expected a device number from 0 to 15, got 0.5',
  ],
];

for (const [name, text, error] of rows) {
  test(`S21 malformed scenario: ${name}`, () => {
    assert.deepEqual(errorsOf(text), [`${FILE}:${error}`]);
  });
}

test('S21 a two-device scenario compiles to devices, per-device streams and a peer copy', () => {
  const p = compileScenario(
    withStep(
      '{ "copy": "x0", "to": "x1", "async": true, "stream": "s1" },\n    { "setDevice": 1 },\n    { "launch": "d", "us": 1 },\n    { "deviceSync": true },\n    { "deviceSync": 0 }',
      '\n  "device": { "schedule": "spin" },\n  "devices": { "1": { "schedule": "blockingSync" } },',
    ),
    FILE,
  );
  assert.deepEqual(
    p.devices.map((d) => [d.id, d.schedule, d.used, d.pos.line]),
    [
      [0, 'spin', true, 1],
      [1, 'blockingSync', true, 5],
    ],
  );
  assert.deepEqual(
    p.streams.map((s) => [s.name, s.device, s.legacyDefault]),
    [
      ['default', 0, true],
      ['s0', 0, false],
      ['s1', 1, false],
      ['default (GPU 1)', 1, true],
    ],
  );
  assert.deepEqual(
    p.events.map((e) => e.device),
    [0, 1],
  );
  assert.deepEqual(
    p.buffers.map((b) => b.device),
    [0, 1, undefined],
  );
  const steps = p.threads[0].steps;
  assert.deepEqual(
    steps.map((s) => s.op),
    ['launch', 'copy', 'setDevice', 'launch', 'deviceSync', 'deviceSync'],
  );
  assert.deepEqual(steps[1], {
    op: 'copy',
    src: 0,
    dst: 1,
    bytes: 4096,
    direction: 'PtoP',
    async: true,
    stream: 2,
    pos: { line: 10, column: 5 },
  });
  assert.equal(
    (steps[3] as { stream: number }).stream,
    3,
    'a launch without "stream" after setDevice(1) goes to device 1\'s legacy stream',
  );
  assert.deepEqual(
    steps.slice(4).map((s) => (s as { device: number }).device),
    [1, 0],
  );
});

test('S21 per-thread default streams are per device, and each thread starts on device 0', () => {
  const p = compileScenario(
    `{ "name": "t", "device": { "perThreadDefaultStream": true }, "streams": { "s1": { "device": 1 } },
    "threads": { "a": [ { "setDevice": 1 }, { "launch": "k", "us": 1 } ], "b": [ { "launch": "k", "us": 1 } ] } }`,
    FILE,
  );
  assert.deepEqual(
    p.streams.map((s) => [s.name, s.device, s.perThreadDefault, s.thread]),
    [
      ['default', 0, false, undefined],
      ['default (a)', 0, true, 0],
      ['default (b)', 0, true, 1],
      ['s1', 1, false, undefined],
      ['default (a, GPU 1)', 1, true, 0],
    ],
  );
  assert.deepEqual(
    p.threads.map((t) => t.steps.filter((s) => s.op === 'launch').map((s) => (s as { stream: number }).stream)),
    [[4], [2]],
  );
});

test('S21 a scenario without devices is device 0 alone, with the schedule of "device"', () => {
  const p = compileScenario(
    '{ "name": "t", "device": { "schedule": "yield" }, "steps": [ { "deviceSync": true } ] }',
    FILE,
  );
  assert.deepEqual(p.devices, [{ id: 0, schedule: 'yield', used: true, pos: { line: 1, column: 1 } }]);
  assert.deepEqual(p.threads[0].steps[0], { op: 'deviceSync', device: 0, pos: { line: 1, column: 62 } });
  assert.deepEqual(
    p.streams.map((s) => s.device),
    [0],
  );
});
