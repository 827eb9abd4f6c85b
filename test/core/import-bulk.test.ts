import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createPytorchImporter, ImportError } from '../../core/import';
import { createEventScanner } from '../../core/import/scan';
import { traceToJson } from '../../core/trace/json';
import { generateKineto } from '../../bench/import.generate';
import { repoPath } from '../helpers/paths';

// A push of 64 KiB or more goes through the fast path (one JSON.parse per chunk, cut at a guessed
// event end); smaller pushes are read byte by byte. The two must agree on everything.
const SMALL = 4000;
const bytesOf = (text: string) => new TextEncoder().encode(text);

function importIn(bytes: Uint8Array, chunk: number) {
  const imp = createPytorchImporter();
  for (let at = 0; at < bytes.length; at += chunk) imp.push(bytes.subarray(at, at + chunk));
  return imp.finish();
}

function errorIn(bytes: Uint8Array, chunk: number): ImportError {
  try {
    importIn(bytes, chunk);
  } catch (e) {
    assert.ok(e instanceof ImportError, String(e));
    return e;
  }
  assert.fail('expected an ImportError');
}

/** 1-based line and byte column of an offset in ASCII text. */
const lineColumn = (text: string, at: number) => [
  text.slice(0, at).split('\n').length,
  at - text.lastIndexOf('\n', at - 1),
];

const generated = [...generateKineto({ steps: 3000, streams: 3, syncEvery: 7 })].join('');

test('whole chunks and small chunks give the same trace: a generated trace and a recorded one', () => {
  const gen = bytesOf(generated);
  assert.ok(gen.length > 2e6);
  const whole = traceToJson(importIn(gen, 1 << 30));
  assert.equal(whole, traceToJson(importIn(gen, SMALL)));
  assert.equal(whole, traceToJson(importIn(gen, 1 << 20)));
  assert.equal(JSON.parse(whole).ops.length, 3000 + Math.floor(3000 / 7));
  const recorded = readFileSync(repoPath('test/fixtures/torch/sync_overlap.json'));
  assert.ok(recorded.length > 1 << 17);
  assert.equal(traceToJson(importIn(recorded, 1 << 30)), traceToJson(importIn(recorded, SMALL)));
});

test('a wrong guess at where the events end is read again byte by byte', () => {
  // Inside the last complete event, `},{` in an array of objects looks like the end of an event.
  const filler = Array.from({ length: 2000 }, (_, i) => `{"ph":"X","cat":"cpu_op","name":"op${i}","ts":${i},"dur":1}`);
  const tail = '{"ph":"X","cat":"cpu_op","name":"last","ts":9999,"dur":1,"args":{"list":[{"a":"},{"},{"b":[1]}]}}';
  const text = `{"traceEvents":[${filler.join(',')},${tail}]}`;
  const cut = text.indexOf('{"b"'); // the first push ends inside the last event
  const got: unknown[] = [];
  const decoded: string[] = [];
  const s = createEventScanner(
    (list) => got.push(...list),
    undefined,
    (bytes) => {
      decoded.push(new TextDecoder().decode(bytes));
      return decoded[decoded.length - 1];
    },
  );
  const bytes = bytesOf(text);
  s.push(bytes.subarray(0, cut));
  // The guess that ends at the `}` of the string "},{" fails to parse; the byte scanner then reads
  // the same events again, up to the last whole one.
  const wrong = decoded.findIndex((d) => d.endsWith('{"a":"}'));
  assert.ok(wrong >= 0);
  assert.equal(decoded.length, wrong + 2);
  assert.ok(decoded[wrong + 1].startsWith(decoded[wrong].slice(0, 60)));
  assert.ok(decoded[wrong + 1].endsWith('"name":"op1999","ts":1999,"dur":1}'));
  s.push(bytes.subarray(cut));
  s.finish();
  assert.deepEqual(got, JSON.parse(text).traceEvents);
});

test('a malformed event deep in a large chunk is reported at the same byte, line and column as in small chunks', () => {
  const marks = [...generated.matchAll(/"dur": 9,/g)];
  const at = marks[1500].index! + '"dur": 9,'.length; // a second comma here: a property name was expected
  const text = generated.slice(0, at) + ',' + generated.slice(at);
  const event = text.slice(0, at).split('"ph": "X"').length - 2;
  const [line, column] = lineColumn(text, at);
  const whole = errorIn(bytesOf(text), 1 << 30);
  assert.deepEqual([whole.offset, whole.line, whole.column], [at, line, column]);
  assert.equal(
    whole.message,
    `${line}:${column}: malformed trace event #${event}: property name expected; a trace event is a strict JSON object`,
  );
  assert.equal(errorIn(bytesOf(text), SMALL).message, whole.message);
});

test('an event that is not an object, deep in a large chunk, is reported where it is', () => {
  const at = generated.indexOf('  {', generated.length >> 1);
  const text = generated.slice(0, at) + '  7,\n' + generated.slice(at);
  const [line, column] = lineColumn(text, at + 2);
  const e = errorIn(bytesOf(text), 1 << 30);
  assert.equal(
    e.message,
    `${line}:${column}: unexpected text in the events array; expected a trace event object '{...}'`,
  );
  assert.equal(errorIn(bytesOf(text), SMALL).message, e.message);
});

test('errors at the end of the events array count lines up to the wrong byte', () => {
  // Whole and in 7-byte chunks: the trailing comma inside the second event is line 3, column 18.
  const text = '{"traceEvents":[\n{"ph":"X"},\n{"ph":"X","ts":1,},\n{"ph":"X"}]}';
  for (const chunk of [1 << 30, 7]) {
    const e = errorIn(bytesOf(text), chunk);
    assert.deepEqual([e.offset, e.line, e.column], [46, 3, 18]);
  }
});

test("a bare array of events (Chrome's JSON Array Format) loads, whole and in small chunks", () => {
  const events = generated.slice(
    generated.indexOf('[', generated.indexOf('"traceEvents"')),
    generated.lastIndexOf(']') + 1,
  );
  const want = traceToJson(importIn(bytesOf(generated), SMALL));
  for (const chunk of [1 << 30, SMALL]) {
    const t = importIn(bytesOf(`\n${events}\n`), chunk);
    assert.equal(t.ops.count, 3000 + Math.floor(3000 / 7));
    // The same calls, ops and edges; only what the root object held (device, trace name) is missing.
    for (const key of ['calls', 'ops', 'edges'])
      assert.deepEqual(JSON.parse(traceToJson(t))[key], JSON.parse(want)[key]);
  }
});
