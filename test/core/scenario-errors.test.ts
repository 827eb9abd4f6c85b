import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseScenario, compileScenario, ScenarioError, STEP_KINDS } from '../../core/scenario/parse';

const FILE = 't.scenario.json';
const KINDS = STEP_KINDS.join(', ');
const LAUNCH_KEYS = 'launch, stream, us, ms, ns, touch, grid, block, blocksPerSm, latencyNs, graphNode, reads, writes';

/** A scenario whose one step (line 7, from column 5) is `step`. */
const withStep = (step: string): string => `{
  "name": "t",
  "streams": { "side": { "nonBlocking": true } },
  "events": { "ready": {}, "start": { "timing": true } },
  "buffers": { "x": { "bytes": 4096 }, "h": { "bytes": 4096, "host": "pinned" }, "p": { "bytes": 1024, "host": "pageable" } },
  "steps": [
    ${step}
  ]
}`;

/** A scenario on one line: `{ "name": "t", <rest> }`, so columns count from the start of `text`. */
const oneLine = (rest: string): string => `{ "name": "t", ${rest} }`;

interface Row {
  name: string;
  text: string;
  /** Every expected error, in document order: line, column, detail. */
  errors: [number, number, string][];
}

const rows: Row[] = [
  {
    name: 'unknown stream with a close name',
    text: withStep('{ "streamSync": "sid" }'),
    errors: [[7, 21, 'unknown stream "sid"; did you mean "side"? Declared streams: default, legacy, side']],
  },
  {
    name: 'unknown stream with no close name',
    text: withStep('{ "launch": "k", "us": 1, "stream": "copyEngine" }'),
    errors: [[7, 41, 'unknown stream "copyEngine". Declared streams: default, legacy, side']],
  },
  {
    name: 'unknown waitStream stream',
    text: withStep('{ "waitStream": "sdie" }'),
    errors: [[7, 21, 'unknown stream "sdie"; did you mean "side"? Declared streams: default, legacy, side']],
  },
  {
    name: 'unknown event',
    text: withStep('{ "record": "redy" }'),
    errors: [[7, 17, 'unknown event "redy"; did you mean "ready"? Declared events: ready, start']],
  },
  {
    name: 'unknown event when none are declared',
    text: oneLine('"steps": [ { "eventSync": "e" } ]'),
    errors: [[1, 42, 'unknown event "e". No events are declared; add one under "events"']],
  },
  {
    name: 'unknown buffer in reads',
    text: withStep('{ "launch": "k", "us": 1, "reads": ["y"] }'),
    errors: [[7, 41, 'unknown buffer "y". Declared buffers: x, h, p']],
  },
  {
    name: 'copy between unknown buffers',
    text: withStep('{ "copy": "a", "to": "b" }'),
    errors: [
      [7, 15, 'unknown buffer "a". Declared buffers: x, h, p'],
      [7, 26, 'unknown buffer "b". Declared buffers: x, h, p'],
    ],
  },
  {
    name: 'wrong type for a duration',
    text: withStep('{ "launch": "k", "us": "100" }'),
    errors: [[7, 28, '"us": expected a number, got string']],
  },
  {
    name: 'zero duration',
    text: withStep('{ "launch": "k", "ms": 0 }'),
    errors: [[7, 28, '"ms": a duration must be greater than 0, got 0']],
  },
  {
    name: 'negative host work',
    text: withStep('{ "hostWork": { "us": -5 } }'),
    errors: [[7, 27, '"us": a duration must be greater than 0, got -5']],
  },
  {
    name: 'a copy with a negative measured duration',
    text: withStep('{ "copy": "x", "to": "h", "us": -2 }'),
    errors: [[7, 37, '"us": a duration must be greater than 0, got -2']],
  },
  {
    name: 'a copy with two measured durations',
    text: withStep('{ "copy": "x", "to": "h", "us": 2, "ns": 5 }'),
    errors: [[7, 40, 'a copy takes one of "us", "ms" or "ns", not both "us" and "ns"']],
  },
  {
    name: 'negative host function body',
    text: withStep('{ "hostFunc": "cb", "us": -1 }'),
    errors: [[7, 31, '"us": a duration must be 0 or more, got -1']],
  },
  {
    name: 'duration below 1 ns',
    text: withStep('{ "launch": "k", "ns": 0.2 }'),
    errors: [[7, 28, '"ns": 0.2 ns is shorter than 1 ns']],
  },
  {
    name: 'host work without a duration',
    text: withStep('{ "hostWork": {} }'),
    errors: [[7, 19, '"hostWork": expected a duration, as in { "us": 30 }']],
  },
  {
    name: 'misspelt step kind',
    text: withStep('{ "lanch": "k", "us": 1 }'),
    errors: [[7, 7, `unknown step kind "lanch"; did you mean "launch"? Step kinds: ${KINDS}`]],
  },
  {
    name: 'CUDA name for a step kind',
    text: withStep('{ "eventSynchronize": "ready" }'),
    errors: [[7, 7, `unknown step kind "eventSynchronize"; did you mean "eventSync"? Step kinds: ${KINDS}`]],
  },
  {
    name: 'PyTorch name for a step kind',
    text: withStep('{ "synchronize": true }'),
    errors: [[7, 7, `unknown step kind "synchronize"; did you mean "deviceSync"? Step kinds: ${KINDS}`]],
  },
  {
    name: 'step with no kind',
    text: withStep('{ "stream": "side" }'),
    errors: [[7, 5, `a step needs a kind, one of: ${KINDS}`]],
  },
  {
    name: 'step with two kinds',
    text: withStep('{ "record": "ready", "wait": "ready" }'),
    errors: [[7, 26, 'a step has exactly one kind; this one has "record" and "wait"']],
  },
  {
    name: 'step that is not an object',
    text: withStep('"deviceSync"'),
    errors: [[7, 5, 'a step: expected an object, got string']],
  },
  {
    name: 'launch without work',
    text: withStep('{ "launch": "k", "grid": 4 }'),
    errors: [
      [
        7,
        7,
        'a launch needs its work: "us", "ms" or "ns" (a spin kernel of that duration) or "touch" (a kernel over a buffer)',
      ],
    ],
  },
  {
    name: 'launch with two durations',
    text: withStep('{ "launch": "k", "us": 1, "ms": 2 }'),
    errors: [[7, 31, 'a launch takes one of "us", "ms", "ns" or "touch", not both "us" and "ms"']],
  },
  {
    name: 'unknown key in a step',
    text: withStep('{ "launch": "k", "us": 1, "strem": "side" }'),
    errors: [[7, 31, `unknown key "strem" in a launch step; did you mean "stream"? Allowed keys: ${LAUNCH_KEYS}`]],
  },
  {
    name: 'key a step kind does not take',
    text: withStep('{ "eventSync": "ready", "stream": "side" }'),
    errors: [[7, 29, 'unknown key "stream" in an eventSync step. Allowed keys: eventSync']],
  },
  {
    name: 'duplicate key',
    text: withStep('{ "launch": "k", "us": 1, "us": 2 }'),
    errors: [[7, 31, 'duplicate key "us"']],
  },
  {
    name: 'unknown top-level key',
    text: oneLine('"steps": [], "descripton": "x"'),
    errors: [
      [
        1,
        29,
        'unknown key "descripton" in the scenario; did you mean "description"? Allowed keys: $schema, name, description, device, devices, streams, events, buffers, steps, threads',
      ],
    ],
  },
  {
    name: 'unknown key in a stream',
    text: oneLine('"steps": [], "streams": { "side": { "nonBlock": true } }'),
    errors: [
      [
        1,
        52,
        'unknown key "nonBlock" in stream "side"; did you mean "nonBlocking"? Allowed keys: nonBlocking, priority, device',
      ],
    ],
  },
  {
    name: 'unknown key in the device',
    text: oneLine('"steps": [], "device": { "schedul": "spin" }'),
    errors: [
      [
        1,
        41,
        'unknown key "schedul" in "device"; did you mean "schedule"? Allowed keys: schedule, perThreadDefaultStream',
      ],
    ],
  },
  {
    name: 'unknown schedule',
    text: oneLine('"steps": [], "device": { "schedule": "spinn" }'),
    errors: [
      [1, 53, 'unknown schedule "spinn"; did you mean "spin"? Expected one of: auto, spin, yield, blockingSync'],
    ],
  },
  {
    name: 'unknown host memory kind',
    text: oneLine('"steps": [], "buffers": { "h": { "bytes": 8, "host": "pined" } }'),
    errors: [[1, 69, 'unknown host memory kind "pined"; did you mean "pinned"? Expected one of: pinned, pageable']],
  },
  {
    name: 'runaway repeat count',
    text: withStep('{ "repeat": 2000000, "steps": [] }'),
    errors: [[7, 17, 'runaway repeat: 2000000 repetitions, over the limit of 1000000']],
  },
  {
    name: 'runaway repeat total',
    text: withStep('{ "repeat": 1000000, "steps": [ { "repeat": 6, "steps": [ { "deviceSync": true } ] } ] }'),
    errors: [[7, 17, 'runaway repeat: 1000000 x 6 steps make 6000000 steps in all, over the limit of 2000000']],
  },
  {
    name: 'repeat of zero',
    text: withStep('{ "repeat": 0, "steps": [] }'),
    errors: [[7, 17, '"repeat": expected a whole number from 1 to 1000000, got 0']],
  },
  {
    name: 'repeat without steps',
    text: withStep('{ "repeat": 3 }'),
    errors: [[7, 7, 'a repeat needs "steps": the steps to repeat']],
  },
  {
    name: 'both steps and threads',
    text: oneLine('"steps": [], "threads": { "a": [] }'),
    errors: [[1, 29, 'a scenario has either "steps" (one thread) or "threads", not both']],
  },
  {
    name: 'neither steps nor threads',
    text: '{ "name": "t" }',
    errors: [[1, 1, 'a scenario needs "steps" (or "threads": { "main": [...], ... })']],
  },
  { name: 'missing name', text: '{ "steps": [] }', errors: [[1, 1, 'a scenario needs a "name"']] },
  {
    name: 'name of the wrong type',
    text: '{ "name": 5, "steps": [] }',
    errors: [[1, 11, '"name": expected a string, got number']],
  },
  {
    name: 'thread that is not a list',
    text: oneLine('"threads": { "main": {} }'),
    errors: [[1, 37, 'thread "main": expected an array, got object']],
  },
  {
    name: 'JSON syntax: missing comma',
    text: '{ "name": "t" "steps": [] }',
    errors: [[1, 15, 'JSON syntax error: expected "," (CommaExpected)']],
  },
  {
    name: 'JSON syntax: bad literal',
    text: withStep('{ "deviceSync": tru }'),
    errors: [
      [7, 21, 'JSON syntax error: invalid symbol (InvalidSymbol)'],
      [7, 25, 'JSON syntax error: expected a value (ValueExpected)'],
    ],
  },
  {
    name: 'JSON syntax: unclosed array',
    text: '{ "name": "t", "steps": [\n',
    errors: [
      [2, 1, 'JSON syntax error: expected "]" (CloseBracketExpected)'],
      [2, 1, 'JSON syntax error: expected "}" (CloseBraceExpected)'],
    ],
  },
  {
    name: 'reserved stream name "default"',
    text: oneLine('"steps": [], "streams": { "default": {} }'),
    errors: [
      [
        1,
        42,
        `"default" is a reserved stream name (it names the calling thread's default stream); choose another name`,
      ],
    ],
  },
  {
    name: 'reserved stream name "legacy"',
    text: oneLine('"steps": [], "streams": { "legacy": {} }'),
    errors: [[1, 42, '"legacy" is a reserved stream name (it names the legacy default stream); choose another name']],
  },
  {
    name: 'stream priority out of range',
    text: oneLine('"steps": [], "streams": { "side": { "priority": 3 } }'),
    errors: [[1, 64, '"priority": expected a whole number from -5 (highest) to 0 (lowest), got 3']],
  },
  {
    name: 'buffer of zero bytes',
    text: oneLine('"steps": [], "buffers": { "x": { "bytes": 0 } }'),
    errors: [[1, 58, '"bytes": expected a whole number of bytes from 1 to 1099511627776 (1 TiB), got 0']],
  },
  {
    name: 'buffer of a fractional size',
    text: oneLine('"steps": [], "buffers": { "x": { "bytes": 1.5 } }'),
    errors: [[1, 58, '"bytes": expected a whole number of bytes from 1 to 1099511627776 (1 TiB), got 1.5']],
  },
  {
    name: 'buffer without a size',
    text: oneLine('"steps": [], "buffers": { "x": {} }'),
    errors: [[1, 42, 'buffer "x" needs "bytes": its size']],
  },
  {
    name: 'copy larger than a buffer',
    text: withStep('{ "copy": "x", "to": "p", "bytes": 2048 }'),
    errors: [[7, 40, '"bytes": expected a whole number from 1 to 1024 (the size of "p"), got 2048']],
  },
  {
    name: 'copy to itself',
    text: withStep('{ "copy": "x", "to": "x" }'),
    errors: [[7, 26, 'a copy from "x" to itself; copy between two buffers']],
  },
  {
    name: 'copy without a destination',
    text: withStep('{ "copy": "x" }'),
    errors: [[7, 7, 'a copy needs "to": the destination buffer']],
  },
  {
    name: 'stream on a synchronous copy',
    text: withStep('{ "copy": "x", "to": "h", "stream": "side" }'),
    errors: [
      [
        7,
        31,
        `"stream" needs "async": true; a synchronous copy (cudaMemcpy) always runs on the thread's default stream`,
      ],
    ],
  },
  {
    name: 'memset of pageable memory',
    text: withStep('{ "memset": "p" }'),
    errors: [[7, 17, 'memset cannot access pageable host memory ("p"); use a device buffer or "host": "pinned"']],
  },
  {
    name: 'kernel touching pageable memory',
    text: withStep('{ "launch": "k", "touch": "p" }'),
    errors: [[7, 31, 'a kernel cannot access pageable host memory ("p"); use a device buffer or "host": "pinned"']],
  },
  {
    name: 'block size too large',
    text: withStep('{ "launch": "k", "us": 1, "block": 2048 }'),
    errors: [[7, 40, '"block": expected a whole number from 1 to 1024, got 2048']],
  },
  {
    name: 'negative kernel latency',
    text: withStep('{ "launch": "k", "us": 1, "latencyNs": -5 }'),
    errors: [[7, 44, '"latencyNs": expected a whole number from 0 to 1000000000, got -5']],
  },
  {
    name: 'elapsed with one event name',
    text: withStep('{ "elapsed": "start" }'),
    errors: [[7, 18, '"elapsed": expected two event names, as in ["start", "end"], got string']],
  },
  {
    name: 'elapsed with three event names',
    text: withStep('{ "elapsed": ["start", "ready", "start"] }'),
    errors: [[7, 18, '"elapsed": expected two event names, as in ["start", "end"], got 3 items']],
  },
  {
    name: 'deviceSync false',
    text: withStep('{ "deviceSync": false }'),
    errors: [[7, 21, '"deviceSync": expected true (the current device) or a device number, got false']],
  },
  {
    name: 'unknown query answer',
    text: withStep('{ "query": "ready", "expect": "done" }'),
    errors: [[7, 35, 'unknown answer "done". Expected one of: ready, notReady']],
  },
];

test('the error table has at least 30 malformed scenarios', () => {
  assert.ok(rows.length >= 30, `${rows.length} rows`);
});

for (const row of rows) {
  test(`malformed scenario: ${row.name}`, () => {
    const { program, errors } = parseScenario(row.text, FILE);
    assert.equal(program, undefined);
    assert.deepEqual(
      errors.map((e) => [e.line, e.column, e.message]),
      row.errors.map(([line, column, detail]) => [line, column, `${FILE}:${line}:${column}: ${detail}`]),
    );
  });
}

test('errors are collected from the whole file, in document order', () => {
  const text = withStep('{ "lanch": "k" },\n    { "record": "redy" },\n    { "streamSync": "sid" }');
  const { errors } = parseScenario(text, FILE);
  assert.deepEqual(
    errors.map((e) => `${e.line}:${e.column}`),
    ['7:7', '8:17', '9:21'],
  );
});

test('errors stop at the cap of 100', () => {
  const steps = Array.from({ length: 150 }, () => '{ "record": "nope" }').join(',\n    ');
  const { errors } = parseScenario(withStep(steps), FILE);
  assert.equal(errors.length, 100);
  assert.equal(errors[99].line, 7 + 99);
});

test('ScenarioError carries file, position, detail and the length of the offending text', () => {
  const { errors } = parseScenario(withStep('{ "streamSync": "sid" }'), FILE);
  const e = errors[0];
  assert.ok(e instanceof ScenarioError && e instanceof Error);
  assert.deepEqual([e.file, e.line, e.column, e.length], [FILE, 7, 21, '"sid"'.length]);
  assert.equal(e.message, `${FILE}:${e.line}:${e.column}: ${e.detail}`);
});

test('compileScenario throws the first error', () => {
  assert.throws(
    () => compileScenario(withStep('{ "record": "redy" },\n    { "wait": "x" }'), FILE),
    (e: unknown) => e instanceof ScenarioError && e.line === 7 && e.column === 17,
  );
});

test('the file name defaults to "scenario"', () => {
  assert.equal(parseScenario('{}').errors[0].message.split(':')[0], 'scenario');
});

test('an empty file is a syntax error at 1:1', () => {
  const { errors } = parseScenario('', FILE);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].message, `${FILE}:1:1: JSON syntax error: expected a value (ValueExpected)`);
});

test('a byte order mark is not counted in columns', () => {
  const { errors } = parseScenario('\uFEFF{ "name": 5, "steps": [] }', FILE);
  assert.deepEqual(
    errors.map((e) => e.message),
    [`${FILE}:1:11: "name": expected a string, got number`],
  );
});

test('columns count from the line start with Windows line endings', () => {
  const text = withStep('{ "record": "redy" }').replace(/\n/g, '\r\n');
  const { errors } = parseScenario(text, FILE);
  assert.deepEqual([errors[0].line, errors[0].column], [7, 17]);
});
