import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPytorchImporter, importPytorch, ImportError } from '../../core/import';
import { createEventScanner } from '../../core/import/scan';
import { callKind, isWait, RELEASED_NONE, str } from '../../core/trace/model';
import { expectedCounts, generateKineto, KERNEL_NAME } from '../../bench/import.generate';

const errorOf = (text: string | Uint8Array, chunk = 7): ImportError => {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  try {
    const imp = createPytorchImporter();
    for (let at = 0; at < bytes.length; at += chunk) imp.push(bytes.subarray(at, at + chunk));
    imp.finish();
  } catch (e) {
    assert.ok(e instanceof ImportError, String(e));
    return e;
  }
  assert.fail('expected an ImportError');
};

test('a 50 MB generated trace through the chunked path in 64 KiB chunks', () => {
  const opts = { steps: 66_000, streams: 3, syncEvery: 10 };
  let progress = 0;
  let reports = 0;
  let total = 0;
  let pushes = 0;
  const imp = createPytorchImporter({
    onProgress: (b) => {
      progress = b;
      reports++;
    },
  });
  for (const piece of generateKineto(opts, 4 << 20)) {
    const bytes = Buffer.from(piece);
    total += bytes.length;
    for (let at = 0; at < bytes.length; at += 65536, pushes++) imp.push(bytes.subarray(at, at + 65536));
  }
  assert.ok(total > 50e6, `${total} bytes`);
  const t = imp.finish();
  const want = expectedCounts(opts);
  assert.equal(progress, total);
  assert.equal(reports, pushes);
  assert.deepEqual(
    t.lanes.map((l) => l.name),
    ['thread 414', 'stream 7', 'stream 8', 'stream 9'],
  );
  let contexts = 0;
  let waits = 0;
  let released = 0;
  for (let i = 0; i < t.calls.count; i++) {
    if (callKind(t, i) === 'context') contexts++;
    else if (isWait(t, i)) {
      waits++;
      if (t.calls.releasedBy[i] >= 0) released++;
      else assert.equal(t.calls.releasedBy[i], RELEASED_NONE);
    }
  }
  assert.deepEqual(
    { contexts, apiCalls: t.calls.count - contexts, ops: t.ops.count, waits },
    {
      contexts: want.contexts,
      apiCalls: want.apiCalls,
      ops: want.ops,
      waits: want.waits,
    },
  );
  // Each copy released its own call; each following stream sync found nothing pending.
  assert.equal(released, want.waits / 2);
  assert.equal(str(t, t.ops.name[0]), KERNEL_NAME);
});

test('HTML-looking and escaped strings are kept verbatim', () => {
  const name = '<script>alert("x")</script> &amp; </b>\\n \u00e9\u2192';
  const t = importPytorch(
    JSON.stringify({
      traceEvents: [
        { ph: 'X', cat: 'user_annotation', name: '<img src=x onerror=alert(1)>', pid: 1, tid: 1, ts: 0, dur: 50 },
        {
          ph: 'X',
          cat: 'cuda_runtime',
          name: 'cudaLaunchKernel',
          pid: 1,
          tid: 1,
          ts: 1,
          dur: 5,
          args: { correlation: 1 },
        },
        { ph: 'X', cat: 'kernel', name, pid: 0, tid: 7, ts: 7, dur: 5, args: { correlation: 1, device: 0, stream: 7 } },
      ],
    }),
  );
  assert.equal(str(t, t.ops.name[0]), name);
  assert.equal(str(t, t.calls.context[1]), '<img src=x onerror=alert(1)>');
});

// Positions below were counted by hand: line 1 is `{"traceEvents":[` (16 bytes and a newline).
test('a truncated file says where it ends and how many events were complete', () => {
  const text = '{"traceEvents":[\n{"ph":"X","cat":"kernel"},\n{"ph":"X","na';
  const e = errorOf(text);
  assert.equal(
    e.message,
    '3:14: truncated: the text ends inside the traceEvents array, after 1 complete events; a trace ends with the brackets that close it',
  );
  assert.deepEqual([e.offset, e.line, e.column], [57, 3, 14]);
  assert.equal(
    errorOf('{"traceEvents":[]').message,
    '1:18: truncated: the text ends inside the trace object, after 0 complete events; a trace ends with the brackets that close it',
  );
  assert.equal(
    errorOf('').message,
    'the file is empty or only white space; expected a JSON trace: an object with "traceEvents", or an array of events',
  );
});

test('malformed events give the byte, line and column of the first wrong character', () => {
  // A trailing comma inside the second event: the '}' at line 3, column 18.
  const e = errorOf('{"traceEvents":[\n{"ph":"X"},\n{"ph":"X","ts":1,},\n{"ph":"X"}]}');
  assert.deepEqual([e.offset, e.line, e.column], [46, 3, 18]);
  assert.equal(
    e.message,
    '3:18: malformed trace event #1: property name expected; a trace event is a strict JSON object',
  );
  // Multi-byte characters before the error count in bytes: "é→" is 5 bytes, 2 characters.
  const u = errorOf('{"traceEvents":[{"name":"é→","ts":01}]}', 3);
  assert.deepEqual([u.offset, u.line, u.column], [38, 1, 39]);
  // Two events without a comma between them.
  assert.equal(errorOf('[{"a":1}\n {"b":2}]').message, "2:2: unexpected text after a trace event; expected ',' or ']'");
  assert.equal(
    errorOf('{"traceEvents":[{"a":1},]}').message,
    "1:25: unexpected text in the events array; expected a trace event object '{...}'",
  );
  // Outside the events: the root is checked once the file has ended.
  assert.equal(
    errorOf('{"traceEvents":[{"a":1}],\n"x": tru}').message,
    '2:6: malformed trace: unexpected character; a trace is strict JSON',
  );
  assert.equal(
    errorOf('{"traceEvents":[]} x').message,
    '1:20: unexpected text after the end of the trace; only white space may follow it',
  );
  assert.equal(
    errorOf('{"other":[1]}').message,
    'no "traceEvents" array; a Chrome or PyTorch trace is an object with "traceEvents": [...], or an array of events',
  );
});

test('the scanner keeps the document around the events and finds the events key only at the root', () => {
  const got: unknown[] = [];
  const s = createEventScanner((list) => got.push(...list));
  const text =
    '{"a":{"traceEvents":[1]},"s":"\\"traceEvents\\"","traceEvents" : [ {"x":"}{]["} , {"y":[{}]} ],"z":[2]}';
  for (const ch of text) s.push(ch);
  assert.deepEqual(s.finish(), { a: { traceEvents: [1] }, s: '"traceEvents"', traceEvents: [], z: [2] });
  assert.deepEqual(got, [{ x: '}{][' }, { y: [{}] }]);
  assert.equal(s.events, 2);
});
