import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { analyze } from '../../core/analyze';
import { importPytorch } from '../../core/import';
import { groupWaits, percentile, RELEASE_BASIS_LABEL, releaseBasisOf, waitRows } from '../../core/analyze/wait-groups';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { RELEASED_UNKNOWN, TraceBuilder } from '../../core/trace/model';
import { runCli } from '../helpers/cli';
import { validate } from '../helpers/json-schema';
import { repoPath } from '../helpers/paths';

// Read by hand from the simulated trace of this example (calls 0, 1, 4 and 5 are its host waits):
// memcpy line 27 blocked 3205 ns, memcpy line 29 2705 ns, eventSync line 35 8950 ns, memcpy line 37 10503 ns.
const EXAMPLE = 'examples/seed-side-stream-event-sync.scenario.json';
const example = () => {
  const program = compileScenario(readFileSync(repoPath(EXAMPLE), 'utf8'), EXAMPLE);
  const trace = simulate(program);
  return { trace, analysis: analyze(trace, { program }) };
};

test('nearest-rank percentiles', () => {
  assert.equal(percentile([], 50), 0);
  assert.equal(percentile([7], 95), 7);
  assert.equal(percentile([1, 2, 3, 4], 50), 2);
  assert.equal(percentile([1, 2, 3, 4], 95), 4);
  assert.equal(
    percentile(
      Array.from({ length: 20 }, (_, i) => i + 1),
      95,
    ),
    19,
  );
});

test('waits of the side-stream example grouped by call kind, source line and context', () => {
  const { trace, analysis } = example();
  const byKind = groupWaits(analysis.waits, 'kind');
  assert.deepEqual(byKind, {
    by: 'kind',
    groups: [
      { key: 'memcpy', count: 3, totalBlockedNs: 16413, p50BlockedNs: 3205, p95BlockedNs: 10503, waits: [0, 1, 5] },
      { key: 'eventSync', count: 1, totalBlockedNs: 8950, p50BlockedNs: 8950, p95BlockedNs: 8950, waits: [4] },
    ],
  });
  assert.deepEqual(
    groupWaits(analysis.waits, 'source').groups.map((g) => [g.key, g.count, g.totalBlockedNs]),
    [
      ['line 37', 1, 10503],
      ['line 35', 1, 8950],
      ['line 27', 1, 3205],
      ['line 29', 1, 2705],
    ],
  );
  assert.deepEqual(
    groupWaits(analysis.waits, 'context').groups.map((g) => [g.key, g.count, g.totalBlockedNs]),
    [['(no context)', 4, 25363]],
  );
  // The timeline's rows, read from the trace's columns, group the same as the report's waits.
  assert.deepEqual(groupWaits(waitRows(trace), 'kind'), byKind);
  const rows = waitRows(trace);
  assert.deepEqual(
    rows.map((r) => [r.id, r.kind, r.target, r.blockedNs, r.releasedBy, r.basis, r.unblockNs, r.source?.line]),
    [
      [0, 'memcpy', 'default', 3205, 0, 'exact', 0, 27],
      [1, 'memcpy', 'default', 2705, 1, 'exact', 0, 29],
      [4, 'eventSync', 'event', 8950, 2, 'exact', 3600, 35],
      [5, 'memcpy', 'default', 10503, 4, 'exact', 0, 37],
    ],
  );
});

test('a wait the trace cannot explain is "unknown"; one with nothing pending is exact, with no op', () => {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'main', device: 0 });
  b.lane({ kind: 'stream', name: 's', device: 0 });
  b.call({
    lane: main,
    kind: 'deviceSync',
    name: 'cudaDeviceSynchronize',
    begin: 0,
    end: 10,
    blockedNs: 0,
    context: 'aten::item > aten::_local_scalar_dense',
  });
  b.call({
    lane: main,
    kind: 'deviceSync',
    name: 'cudaDeviceSynchronize',
    begin: 20,
    end: 500,
    blockedNs: 480,
    releasedBy: RELEASED_UNKNOWN,
    context: 'aten::item > aten::_local_scalar_dense',
  });
  const t = b.finish({ source: 'pytorch', clock: 'aligned', alignmentErrorNs: 0 });
  const rows = waitRows(t);
  assert.deepEqual(
    rows.map((r) => [r.releasedBy, r.basis, RELEASE_BASIS_LABEL[r.basis]]),
    [
      [-1, 'exact', 'exact'],
      [null, 'unknown', 'unknown'],
    ],
  );
  assert.deepEqual(groupWaits(rows, 'context').groups, [
    {
      key: 'aten::item > aten::_local_scalar_dense',
      count: 2,
      totalBlockedNs: 480,
      p50BlockedNs: 0,
      p95BlockedNs: 480,
      waits: [0, 1],
    },
  ]);
  assert.equal(releaseBasisOf(null), 'unknown');
  assert.equal(releaseBasisOf([]), 'exact');
});

test('report --group kind prints the groups and adds them to --json; a wrong grouping is a usage error', async () => {
  const text = await runCli(['report', EXAMPLE, '--group', 'kind']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /Host waits by call kind \(2\):\n {2}memcpy {5}3 waits, blocked 16\.4 µs in all, p50 3\.21 µs, p95 10\.5 µs\n {2}eventSync {2}1 wait, blocked 8\.95 µs in all, p50 8\.95 µs, p95 8\.95 µs\n/,
  );
  const json = JSON.parse((await runCli(['report', EXAMPLE, '--group=source', '--json'])).stdout);
  assert.deepEqual(validate(json, JSON.parse(readFileSync(repoPath('media/schema/report.schema.json'), 'utf8'))), []);
  assert.equal(json.groups.by, 'source');
  assert.deepEqual(json.groups.groups[0], {
    key: 'line 37',
    count: 1,
    totalBlockedNs: 10503,
    p50BlockedNs: 10503,
    p95BlockedNs: 10503,
    waits: [5],
  });
  assert.equal(
    'groups' in JSON.parse((await runCli(['report', EXAMPLE, '--json'])).stdout),
    false,
    'only when asked for',
  );
  const bad = await runCli(['report', EXAMPLE, '--group', 'line']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--group takes source, context, kind/);
});

test("the table's rows of a profiled trace carry the user's line, and group by it", () => {
  const t = importPytorch(
    gunzipSync(readFileSync(repoPath('test/fixtures/torch/profile/side_stream_sync.profile.json.gz'))).toString(),
  );
  const rows = waitRows(t);
  // Read by hand: each of the 3 iterations waits once at line 18 (event.synchronize()).
  const line18 = rows.filter((r) => r.source && 'file' in r.source && r.source.line === 18);
  assert.equal(line18.length, 3);
  assert.equal(
    (line18[0].source as { file: string }).file,
    '/home/dev/syncscope/test/gpu/torch/programs/side_stream_sync.py',
  );
  const { groups } = groupWaits(rows, 'source');
  assert.ok(
    groups.some((g) => g.key === '/home/dev/syncscope/test/gpu/torch/programs/side_stream_sync.py:18' && g.count === 3),
  );
});
