// The fuzz suite's judge: which CLI outcomes pass and which failure class each other one is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify, positionProblem, type RunResult } from './classify';
import { generate, KINDS } from './generate';

const run = (over: Partial<RunResult>): RunResult => ({
  code: 2,
  signal: null,
  timedOut: false,
  stdout: '',
  stderr: '',
  ...over,
});
const file = 'scenario-7.scenario.json';
const outcome = (r: Partial<RunResult>, json = true) => classify(run(r), { file, json, lines: 10 }).outcome;

test('a positioned message, or one naming the file, passes; anything else is unpositioned', () => {
  assert.equal(positionProblem(`syncscope report: ${file}:3:7: unknown stream "x"`, file, 10), undefined);
  assert.equal(positionProblem(`${file}: not gzip data`, file), undefined);
  assert.equal(positionProblem(`syncscope report: /tmp/a/${file}:1:1: bad`, `/tmp/a/${file}`), undefined);
  assert.match(positionProblem('syncscope report: $.ops[2].kind: expected one', file)!, /file name/);
  assert.match(positionProblem('syncscope report: incorrect data check', file)!, /file name/);
  assert.match(positionProblem(`${file}:-2:1: bad`, file)!, /not from 1/);
  assert.match(positionProblem(`${file}:691:1: bad`, file, 12)!, /past the file/);
});

test('each failure class is told apart', () => {
  assert.equal(outcome({ code: 2, stderr: `syncscope check: ${file}:2:1: bad\n` }), 'ok');
  assert.equal(outcome({ code: 2, stderr: 'syncscope report: Maximum call stack size exceeded\n' }), 'internal');
  assert.equal(outcome({ code: 2, stderr: `${file}:1:1: x\n    at parse (core/x.ts:1:1)\n` }), 'internal');
  assert.equal(
    outcome({ code: 2, stderr: 'syncscope report: Cannot convert object to primitive value\n' }),
    'internal',
  );
  assert.equal(outcome({ code: null, signal: 'SIGKILL', timedOut: true }), 'hang');
  assert.equal(outcome({ code: 134, stderr: 'FATAL ERROR: Reached heap limit Allocation failed\n' }), 'oom');
  assert.equal(outcome({ code: null, signal: 'SIGSEGV' }), 'crash');
  assert.equal(outcome({ code: 7 }), 'crash');
  assert.equal(outcome({ code: 2, stderr: 'syncscope report: unexpected end of file\n' }), 'unpositioned');
  assert.equal(outcome({ code: 0, stdout: '{"source":' }), 'schema');
  assert.equal(outcome({ code: 0, stdout: '{}' }), 'schema');
  assert.equal(outcome({ code: 1, stdout: 'anything' }, false), 'ok');
});

test('the same kind and seed make the same bytes', () => {
  for (const kind of KINDS)
    for (const seed of [1, 2, 3])
      assert.deepEqual(
        generate(kind, seed, { maxBytes: 1 << 20 }).bytes,
        generate(kind, seed, { maxBytes: 1 << 20 }).bytes,
      );
});

test('no input is larger than its bound', () => {
  for (let seed = 1; seed <= 60; seed++)
    assert.ok(generate(KINDS[seed % KINDS.length], seed, { maxBytes: 65536 }).bytes.length <= 65536);
});

test('a usage error about an option value names the option instead of a file', () => {
  assert.equal(
    positionProblem(
      'syncscope replay: --steps 3:1: the first step is after the last; expected a:b with a <= b',
      'x.json',
    ),
    undefined,
  );
  assert.equal(positionProblem('syncscope whatif: --from 1000 --to 500: the window is empty', 'x.json'), undefined);
  assert.equal(positionProblem('syncscope replay: the window is empty', 'x.json'), 'does not start with the file name');
});
