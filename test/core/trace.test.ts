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
