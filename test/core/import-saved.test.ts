import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSavedTraceReader } from '../../core/import';
import { parseTrace, traceToJson } from '../../core/trace/json';
import { importPytorch } from '../../core/import';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { expectedCounts, generateKineto } from '../../bench/import.generate';

const opts = { steps: 3000, streams: 3, syncEvery: 7 };
const saved = traceToJson(importPytorch([...generateKineto(opts)].join('')));

function read(text: string, chunk: number) {
  const bytes = new TextEncoder().encode(text);
  const r = createSavedTraceReader();
  for (let at = 0; at < bytes.length; at += chunk) r.push(bytes.subarray(at, at + chunk));
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

test('a saved trace read in chunks is the trace parseTrace reads whole', () => {
  assert.ok(saved.length > 1e6);
  const want = parseTrace(saved);
  const counts = expectedCounts(opts);
  assert.deepEqual([want.calls.count, want.ops.count], [counts.contexts + counts.apiCalls, counts.ops]);
  for (const chunk of [1 << 30, 1 << 16, 999]) assert.equal(traceToJson(read(saved, chunk)), saved);
});

test('a saved trace read in chunks fails with the messages parseTrace gives', () => {
  const j = JSON.parse(saved);
  j.calls[3].lane = 99;
  const badLane = JSON.stringify(j);
  assert.equal(
    messageOf(() => read(badLane, 1 << 30)),
    messageOf(() => parseTrace(badLane)),
  );
  assert.match(
    messageOf(() => read(badLane, 4096)),
    /^1:\d+: \$\.calls\[3\]\.lane: no lane 99; expected a lane id from 0 to 3$/,
  );
  const { edges: _edges, ...noEdges } = JSON.parse(saved);
  assert.equal(
    messageOf(() => read(JSON.stringify(noEdges), 1 << 30)),
    '1:1: $.edges: got nothing; expected an array',
  );
  assert.match(
    messageOf(() => read(JSON.stringify({ ...noEdges, edges: 5 }), 1 << 30)),
    /^1:\d+: \$\.edges: got 5; expected an array$/,
  );
});

test('a saved trace with an empty table after a full one reads (a run of host work and synchronizes has no ops)', () => {
  const t = simulate(
    compileScenario(
      JSON.stringify({ name: 'no ops', steps: [{ hostWork: { us: 5 } }, { deviceSync: true }] }),
      'x.scenario.json',
    ),
  );
  assert.equal(t.ops.count, 0);
  const text = traceToJson(t);
  assert.ok(t.calls.count > 0 && /"ops":\s*\[\s*\]/.test(text), 'calls, then an empty ops array');
  for (const chunk of [1 << 30, 7]) assert.equal(traceToJson(read(text, chunk)), text);
  // A trailing comma is still not an empty array.
  assert.match(
    messageOf(() => read(text.replace(/"ops":\s*\[/, '"ops": [,'), 1 << 30)),
    /expected a trace event object/,
  );
});
