// Hand-edited saved traces: each fault fails at load, naming the file, the line and the column of
// the value at fault, and what would be valid. Both readers (whole text and chunks) agree. A chunked
// reader that keeps no document (a file that can be read again) asks for a second reading instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { analyze } from '../../core/analyze';
import { createSavedTraceReader, ReadAgain } from '../../core/import';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { parseTrace, traceToJson } from '../../core/trace/json';
import { importTraceBytes, loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const FILE = 't.syncscope.json';

// One row per line, so that a fault's line and column can be read off by eye.
const base = [
  '{"format":"syncscope-trace","version":1,',
  '"meta":{"source":"simulator","clock":"simulated","alignmentErrorNs":0},',
  '"lanes":[{"id":0,"kind":"thread","name":"main","device":0},',
  '{"id":1,"kind":"stream","name":"s1","device":0}],',
  '"calls":[',
  '{"id":0,"lane":0,"kind":"launch","name":"k","begin":0,"end":10,"stream":1},',
  '{"id":1,"lane":0,"kind":"streamSync","begin":10,"end":50,"stream":1,"blockedNs":30,"releasedBy":[0]}],',
  '"ops":[',
  '{"id":0,"lane":1,"kind":"kernel","name":"k","start":10,"end":40,"call":0}],',
  '"edges":[{"kind":"launch","from":0,"to":0},',
  '{"kind":"release","from":0,"to":1}],',
  '"findings":[{"rule":"r","kind":"r","severity":"info","message":"m","calls":[1],"ops":[0]}]}',
].join('\n');

function chunked(text: string, size: number, keepDocument = true) {
  const bytes = new TextEncoder().encode(text);
  const r = createSavedTraceReader({ file: FILE, keepDocument });
  for (let at = 0; at < bytes.length; at += size) r.push(bytes.subarray(at, at + size));
  return r.finish();
}

const messageOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail('expected an error');
};

/** The message both readers give for `text`, checked to be the same. */
function failure(text: string): string {
  const whole = messageOf(() => parseTrace(text, FILE));
  for (const size of [1 << 20, 13]) {
    assert.equal(
      messageOf(() => chunked(text, size)),
      whole,
    );
    assert.throws(() => chunked(text, size, false), ReadAgain);
  }
  return whole;
}

function edited(from: string, to: string): string {
  assert.ok(base.includes(from), from);
  return base.replace(from, to);
}

test('the hand-written trace loads', () => {
  const t = parseTrace(base, FILE);
  assert.deepEqual([t.calls.count, t.ops.count, t.edges.count, t.findings.length], [2, 1, 2, 1]);
  assert.equal(traceToJson(chunked(base, 7)), traceToJson(t));
  assert.equal(traceToJson(chunked(base, 7, false)), traceToJson(t));
});

test('a finding that names a call that does not exist', () => {
  assert.equal(
    failure(edited('"calls":[1]', '"calls":[1,7]')),
    't.syncscope.json:12:79: $.findings[0].calls[1]: no call 7; expected a call id from 0 to 1',
  );
});

test('an edge to an op that does not exist', () => {
  assert.equal(
    failure(edited('"launch","from":0,"to":0', '"launch","from":0,"to":3')),
    't.syncscope.json:10:41: $.edges[0].to: no op 3; expected an op id from 0 to 0',
  );
});

test('an op on a lane that does not exist, or on a host thread', () => {
  assert.equal(
    failure(edited('"id":0,"lane":1,', '"id":0,"lane":5,')),
    't.syncscope.json:9:16: $.ops[0].lane: no lane 5; expected a lane id from 0 to 1',
  );
  assert.equal(
    failure(edited('"id":0,"lane":1,', '"id":0,"lane":0,')),
    't.syncscope.json:9:16: $.ops[0].lane: lane 0 is a thread; expected a stream or copyEngine lane',
  );
});

test('a wait released by an op that does not exist', () => {
  assert.equal(
    failure(edited('"releasedBy":[0]', '"releasedBy":[4]')),
    't.syncscope.json:7:98: $.calls[1].releasedBy[0]: no op 4; expected an op id from 0 to 0',
  );
});

test('meta of the wrong shape', () => {
  assert.equal(
    failure(edited('"clock":"simulated"', '"clock":{"name":"simulated"}')),
    't.syncscope.json:2:38: $.meta.clock: got an object; expected a string',
  );
  assert.equal(
    failure(edited('"alignmentErrorNs":0}', '"alignmentErrorNs":0,"devices":{"0":"H200"}}')),
    't.syncscope.json:2:81: $.meta.devices: got an object; expected an array',
  );
});

test('a negative time', () => {
  assert.equal(
    failure(edited('"begin":0,', '"begin":-5,')),
    't.syncscope.json:6:53: $.calls[0].begin: -5 is negative; expected 0 or more',
  );
});

test('times that are not finite, out of order, or blocked longer than the call', () => {
  assert.equal(
    failure(edited('"start":10,', '"start":1e400,')),
    't.syncscope.json:9:53: $.ops[0].start: got Infinity; expected a finite number',
  );
  // Finite but past what a double holds exactly: the metrics over it would come out as NaN.
  assert.equal(
    failure(edited('"end":40,', '"end":1.7976931348623157e308,')),
    't.syncscope.json:9:62: $.ops[0].end: 1.7976931348623157e+308 is too large; expected at most 2^53 - 1',
  );
  assert.equal(
    failure(edited('"end":40,', '"end":9,')),
    't.syncscope.json:9:62: $.ops[0].end: end 9 is before start 10; expected end >= start',
  );
  assert.equal(
    failure(edited('"blockedNs":30', '"blockedNs":41')),
    't.syncscope.json:7:81: $.calls[1].blockedNs: 41 is longer than the call (40); expected at most end - begin',
  );
});

test('a root key given twice', () => {
  assert.equal(
    failure(edited('"ops":[', '"calls":[],\n"ops":[')),
    't.syncscope.json:8:1: $.calls: "calls" is given twice; expected each key once',
  );
});

test('nesting past the limit fails where the trace keeps the value, at the bracket that passes it', () => {
  const deep = '['.repeat(200) + ']'.repeat(200);
  // Root, meta, then the 99th bracket is level 101.
  assert.equal(
    failure(edited('"alignmentErrorNs":0},', `"alignmentErrorNs":0,"unused":${deep}},`)),
    't.syncscope.json:2:178: $: nested deeper than 100 levels; expected at most 100',
  );
  // A key inside meta named like a table of rows is no table of rows.
  assert.equal(
    failure(edited('"alignmentErrorNs":0},', `"alignmentErrorNs":0,"ops":${deep}},`)),
    't.syncscope.json:2:175: $: nested deeper than 100 levels; expected at most 100',
  );
  // Root, findings, the finding, then the 98th bracket.
  assert.equal(
    failure(edited('"message":"m",', `"message":"m","unused":${deep},`)),
    't.syncscope.json:12:174: $: nested deeper than 100 levels; expected at most 100',
  );
});

test("a row's field that no column reads is never walked: it loads however deep it nests", () => {
  const deep = '['.repeat(10_000) + ']'.repeat(10_000);
  const text = edited('"name":"k","start"', `"name":"k","unused":${deep},"start"`);
  const expected = traceToJson(parseTrace(base, FILE));
  assert.equal(traceToJson(parseTrace(text, FILE)), expected);
  for (const size of [1 << 20, 13]) {
    assert.equal(traceToJson(chunked(text, size)), expected);
    assert.equal(traceToJson(chunked(text, size, false)), expected);
  }
});

test('every trace the simulator writes for the examples loads again, findings included', () => {
  const dir = repoPath('examples');
  const files = readdirSync(dir).filter((f) => f.endsWith('.scenario.json'));
  assert.ok(files.length > 10);
  for (const f of files) {
    const t = simulate(compileScenario(readFileSync(`${dir}/${f}`, 'utf8'), f));
    t.findings = analyze(t).findings;
    const text = traceToJson(t);
    assert.equal(traceToJson(parseTrace(text, f)), text, f);
    assert.equal(traceToJson(chunked(text, 4096)), text, f);
  }
});

test('a call site is read, and a call naming a site that does not exist fails', () => {
  const sites = '"sites":[{"frame":{"file":"/w/train.py","line":42,"function":"loop"},"precision":"line","stack":[]}],';
  const withSite = edited('"calls":[\n', `${sites}\n"calls":[\n`).replace(
    '"blockedNs":30,',
    '"blockedNs":30,"site":0,',
  );
  const t = parseTrace(withSite, FILE);
  assert.deepEqual(t.sites[t.calls.site[1] - 1]?.frame, { file: '/w/train.py', line: 42, function: 'loop' });
  assert.equal(t.calls.site[0], 0);
  assert.equal(
    failure(withSite.replace('"site":0,', '"site":2,')),
    't.syncscope.json:8:91: $.calls[1].site: no site 2; expected a site id from 0 to 0',
  );
});

// ---- Call sites: a call's `site` and the top-level `sites` ------------------------------------

const withSites = edited(
  '"findings":[',
  '"sites":[{"frame":{"file":"train.py","line":42,"function":"loop"},"precision":"line",\n' +
    '"stack":[{"file":"torch/cuda/streams.py","line":108,"function":"synchronize"},{"file":"train.py","line":42,"function":"loop"}]}],\n' +
    '"findings":[',
).replace('"blockedNs":30,', '"blockedNs":30,"site":0,');

test('a call site survives saving and loading', () => {
  const t = parseTrace(withSites, FILE);
  assert.equal(t.calls.site[1], 1);
  assert.deepEqual(t.sites[0].frame, { file: 'train.py', line: 42, function: 'loop' });
  assert.equal(t.sites[0].stack.length, 2);
  const again = parseTrace(traceToJson(t), FILE);
  assert.deepEqual(again.sites, t.sites);
  assert.equal(again.calls.site[1], 1);
  assert.equal(again.calls.site[0], 0);
});

test('a call whose site does not exist, and a site frame without a valid line', () => {
  assert.equal(
    failure(withSites.replace('"site":0,', '"site":3,')),
    't.syncscope.json:7:91: $.calls[1].site: no site 3; expected a site id from 0 to 0',
  );
  assert.equal(
    failure(withSites.replace('"line":42,"function":"loop"},"precision"', '"line":-1,"function":"loop"},"precision"')),
    't.syncscope.json:12:45: $.sites[0].frame.line: got -1; expected an integer from 0 to 2147483647',
  );
  assert.equal(
    failure(withSites.replace('"precision":"line"', '"precision":"column"')),
    't.syncscope.json:12:79: $.sites[0].precision: got "column"; expected one of line, function',
  );
});

test('a scenario position is 1-based: column 0 (or -0) is refused where a report would carry it', () => {
  const at = (column: string) => edited('"blockedNs":30,', `"blockedNs":30,"source":{"line":10,"column":${column}},`);
  assert.equal(parseTrace(at('7'), FILE).calls.column[1], 7);
  assert.equal(
    failure(at('-0')),
    't.syncscope.json:7:113: $.calls[1].source.column: got 0; expected an integer from 1 to 2147483647',
  );
});

// The chunked reader checks a row's references once every table is read: these fail there too.
test('references checked once every table is read: a later op of a release, a stream that is a thread', () => {
  assert.equal(
    failure(edited('"releasedBy":[0]', '"releasedBy":[0,2]')),
    't.syncscope.json:7:100: $.calls[1].releasedBy[1]: no op 2; expected an op id from 0 to 0',
  );
  assert.equal(
    failure(edited('"end":10,"stream":1}', '"end":10,"stream":0}')),
    't.syncscope.json:6:73: $.calls[0].stream: lane 0 is a thread; expected a stream lane',
  );
  assert.equal(
    failure(edited('"end":40,"call":0}', '"end":40,"call":2}')),
    't.syncscope.json:9:72: $.ops[0].call: no call 2; expected a call id from 0 to 1',
  );
  assert.equal(
    failure(edited('{"kind":"release","from":0,"to":1}', '{"kind":"release","from":0,"to":2}')),
    't.syncscope.json:11:33: $.edges[1].to: no call 2; expected a call id from 0 to 1',
  );
});

test("rows in another order than the writer's load as the same trace", () => {
  const opsFirst = edited(
    '"calls":[',
    '"ops":[{"id":0,"lane":1,"kind":"kernel","name":"k","start":10,"end":40,"call":0}],\n"calls":[',
  ).replace('"ops":[\n{"id":0,"lane":1,"kind":"kernel","name":"k","start":10,"end":40,"call":0}],\n', '');
  assert.equal(traceToJson(chunked(opsFirst, 7)), traceToJson(parseTrace(base, FILE)));
});

test('a file or bytes, plain or gzipped, that fail a check are read again for the place of the fault', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-saved-'));
  mkdirSync(join(dir, 'gz'));
  const faults: [string, string][] = [
    // Found in a row as it streams in.
    [
      edited('"launch","from":0,"to":0', '"launch","from":0,"to":3'),
      't.syncscope.json:10:41: $.edges[0].to: no op 3; expected an op id from 0 to 0',
    ],
    // Found once every table is read.
    [
      edited('"releasedBy":[0]', '"releasedBy":[0,2]'),
      't.syncscope.json:7:100: $.calls[1].releasedBy[1]: no op 2; expected an op id from 0 to 0',
    ],
    // Found in the text around the rows.
    [
      edited('"ops":[', '"calls":[],\n"ops":['),
      't.syncscope.json:8:1: $.calls: "calls" is given twice; expected each key once',
    ],
  ];
  for (const [text, message] of faults) {
    const bytes = Buffer.from(text);
    writeFileSync(join(dir, FILE), bytes);
    writeFileSync(join(dir, 'gz', FILE), gzipSync(bytes));
    await assert.rejects(loadTraceFile(join(dir, FILE)), { name: 'TraceFormatError', message });
    await assert.rejects(loadTraceFile(join(dir, 'gz', FILE)), { name: 'TraceFormatError', message });
    await assert.rejects(importTraceBytes(bytes, FILE), { name: 'TraceFormatError', message });
    await assert.rejects(importTraceBytes(gzipSync(bytes), FILE), { name: 'TraceFormatError', message });
  }
  writeFileSync(join(dir, FILE), base);
  assert.equal(traceToJson(await loadTraceFile(join(dir, FILE))), traceToJson(parseTrace(base, FILE)));
  rmSync(dir, { recursive: true });
});
