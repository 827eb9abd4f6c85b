// The scanner's bounds and positions under hostile input: cost linear in the file however large one
// event is, a size cap on an event and on the text around the events, and lines and columns that
// stay right whatever the strings hold and wherever the chunks are cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPytorchImporter, ImportError } from '../../core/import';
import { MAX_EVENT_BYTES } from '../../core/import/scan';

const bytesOf = (text: string) => new TextEncoder().encode(text);

function errorIn(bytes: Uint8Array, chunk: number): ImportError {
  try {
    const imp = createPytorchImporter();
    for (let at = 0; at < bytes.length; at += chunk) imp.push(bytes.subarray(at, at + chunk));
    imp.finish();
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

test('raw newlines in strings count as lines, in events and around them, in any chunking', () => {
  // Each text has one fault; its line and column were read off the text by hand.
  const cases: [string, number, number][] = [
    // A raw newline in a string is not JSON: the string that holds it begins at line 2, column 9.
    ['{"traceEvents":[\n{"name":"a\nb\nc\nd","ts":1}]}', 2, 9],
    // Escaped newlines are two characters on one line; the fault (the digit after a leading zero) is on line 2.
    ['{"traceEvents":[\n{"name":"a\\nb\\nc","ts":01}]}', 2, 25],
    // Newlines in a root string before the events: the fault (a trailing comma) is on line 5.
    ['{"a":"x\ny\nz",\n"traceEvents":[\n{"ts":1,}]}', 5, 9],
    // Truncated after strings that hold newlines: the text ends after the `b` of line 6.
    ['{"traceEvents":[\n{"name":"a\\n\\n"},\n{"name":"\n\n\nb', 6, 2],
  ];
  for (const [text, line, column] of cases)
    for (const chunk of [1 << 30, 64, 7, 3, 2, 1]) {
      const e = errorIn(bytesOf(text), chunk);
      assert.deepEqual([e.line, e.column], [line, column], `${JSON.stringify(text)} in ${chunk}-byte chunks`);
      assert.deepEqual([e.line, e.column], lineColumn(text, e.offset!));
      assert.match(e.message, new RegExp(`^${line}:${column}: .+; .+`));
    }
});

test('a truncated file names its last line and column, with long strings cut between chunks', () => {
  const event = (i: number) => `{"ph":"X","cat":"cpu_op","name":"${'x'.repeat(i % 97)}\\"\\\\","ts":${i},"dur":1}`;
  const text = '{"traceEvents":[\n' + Array.from({ length: 1300 }, (_, i) => event(i)).join(',\n');
  // The last event is cut inside a string that holds raw newlines: they are lines too.
  const cut = text.slice(0, text.length - 20) + '",\n{"name":"' + 'ab\n'.repeat(600) + 'c';
  const [line, column] = lineColumn(cut, cut.length);
  assert.deepEqual([line, column], [1902, 2]);
  for (const chunk of [1 << 30, 65536, 4099, 61, 5]) {
    const e = errorIn(bytesOf(cut), chunk);
    assert.deepEqual([e.offset, e.line, e.column], [cut.length, line, column], `${chunk}-byte chunks`);
  }
});

test('a newline inside events parsed as one run places what follows it', () => {
  // Events of 20,051 bytes, each with one newline just before its closing brace. In 64 KiB chunks
  // the first three are parsed as runs, and the fourth, cut by the chunk's end, has its newline
  // in the next chunk: the last newline before the cut at 70,000 is the third event's, at 60,169.
  const event = (i: number) => `{"ph":"X","cat":"cpu_op","name":"${'x'.repeat(20_000)}","ts":${i},"dur":1\n}`;
  const text = '{"traceEvents":[' + Array.from({ length: 8 }, (_, i) => event(i)).join(',');
  const cut = text.slice(0, 70_000);
  assert.deepEqual(lineColumn(cut, cut.length), [4, 9831]);
  for (const chunk of [1 << 30, 65536, 7]) {
    const e = errorIn(bytesOf(cut), chunk);
    assert.deepEqual([e.offset, e.line, e.column], [70_000, 4, 9831], `${chunk}-byte chunks`);
  }
});

test('one large event in small chunks costs time linear in its size', () => {
  // 48 MiB of string in 16 KiB chunks: joining the event on every chunk would copy terabytes.
  const chunk = new Uint8Array(16 << 10).fill(0x61);
  const imp = createPytorchImporter();
  imp.push('{"traceEvents":[{"ph":"X","cat":"cpu_op","ts":1,"dur":1,"name":"');
  const t0 = performance.now();
  for (let i = 0; i < 3 * 1024; i++) {
    imp.push(chunk);
    assert.ok(performance.now() - t0 < 10_000, `still reading the event after ${i} chunks`);
  }
  imp.push('"}]}');
  const t = imp.finish();
  assert.equal(t.calls.count, 1);
  assert.ok(performance.now() - t0 < 10_000);
});

test(`an event over ${MAX_EVENT_BYTES >> 20} MiB stops with its number and where it began`, () => {
  const head = '{"traceEvents":[\n{"ph":"X"},\n  {"name":"';
  const fill = new Uint8Array(1 << 20).fill(0x20);
  for (const whole of [false, true]) {
    const imp = createPytorchImporter();
    let error: unknown;
    try {
      if (whole) {
        const all = new Uint8Array(head.length + MAX_EVENT_BYTES + 10).fill(0x20);
        all.set(bytesOf(head));
        all.set(bytesOf('"}]}'), all.length - 4);
        imp.push(all);
      } else {
        imp.push(head);
        for (let i = 0; i <= MAX_EVENT_BYTES >> 20; i++) imp.push(fill);
      }
      imp.finish();
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof ImportError, String(error));
    assert.equal(
      error.message,
      '3:3: trace event #1 is larger than 64 MiB; a trace event must be smaller than 64 MiB',
      whole ? 'one chunk' : 'in chunks',
    );
  }
});

test('the text around the events is capped as well', () => {
  const imp = createPytorchImporter();
  imp.push('{"traceEvents":[],\n"other":"');
  const fill = new Uint8Array(1 << 20).fill(0x61);
  assert.throws(
    () => {
      for (let i = 0; i <= MAX_EVENT_BYTES >> 20; i++) imp.push(fill);
    },
    (e: Error) =>
      e instanceof ImportError &&
      /^\d+:\d+: the text around the traceEvents array is larger than 64 MiB; /.test(e.message),
  );
});
