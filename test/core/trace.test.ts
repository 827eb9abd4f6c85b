import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TraceBuilder,
  parseTrace,
  traceToJson,
  TraceFormatError,
  RELEASED_UNKNOWN,
  callKind,
  str,
} from '../../core/trace';

function sample() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const side = b.lane({ kind: 'stream', name: 'side', device: 0, nonBlocking: true, priority: 0 });
  const launch = b.call({
    lane: host,
    kind: 'launch',
    name: 'cudaLaunchKernel',
    begin: 0,
    end: 3500,
    stream: side,
    line: 4,
    column: 5,
  });
  const k = b.op({
    lane: side,
    kind: 'kernel',
    name: '<b>produce</b>',
    start: 5000,
    end: 205000,
    call: launch,
    grid: 132,
  });
  b.access(k, 'x', true);
  const sync = b.call({
    lane: host,
    kind: 'streamSync',
    name: 'cudaStreamSynchronize',
    begin: 4000,
    end: 208500,
    stream: side,
    blockedNs: 204500,
    releasedBy: k,
    unblockNs: 3500,
  });
  b.call({
    lane: host,
    kind: 'eventSync',
    name: 'cudaEventSynchronize',
    begin: 209000,
    end: 209100,
    event: 'e',
    releasedBy: RELEASED_UNKNOWN,
  });
  b.edge('launch', launch, k);
  b.edge('release', k, sync);
  return b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 });
}

test('trace round-trips through JSON with every field', () => {
  const t = sample();
  const back = parseTrace(traceToJson(t));
  assert.equal(back.calls.count, 3);
  assert.equal(back.ops.count, 1);
  assert.equal(str(back, back.ops.name[0]), '<b>produce</b>');
  assert.equal(back.calls.releasedBy[1], 0);
  assert.equal(back.calls.unblockNs[1], 3500);
  assert.equal(back.calls.releasedBy[2], RELEASED_UNKNOWN);
  assert.equal(callKind(back, 1), 'streamSync');
  assert.equal(back.calls.line[0], 4);
  assert.equal(back.accesses.count, 1);
  assert.equal(str(back, back.accesses.buffer[0]), 'x');
  assert.deepEqual([...back.edges.kind], [...t.edges.kind]);
  assert.equal(traceToJson(back), traceToJson(t));
});

test('loading rejects bad references with the exact path', () => {
  const j = JSON.parse(traceToJson(sample()));
  j.ops[0].lane = 9;
  assert.throws(
    () => parseTrace(JSON.stringify(j)),
    (e: Error) =>
      e instanceof TraceFormatError &&
      e.path === '$.ops[0].lane' &&
      /^1:\d+: \$\.ops\[0\]\.lane: no lane 9; expected a lane id from 0 to 1$/.test(e.message),
  );
  assert.throws(() => parseTrace('{"format":"other"}'), /\$\.format: got "other"; expected "syncscope-trace"/);
  assert.throws(() => parseTrace('{"format":'), /\$: not valid JSON/);
});

test('a saved trace validates against the shipped JSON Schema', async () => {
  const { readFileSync } = await import('node:fs');
  const { validate } = await import('../helpers/json-schema');
  const { repoPath } = await import('../helpers/paths');
  const schema = JSON.parse(readFileSync(repoPath('media/schema/trace.schema.json'), 'utf8'));
  const json = JSON.parse(traceToJson(sample()));
  assert.deepEqual(validate(json, schema), []);
  json.calls[0].kind = 'sleep';
  assert.deepEqual(validate(json, schema), ['$.calls[0].kind: "sleep" not in enum']);
});

test('each row is written as its JSON, every field in order, strings escaped as JSON escapes them', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const copies = b.lane({ kind: 'stream', name: 'copies', device: 0 });
  b.sites.push({ frame: { file: 'train.py', line: 3, function: 'step' }, precision: 'line', stack: [] });
  b.call({
    lane: host,
    kind: 'query',
    name: 'cudaEventQuery',
    begin: 10,
    end: 20.5,
    stream: copies,
    event: 'e"1',
    event2: 'e\\2',
    blockedNs: 3,
    releasedBy: 0,
    unblockNs: 1.25,
    answer: 'notReady',
    status: 'cudaErrorNotReady',
    value: 0.5,
    bytes: 4096,
    step: 7,
    line: 3,
    column: 9,
    context: 'aten::mm\n',
    depth: 2,
    device: 1,
    how: 'deduced',
    site: 0,
  });
  b.call({ lane: host, kind: 'eventSync', begin: 30, end: 40, releasedBy: RELEASED_UNKNOWN });
  const op = b.op({
    lane: copies,
    kind: 'memcpy',
    name: 'Memcpy \u0001 ü \ud800',
    start: 12,
    end: 18,
    call: 0,
    grid: 2,
    block: 256,
    bytes: 4096,
    copy: 'DtoH',
    hostMemory: 'pinned',
    event: 'ev',
    truthStart: 11,
    truthEnd: 19,
  });
  b.access(op, 'a', false);
  b.access(op, 'b', true);
  b.edge('launch', 0, op);
  const t = b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 });
  const lines = traceToJson(t).split('\n');
  const row = (start: string) => lines.slice(lines.indexOf(start) + 1);
  assert.deepEqual(row('"calls":[').slice(0, 2), [
    String.raw`{"id":0,"lane":0,"kind":"query","name":"cudaEventQuery","begin":10,"end":20.5,"stream":1,"event":"e\"1","event2":"e\\2","blockedNs":3,"releasedBy":[0],"unblockLatencyNs":1.25,"answer":"notReady","status":"cudaErrorNotReady","valueMs":0.5,"bytes":4096,"step":7,"source":{"line":3,"column":9},"context":"aten::mm\n","depth":2,"device":1,"how":"deduced","site":0},`,
    '{"id":1,"lane":0,"kind":"eventSync","name":"","begin":30,"end":40,"releasedBy":null}],',
  ]);
  assert.equal(
    row('"ops":[')[0],
    String.raw`{"id":0,"lane":1,"kind":"memcpy","name":"Memcpy \u0001 ü \ud800","start":12,"end":18,"call":0,"grid":2,"block":256,"bytes":4096,"copy":"DtoH","hostMemory":"pinned","event":"ev","truth":[11,19],"reads":["a"],"writes":["b"]}],`,
  );
  assert.equal(row('"edges":[')[0], '{"kind":"launch","from":0,"to":0}],');
  assert.equal(traceToJson(parseTrace(traceToJson(t))), traceToJson(t));
});
