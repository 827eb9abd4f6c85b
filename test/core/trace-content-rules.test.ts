// One set of content rules, whichever codec read the trace: the same bad content, written by each
// writer and read back by each reader, fails with the same words. Only the place differs: the JSON
// form gives the line and column and the value's JSON path, a .syncscope file its table, row and
// column (or the JSON path of a value kept as JSON in its metadata). Parquet is written, never read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSavedTraceReader } from '../../core/import';
import { traceFromArrow } from '../../core/trace/arrow-read';
import { traceArrowChunks } from '../../core/trace/arrow-write';
import { parseTrace, traceToJson } from '../../core/trace/json';
import { TraceBuilder, type Trace } from '../../core/trace/model';

/** Two lanes, two calls (a launch and a wait), one kernel, its launch and release edges, a site, a finding. */
function small(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's1', device: 0 });
  b.sites.push({ frame: { file: 'train.py', line: 42, function: 'loop' }, precision: 'line', stack: [] });
  const launch = b.call({ lane: host, kind: 'launch', name: 'k', begin: 0, end: 10, stream: s, site: 0 });
  const wait = b.call({ lane: host, kind: 'streamSync', begin: 10, end: 50, stream: s, blockedNs: 30, releasedBy: 0 });
  const op = b.op({ lane: s, kind: 'kernel', name: 'k', start: 10, end: 40, call: launch });
  b.edge('launch', launch, op);
  b.edge('release', op, wait);
  b.findings.push({ rule: 'r', kind: 'r', severity: 'info', message: 'm', calls: [wait], ops: [op] });
  return b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 });
}

const messageOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return assert.fail('expected an error');
};

/** The message each reader gives for `t`: the JSON text whole and in chunks, and the Arrow file. */
function failures(t: Trace): { json: string; chunked: string; arrow: string } {
  const text = traceToJson(t);
  const chunked = () => {
    const r = createSavedTraceReader({ file: 't.syncscope.json' });
    const bytes = new TextEncoder().encode(text);
    for (let at = 0; at < bytes.length; at += 64) r.push(bytes.subarray(at, at + 64));
    return r.finish();
  };
  return {
    json: messageOf(() => parseTrace(text, 't.syncscope.json')),
    chunked: messageOf(chunked),
    arrow: messageOf(() => traceFromArrow(Buffer.concat([...traceArrowChunks(t)]), 't.syncscope')),
  };
}

/** Each case: what to corrupt, then the JSON place, the Arrow place, and the words both give after them. */
const CASES: [string, (t: Trace) => void, string, string, string][] = [
  // Findings and sites: each codec keeps them as JSON; the Arrow reader once checked less of them.
  [
    'a fix that is an object',
    (t) => ((t.findings[0] as unknown as Record<string, unknown>).fix = { a: 1 }),
    '$.findings[0].fix',
    '$.findings[0].fix',
    'got an object; expected a string',
  ],
  [
    'a source line that is a string',
    (t) => ((t.findings[0] as unknown as Record<string, unknown>).source = { line: 'x', column: 1 }),
    '$.findings[0].source.line',
    '$.findings[0].source.line',
    'got "x"; expected an integer from 1 to 2147483647',
  ],
  [
    'time saved that is not a number',
    (t) => ((t.findings[0] as unknown as Record<string, unknown>).savedNs = 'lots'),
    '$.findings[0].savedNs',
    '$.findings[0].savedNs',
    'got "lots"; expected a finite number',
  ],
  [
    'a finding of an unknown severity',
    (t) => ((t.findings[0] as unknown as Record<string, unknown>).severity = 'fatal'),
    '$.findings[0].severity',
    '$.findings[0].severity',
    'got "fatal"; expected one of error, warning, info',
  ],
  [
    'a finding naming a call that does not exist',
    (t) => (t.findings[0].calls = [7]),
    '$.findings[0].calls[0]',
    '$.findings[0].calls[0]',
    'no call 7; expected a call id from 0 to 1',
  ],
  [
    'a finding nested deeper than any trace is',
    (t) => {
      let deep: unknown[] = [];
      for (let i = 0; i < 120; i++) deep = [deep];
      (t.findings[0] as unknown as Record<string, unknown>).unused = deep;
    },
    '$',
    '$.findings',
    'nested deeper than 100 levels; expected at most 100',
  ],
  [
    'a site whose line is 1e300',
    (t) => (t.sites[0].frame.line = 1e300),
    '$.sites[0].frame.line',
    '$.sites[0].frame.line',
    // The lowest line is another change's to make; both codecs follow it, as the test below shows.
    'got 1e+300; expected an integer from ',
  ],
  [
    'a site whose line is -5',
    (t) => (t.sites[0].frame.line = -5),
    '$.sites[0].frame.line',
    '$.sites[0].frame.line',
    'got -5; expected an integer from ',
  ],
  // The meta and the lanes.
  [
    'a clock that is a number',
    (t) => ((t.meta as unknown as Record<string, unknown>).clock = 5),
    '$.meta.clock',
    '$.meta.clock',
    'got 5; expected a string',
  ],
  [
    'a lane of an unknown kind',
    (t) => ((t.lanes[1] as unknown as Record<string, unknown>).kind = 'banana'),
    '$.lanes[1].kind',
    'lanes row 1, kind',
    'got "banana"; expected one of thread, stream, copyEngine',
  ],
  // Rows: the JSON reader checks them field by field, the Arrow reader column by column.
  [
    'a call on a lane that does not exist',
    (t) => (t.calls.lane[1] = 7),
    '$.calls[1].lane',
    'calls row 1, lane',
    'no lane 7; expected a lane id from 0 to 1',
  ],
  [
    'a call on a stream lane',
    (t) => (t.calls.lane[1] = 1),
    '$.calls[1].lane',
    'calls row 1, lane',
    'lane 1 is a stream; expected a thread lane',
  ],
  [
    'a negative begin',
    (t) => (t.calls.begin[0] = -5),
    '$.calls[0].begin',
    'calls row 0, begin',
    '-5 is negative; expected 0 or more',
  ],
  [
    'blocked longer than the call',
    (t) => (t.calls.blockedNs[1] = 41),
    '$.calls[1].blockedNs',
    'calls row 1, blockedNs',
    '41 is longer than the call (40); expected at most end - begin',
  ],
  [
    'a wait released by an op that does not exist',
    (t) => (t.calls.releasedBy[1] = 4),
    '$.calls[1].releasedBy[0]',
    'calls row 1, releasedBy',
    'no op 4; expected an op id from 0 to 0',
  ],
  [
    'a negative unblock latency',
    (t) => (t.calls.unblockNs[1] = -3),
    '$.calls[1].unblockLatencyNs',
    'calls row 1, unblockNs',
    '-3 is negative; expected 0 or more',
  ],
  [
    'a source line of -5',
    (t) => ((t.calls.line[1] = -5), (t.calls.column[1] = 1)),
    '$.calls[1].source.line',
    'calls row 1, line',
    'got -5; expected an integer from 1 to 2147483647',
  ],
  [
    'a call naming a site that does not exist',
    (t) => (t.calls.site[0] = 3),
    '$.calls[0].site',
    'calls row 0, site',
    'no site 2; expected a site id from 0 to 0',
  ],
  [
    'an op that ends before it starts',
    (t) => (t.ops.end[0] = 9),
    '$.ops[0].end',
    'ops row 0, end',
    'end 9 is before start 10; expected end >= start',
  ],
  [
    'an op start past 2^53',
    (t) => ((t.ops.start[0] = 2 ** 60), (t.ops.end[0] = 2 ** 60)),
    '$.ops[0].start',
    'ops row 0, start',
    '1152921504606847000 is too large; expected at most 2^53 - 1',
  ],
  [
    'an op of a call that does not exist',
    (t) => (t.ops.call[0] = 5),
    '$.ops[0].call',
    'ops row 0, call',
    'no call 5; expected a call id from 0 to 1',
  ],
  [
    'an op measured at one end only',
    (t) => (t.ops.truthStart[0] = 12),
    '$.ops[0].truth',
    'ops row 0, truthStart',
    'got an array; expected [start, end], two finite numbers',
  ],
  [
    'an edge to an op that does not exist',
    (t) => (t.edges.to[0] = 3),
    '$.edges[0].to',
    'edges row 0, to',
    'no op 3; expected an op id from 0 to 0',
  ],
];

test('the hand-made trace reads back whole from every codec', () => {
  const t = small();
  const text = traceToJson(t);
  assert.equal(traceToJson(parseTrace(text, 't.syncscope.json')), text);
  assert.equal(traceToJson(traceFromArrow(Buffer.concat([...traceArrowChunks(t)]), 't.syncscope')), text);
});

for (const [name, corrupt, jsonPlace, arrowPlace, words] of CASES)
  test(`the same words from every codec: ${name}`, () => {
    const t = small();
    corrupt(t);
    const got = failures(t);
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // A case whose words end at "from " leaves the bound out: see the site case above.
    const tail = words.endsWith(' ') ? `${escape(words)}\\d+ to 2147483647` : escape(words);
    assert.match(got.json, new RegExp(`^t\\.syncscope\\.json:\\d+:\\d+: ${escape(jsonPlace)}: ${tail}$`));
    assert.equal(got.chunked, got.json);
    assert.match(got.arrow, new RegExp(`^t\\.syncscope: ${escape(arrowPlace)}: ${tail}$`));
    assert.equal(
      got.arrow.slice(got.arrow.indexOf(arrowPlace) + arrowPlace.length),
      got.json.slice(got.json.indexOf(jsonPlace) + jsonPlace.length),
    );
  });
