// Source lines are integers from 1 to 2^31 - 1 (a frame's line may be 0, unknown) whichever codec
// reads the trace, and the shipped schemas say so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { traceFromArrow } from '../../core/trace/arrow-read';
import { traceArrowChunks } from '../../core/trace/arrow-write';
import { parseTrace, traceToJson } from '../../core/trace/json';
import { isFrameLine, isSourceLine, TraceBuilder, type Trace } from '../../core/trace/model';
import { validate } from '../helpers/json-schema';
import { repoPath } from '../helpers/paths';

const LINES = [
  [-5, false],
  [0, false],
  [1, true],
  [2 ** 31 - 1, true],
  [2 ** 31, false],
  [2 ** 53 + 2, false],
  [1e300, false],
  [1.5, false],
  [NaN, false],
] as const;

test('a source line is an integer from 1 to 2^31 - 1; a frame line may also be 0', () => {
  for (const [line, ok] of LINES) {
    assert.equal(isSourceLine(line), ok, `${line}`);
    assert.equal(isFrameLine(line), ok || line === 0, `${line}`);
  }
  assert.equal(isSourceLine('12'), false);
});

/** One call at a site whose frame has line `line`. */
function sited(line: number): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  b.call({ lane: host, kind: 'deviceSync', begin: 0, end: 10, site: 0 });
  b.sites.push({ frame: { file: 'train.py', line, function: 'loop' }, precision: 'line', stack: [] });
  return b.finish({ source: 'pytorch', clock: 'test', alignmentErrorNs: 0 });
}

const arrowOf = (t: Trace): Uint8Array => Buffer.concat([...traceArrowChunks(t)]);

test('JSON and Arrow both take a site line of 0 and 2^31 - 1, and refuse -5, 2^31 and 1e300', () => {
  for (const [line, ok] of LINES) {
    if (Number.isNaN(line)) continue; // JSON has no NaN
    const json = traceToJson(sited(line));
    const arrow = arrowOf(sited(line));
    if (ok || line === 0) {
      assert.equal(parseTrace(json, 't.syncscope.json').sites[0].frame.line, line);
      assert.equal(traceFromArrow(arrow, 't.syncscope').sites[0].frame.line, line);
      continue;
    }
    assert.throws(
      () => parseTrace(json, 't.syncscope.json'),
      /\$\.sites\[0\]\.frame\.line: got .*; expected an integer from 0 to 2147483647/,
      `${line}`,
    );
    // The same rule in the same words, whichever codec read it.
    assert.throws(
      () => traceFromArrow(arrow, 't.syncscope'),
      /t\.syncscope: \$\.sites\[0\]\.frame\.line: got .*; expected an integer from 0 to 2147483647$/,
      `${line}`,
    );
  }
});

test('the shipped schemas bound lines and columns by 2^31 - 1', () => {
  const report = JSON.parse(readFileSync(repoPath('media/schema/report.schema.json'), 'utf8'));
  const trace = JSON.parse(readFileSync(repoPath('media/schema/trace.schema.json'), 'utf8'));
  const site = (line: number) => ({ file: 'train.py', line, function: 'loop', precision: 'line' });
  assert.deepEqual(validate(site(2 ** 31 - 1), report.definitions.site), []);
  assert.deepEqual(validate(site(2 ** 31), report.definitions.site), ['$.line: 2147483648 > maximum 2147483647']);
  assert.deepEqual(validate({ line: 1e300, column: 1 }, report.definitions.source), [
    '$.line: 1e+300 > maximum 2147483647',
  ]);
  assert.deepEqual(validate({ file: 'a.py', line: 2 ** 31, function: 'f' }, trace.definitions.frame), [
    '$.line: 2147483648 > maximum 2147483647',
  ]);
});
