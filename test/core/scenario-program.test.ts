import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileScenario, parseScenario } from '../../core/scenario/parse';
import type { Step } from '../../core/scenario/program';

const DESIGN_EXAMPLE = `{
  "$schema": "../media/schema/scenario.schema.json",
  "name": "Side stream produces, default stream consumes",
  "device": { "schedule": "auto" },                 // auto | spin | yield | blockingSync
  "streams": { "side": { "nonBlocking": true, "priority": -2 } },
  "events":  { "ready": { "timing": false, "blockingSync": false } },
  "buffers": { "x": { "bytes": 4096 }, "h": { "bytes": 4096, "host": "pinned" } },
  "steps": [
    { "launch": "produce", "stream": "side", "us": 200, "grid": 132, "writes": ["x"] },
    { "record": "ready", "stream": "side" },
    { "wait": "ready", "stream": "default" },
    { "launch": "consume", "us": 50, "reads": ["x"] },
    { "copy": "x", "to": "h", "async": true },
    { "query": "ready", "expect": "ready" },
    { "eventSync": "ready" },
    { "streamSync": "side" },
    { "deviceSync": true },
    { "hostWork": { "us": 30 } },
    { "repeat": 3, "steps": [ { "launch": "step", "us": 10 } ] },
  ]
}`;

const ops = (steps: Step[]): string[] => steps.map((s) => s.op);

test('the design example compiles to resolved ids, ns durations and unrolled steps', () => {
  const p = compileScenario(DESIGN_EXAMPLE, 'demo.scenario.json');
  assert.equal(p.name, 'Side stream produces, default stream consumes');
  assert.equal(p.file, 'demo.scenario.json');
  assert.deepEqual(p.device, { schedule: 'auto', perThreadDefaultStream: false });
  assert.deepEqual(
    p.streams.map((s) => [s.id, s.name, s.nonBlocking, s.priority, s.legacyDefault]),
    [
      [0, 'default', false, 0, true],
      [1, 'side', true, -2, false],
    ],
  );
  assert.deepEqual(
    p.events.map((e) => [e.id, e.name, e.timing, e.internal]),
    [[0, 'ready', false, false]],
  );
  assert.deepEqual(
    p.buffers.map((b) => [b.id, b.name, b.bytes, b.host]),
    [
      [0, 'x', 4096, undefined],
      [1, 'h', 4096, 'pinned'],
    ],
  );
  assert.equal(p.threads.length, 1);
  const [main] = p.threads;
  assert.deepEqual([main.id, main.name, main.defaultStream], [0, 'main', 0]);
  assert.deepEqual(ops(main.steps), [
    'launch',
    'record',
    'wait',
    'launch',
    'copy',
    'query',
    'eventSync',
    'streamSync',
    'deviceSync',
    'hostWork',
    'launch',
    'launch',
    'launch',
  ]);
  assert.equal(p.stepCount, 13);
  assert.deepEqual(main.steps[0], {
    op: 'launch',
    name: 'produce',
    stream: 1,
    ns: 200_000,
    grid: 132,
    block: 256,
    reads: [],
    writes: [0],
    pos: { line: 9, column: 5 },
  });
  assert.deepEqual(main.steps[1], { op: 'record', event: 0, stream: 1, pos: { line: 10, column: 5 } });
  assert.deepEqual(main.steps[2], { op: 'wait', event: 0, stream: 0, pos: { line: 11, column: 5 } });
  assert.deepEqual(main.steps[4], {
    op: 'copy',
    src: 0,
    dst: 1,
    bytes: 4096,
    direction: 'DtoH',
    async: true,
    stream: 0,
    pos: { line: 13, column: 5 },
  });
  assert.deepEqual(main.steps[5], { op: 'query', event: 0, expect: 'ready', pos: { line: 14, column: 5 } });
  assert.deepEqual(main.steps[9], { op: 'hostWork', ns: 30_000, pos: { line: 18, column: 5 } });
  // Every copy of a repeated step points at the same source: the repeated step object's brace.
  assert.deepEqual(
    main.steps.slice(10).map((s) => [s.pos.line, s.pos.column]),
    [
      [19, 31],
      [19, 31],
      [19, 31],
    ],
  );
});

test('a step position is its opening brace, also deep inside repeats and on CRLF lines', () => {
  const text =
    '{\r\n  "name": "t",\r\n  "steps": [\r\n    { "repeat": 2, "steps": [\r\n        { "deviceSync": true }\r\n    ] }\r\n  ]\r\n}';
  const p = compileScenario(text);
  assert.deepEqual(
    p.threads[0].steps.map((s) => s.pos),
    [
      { line: 5, column: 9 },
      { line: 5, column: 9 },
    ],
  );
});

test('nested repeats unroll in order', () => {
  const p = compileScenario(`{ "name": "t", "steps": [
    { "repeat": 2, "steps": [ { "launch": "a", "us": 1 }, { "repeat": 2, "steps": [ { "launch": "b", "us": 1 } ] } ] },
    { "launch": "c", "us": 1 } ] }`);
  const steps = p.threads[0].steps;
  assert.deepEqual(
    steps.map((s) => (s.op === 'launch' ? s.name : s.op)),
    ['a', 'b', 'b', 'a', 'b', 'b', 'c'],
  );
  assert.equal(p.stepCount, 7);
  // Every repetition is the same step object: a loop of 10^7 steps costs a reference per step.
  assert.equal(steps[0], steps[3]);
  assert.equal(steps[1], steps[2]);
  assert.equal(steps[1], steps[5]);
  assert.notEqual(steps[0], steps[6]);
});

test('large repeats unroll, and the per-repeat limit of 1000000 is inclusive', () => {
  const p = compileScenario(
    '{ "name": "t", "steps": [ { "repeat": 200000, "steps": [ { "launch": "k", "ns": 500 }, { "deviceSync": true } ] } ] }',
  );
  assert.equal(p.stepCount, 400_000);
  assert.equal(p.threads[0].steps.length, 400_000);
  assert.deepEqual(
    p.threads[0].steps.slice(-2).map((s) => s.op),
    ['launch', 'deviceSync'],
  );
  assert.equal(compileScenario('{ "name": "t", "steps": [ { "repeat": 1000000, "steps": [] } ] }').stepCount, 0);
});

test('waitStream lowers to a record of an internal event on the other stream and a wait on this one', () => {
  const text = `{ "name": "t",
  "streams": { "side": {}, "copy": {} },
  "events": { "ready": {} },
  "steps": [
    { "waitStream": "side", "stream": "copy" },
    { "waitStream": "copy" }
  ] }`;
  const p = compileScenario(text);
  assert.deepEqual(
    p.events.map((e) => [e.id, e.internal, e.timing, e.pos]),
    [
      [0, false, false, { line: 3, column: 15 }],
      [1, true, false, { line: 5, column: 5 }],
      [2, true, false, { line: 6, column: 5 }],
    ],
  );
  assert.equal(p.events[1].name, 'waitStream side->copy at 5:5');
  assert.deepEqual(p.threads[0].steps, [
    { op: 'record', event: 1, stream: 1, pos: { line: 5, column: 5 } },
    { op: 'wait', event: 1, stream: 2, pos: { line: 5, column: 5 } },
    { op: 'record', event: 2, stream: 2, pos: { line: 6, column: 5 } },
    { op: 'wait', event: 2, stream: 0, pos: { line: 6, column: 5 } },
  ]);
  assert.equal(p.stepCount, 4);
});

test('S4 per-thread default streams: one blocking stream per thread, "legacy" still the legacy stream', () => {
  const text = `{ "name": "t",
  "device": { "perThreadDefaultStream": true, "schedule": "blockingSync" },
  "streams": { "side": { "nonBlocking": true } },
  "threads": {
    "main": [ { "launch": "a", "us": 1 }, { "streamSync": "default" } ],
    "loader": [ { "launch": "b", "us": 1 }, { "launch": "c", "us": 1, "stream": "legacy" }, { "streamSync": "side" } ]
  } }`;
  const p = compileScenario(text);
  assert.deepEqual(p.device, { schedule: 'blockingSync', perThreadDefaultStream: true });
  assert.deepEqual(
    p.streams.map((s) => [s.id, s.name, s.legacyDefault, s.perThreadDefault, s.thread, s.nonBlocking]),
    [
      [0, 'default', true, false, undefined, false],
      [1, 'default (main)', false, true, 0, false],
      [2, 'default (loader)', false, true, 1, false],
      [3, 'side', false, false, undefined, true],
    ],
  );
  assert.deepEqual(
    p.threads.map((t) => [t.id, t.name, t.defaultStream, t.steps.length]),
    [
      [0, 'main', 1, 2],
      [1, 'loader', 2, 3],
    ],
  );
  const [main, loader] = p.threads;
  assert.deepEqual(
    main.steps.map((s) => ('stream' in s ? s.stream : -1)),
    [1, 1],
  );
  assert.deepEqual(
    loader.steps.map((s) => ('stream' in s ? s.stream : -1)),
    [2, 0, 3],
  );
  assert.equal(p.stepCount, 5);
});

test('S3 without per-thread default streams every thread\'s "default" is the legacy default stream', () => {
  const p =
    compileScenario(`{ "name": "t", "threads": { "a": [ { "launch": "k", "us": 1 } ], "b": [ { "record": "e", "stream": "default" } ] },
    "events": { "e": {} } }`);
  assert.equal(p.streams.length, 1);
  assert.deepEqual(
    p.threads.map((t) => t.defaultStream),
    [0, 0],
  );
  assert.deepEqual(
    p.threads.map((t) => t.steps.map((s) => ('stream' in s ? s.stream : -1))),
    [[0], [0]],
  );
});

test('copy directions come from the buffers, and bytes default to the smaller buffer', () => {
  const p = compileScenario(`{ "name": "t",
    "streams": { "side": {} },
    "buffers": { "d": { "bytes": 1000 }, "d2": { "bytes": 300 }, "pin": { "bytes": 500, "host": "pinned" }, "page": { "bytes": 2000, "host": "pageable" } },
    "steps": [
      { "copy": "pin", "to": "d" },
      { "copy": "d", "to": "page", "async": true, "stream": "side" },
      { "copy": "d", "to": "d2", "bytes": 100, "async": true },
      { "copy": "page", "to": "pin" }
    ] }`);
  const copies = p.threads[0].steps.map((s) => (s.op === 'copy' ? [s.direction, s.bytes, s.async, s.stream] : []));
  assert.deepEqual(copies, [
    ['HtoD', 500, false, 0],
    ['DtoH', 1000, true, 1],
    ['DtoD', 100, true, 0],
    ['HtoH', 500, false, 0],
  ]);
});

test('memset defaults to the whole buffer, synchronously; pinned memory may be set', () => {
  const p =
    compileScenario(`{ "name": "t", "streams": { "s": {} }, "buffers": { "x": { "bytes": 64 }, "h": { "bytes": 32, "host": "pinned" } },
    "steps": [ { "memset": "x" }, { "memset": "h", "bytes": 16, "async": true, "stream": "s" } ] }`);
  assert.deepEqual(
    p.threads[0].steps.map((s) => (s.op === 'memset' ? [s.buffer, s.bytes, s.async, s.stream] : [])),
    [
      [0, 64, false, 0],
      [1, 16, true, 1],
    ],
  );
});

test('durations convert to whole nanoseconds', () => {
  const p = compileScenario(`{ "name": "t", "steps": [
    { "launch": "a", "ms": 1.5 }, { "launch": "b", "us": 0.5 }, { "launch": "c", "ns": 7 }, { "launch": "d", "us": 0.1 },
    { "hostWork": { "ms": 2 } }, { "hostFunc": "cb" }, { "hostFunc": "cb2", "us": 3, "stream": "legacy" } ] }`);
  const ns = p.threads[0].steps.map((s) => ('ns' in s ? s.ns : undefined));
  assert.deepEqual(ns, [1_500_000, 500, 7, 100, 2_000_000, 0, 3000]);
  assert.deepEqual(
    p.threads[0].steps.slice(5).map((s) => (s.op === 'hostFunc' ? [s.name, s.stream] : [])),
    [
      ['cb', 0],
      ['cb2', 0],
    ],
  );
});

test('a touch kernel reads and writes its buffer and has no spin duration', () => {
  const p = compileScenario(`{ "name": "t", "buffers": { "x": { "bytes": 64 }, "y": { "bytes": 64 } },
    "steps": [ { "launch": "k", "touch": "x", "reads": ["y"], "grid": 8, "block": 128 } ] }`);
  const [k] = p.threads[0].steps;
  assert.ok(k.op === 'launch');
  assert.deepEqual([k.touch, k.ns, k.reads, k.writes, k.grid, k.block], [0, undefined, [1, 0], [0], 8, 128]);
  assert.ok(!('ns' in k));
});

test('S11 elapsed on a non-timing event is not a parse error (the executors report it at run time)', () => {
  const p = compileScenario(`{ "name": "t", "events": { "a": {}, "b": { "timing": true } },
    "steps": [ { "record": "a" }, { "record": "b" }, { "elapsed": ["a", "b"] } ] }`);
  assert.deepEqual(p.threads[0].steps[2], { op: 'elapsed', from: 0, to: 1, pos: { line: 2, column: 54 } });
  assert.deepEqual(
    p.events.map((e) => e.timing),
    [false, true],
  );
});

test('event flags, declaration positions and a description come through', () => {
  const p = compileScenario(`{ "name": "t", "description": "why",
    "events": { "e": { "timing": true, "blockingSync": true } },
    "steps": [ { "query": "e" } ] }`);
  assert.equal(p.description, 'why');
  assert.deepEqual(p.events[0], {
    id: 0,
    name: 'e',
    timing: true,
    blockingSync: true,
    internal: false,
    device: 0,
    pos: { line: 2, column: 17 },
  });
  assert.deepEqual(p.threads[0].steps[0], { op: 'query', event: 0, pos: { line: 3, column: 16 } });
});

test('a scenario with no steps compiles to one empty thread', () => {
  const { program, errors } = parseScenario('{ "name": "empty", "steps": [] }');
  assert.deepEqual(errors, []);
  assert.deepEqual(program?.threads, [{ id: 0, name: 'main', defaultStream: 0, steps: [] }]);
  assert.equal(program?.stepCount, 0);
  assert.equal(program?.description, undefined);
  assert.ok(program && !('description' in program));
});
