// Hostile scenarios: each one fails fast with a positioned message instead of overflowing the
// stack, running out of memory or running for minutes. Inputs are generated in memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseScenario } from '../../core/scenario/parse';
import { Reporter, MAX_ERRORS } from '../../core/scenario/errors';
import { closest, editDistance } from '../../core/scenario/suggest';
import { simulate } from '../../core/simulate';

const FILE = 'h.scenario.json';
const messages = (text: string): string[] => parseScenario(text, FILE).errors.map((e) => e.message);

test('JSON nested 10^4 levels deep is an error at the first bracket past the limit', () => {
  // `{"name":"x","steps":` is 20 characters; its `{` is level 1, so the 256th `[` is level 257.
  const text = `{"name":"x","steps":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
  assert.deepEqual(messages(text), [
    `${FILE}:1:276: nesting deeper than 256 levels; a scenario nests objects and arrays far less deeply (repeats at most 64 deep)`,
  ]);
});

test('brackets inside strings and comments do not count as nesting', () => {
  const deep = '['.repeat(1000);
  const text = `{ "name": "${deep}", /* ${deep} */ // ${deep}\n "steps": [] }`;
  assert.deepEqual(messages(text), []);
});

/** `levels` nested repeats, one per line after the first: level i opens on line i + 1, column 1. */
const nestedRepeats = (levels: number): string =>
  `{ "name": "x", "steps": [\n${'{ "repeat": 1, "steps": [\n'.repeat(levels)}{ "deviceSync": true }${' ] }'.repeat(levels)} ] }`;

test('5,000 nested repeats are a nesting error, not a stack overflow', () => {
  // Line 1 holds levels 1 and 2; line i + 1 opens levels 2i + 1 and 2i + 2, so level 257 is on line 129.
  assert.deepEqual(messages(nestedRepeats(5000)), [
    `${FILE}:129:1: nesting deeper than 256 levels; a scenario nests objects and arrays far less deeply (repeats at most 64 deep)`,
  ]);
});

test('repeats nest at most 64 deep', () => {
  assert.deepEqual(parseScenario(nestedRepeats(64), FILE).errors, []);
  assert.deepEqual(messages(nestedRepeats(65)), [
    `${FILE}:66:3: repeats nested more than 64 deep; merge inner repeats into one with the product of their counts`,
  ]);
});

test('150,000 streams simulate (no argument spreads over them)', () => {
  // More streams than a call takes arguments; declared in the program itself, to skip parsing them.
  const { program } = parseScenario('{ "name": "x", "steps": [ { "launch": "k", "us": 1 } ] }', FILE);
  const first = program!.streams[0];
  for (let id = 1; id <= 150_000; id++) program!.streams.push({ ...first, id, name: `s${id}`, legacyDefault: false });
  assert.equal(simulate(program!).ops.count, 1);
});

test('objects where names belong are positioned type errors', () => {
  const text =
    '{ "name": "x", "streams": { "s": {} }, "steps": [ { "launch": {}, "us": 1 }, { "waitStream": "s", "stream": {} } ] }';
  assert.deepEqual(messages(text), [
    `${FILE}:1:63: "launch": expected a string, got object`,
    `${FILE}:1:109: "stream": expected a string, got object`,
  ]);
});

test('a 50 MB unknown name fails fast, quoted short, with no suggestion', { timeout: 20_000 }, () => {
  const name = 'q'.repeat(50 * 2 ** 20);
  const text = `{ "name": "x", "steps": [ { "launch": "k", "us": 1, "${name}": 1 } ] }`;
  assert.deepEqual(messages(text), [
    `${FILE}:1:53: unknown key "${'q'.repeat(64)}..." (${name.length} characters) in a launch step. Allowed keys: launch, stream, us, ms, ns, touch, grid, block, blocksPerSm, latencyNs, graphNode, reads, writes`,
  ]);
});

test('the suggester skips long names and far lengths, and stops early past its limit', () => {
  assert.equal(closest('x'.repeat(65), ['x'.repeat(65)]), undefined);
  assert.equal(closest('sid', ['side', 'sidelong']), 'side');
  assert.equal(editDistance('abcdefgh', 'zzzzzzzz', 2), 3);
  assert.equal(editDistance('abcdefgh', 'abcdefghijk', 2), 3);
  assert.equal(editDistance('kitten', 'sitting', 3), 3);
});

test('no "did you mean" is computed past the error cap', () => {
  const report = new Reporter('{}', FILE);
  for (let i = 0; i < MAX_ERRORS; i++) report.at(0, 1, 'e');
  let built = false;
  report.at(0, 1, () => {
    built = true;
    return 'late';
  });
  assert.equal(built, false);
  assert.equal(report.count, MAX_ERRORS);
});

/** A launch of the largest grid: 1 + 2^31 / 4096 (rounded down) = 524,288 units of work. */
const HUGE = '{ "launch": "k", "us": 1, "grid": 2147483647 }';

test('a repeat of costly kernels is rejected by simulated work before unrolling', () => {
  const text = `{ "name": "x", "steps": [ { "repeat": 8, "steps": [ ${HUGE} ] } ] }`;
  assert.deepEqual(messages(text), [
    `${FILE}:1:39: runaway repeat: 8 repetitions make 4194304 units of simulated work (a step is 1, plus 1 per 4096 blocks of a kernel and per 64 streams), over the limit of 4000000; repeat fewer times, or use smaller grids or fewer streams`,
  ]);
});

test('costly kernels written out are rejected at the step that passes the work limit', () => {
  const steps = Array.from({ length: 8 }, () => HUGE).join(',\n');
  assert.deepEqual(messages(`{ "name": "x", "steps": [\n${steps}\n] }`), [
    `${FILE}:9:1: the scenario's simulated work passes the limit of 4000000 units here (a step is 1, plus 1 per 4096 blocks of a kernel and per 64 streams); use fewer steps, smaller grids or fewer streams`,
  ]);
});

test('errors come sorted by position, whatever order they were found in', () => {
  // The unused "devices" key is judged after every step, but sits before them in the file.
  const text = `{ "name": "x",
  "devices": { "3": {} },
  "steps": [ { "streamSync": "nope" }, { "record": "none" } ]
}`;
  assert.deepEqual(
    parseScenario(text, FILE).errors.map((e) => `${e.line}:${e.column}`),
    ['2:16', '3:30', '3:52'],
  );
});
