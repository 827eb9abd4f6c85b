// Host waits by the line of user code that made them: counts, blocked times, call kinds and who
// released them, on a hand-made trace shaped like side_stream_sync (three event.synchronize waits
// on one line, released by the side stream's GEMM; one .item() whose releaser is unknown).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchSiteFile, sharedTail, siteLines, siteLineText, siteProblems } from '../../core/analyze/site-lines';
import { RELEASED_UNKNOWN, Trace, TraceBuilder } from '../../core/trace/model';
import { parseTrace } from '../../core/trace/json';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { analyze } from '../../core/analyze';
import { importPytorch } from '../../core/import/pytorch';
import { buildOverview } from '../../core/overview/build';
import { h200 } from '../../core/simulate/profile';
import { repoPath } from '../helpers/paths';

const SCRIPT = '/home/u/proj/side_stream_sync.py';

function trace(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'python', device: 0 });
  const side = b.lane({ kind: 'stream', name: 'stream 13', device: 0 });
  b.sites.push(
    { frame: { file: SCRIPT, line: 21, function: 'step' }, precision: 'line', stack: [] },
    { frame: { file: SCRIPT, line: 24, function: 'step' }, precision: 'line', stack: [] },
    { frame: { file: '/home/u/proj/util.py', line: 3, function: 'loop' }, precision: 'function', stack: [] },
  );
  const blocked = [7_400_000, 7_600_000, 7_500_000];
  let t0 = 0;
  for (const ns of blocked) {
    const gemm = b.op({ lane: side, kind: 'kernel', name: 'sm90_gemm', start: t0, end: t0 + ns });
    b.call({
      lane: host,
      kind: 'eventSync',
      name: 'cudaEventSynchronize',
      begin: t0,
      end: t0 + ns + 10,
      blockedNs: ns,
      releasedBy: gemm,
      site: 0,
    });
    t0 += ns + 1000;
  }
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: t0,
    end: t0 + 500,
    blockedNs: 400,
    releasedBy: RELEASED_UNKNOWN,
    site: 1,
  });
  b.call({ lane: host, kind: 'launch', begin: t0 + 600, end: t0 + 610, stream: side, site: 1 });
  b.call({ lane: host, kind: 'deviceSync', begin: t0 + 700, end: t0 + 900, blockedNs: 150, site: 2 });
  b.call({ lane: host, kind: 'streamSync', begin: t0 + 1000, end: t0 + 1100, blockedNs: 50 });
  b.findings.push({ rule: 'S13', kind: 'k', severity: 'warning', message: 'm.', calls: [6, 3], ops: [], fix: 'f' });
  b.findings.push({ rule: 'S14', kind: 'k', severity: 'info', message: 'n', calls: [6], ops: [] });
  return b.finish({ source: 'pytorch', clock: 'host', alignmentErrorNs: 0 });
}

test('waits group by their site line: count, total and longest, kinds, and who released them', () => {
  const lines = siteLines(trace());
  assert.deepEqual(
    lines.map((l) => [l.file, l.line, l.count, l.totalBlockedNs, l.maxBlockedNs, l.longest, l.kinds]),
    [
      [SCRIPT, 21, 3, 22_500_000, 7_600_000, 1, ['eventSync']],
      [SCRIPT, 24, 1, 400, 400, 3, ['streamSync']],
      ['/home/u/proj/util.py', 3, 1, 150, 150, 5, ['deviceSync']],
    ],
  );
  assert.equal(lines[0].releasedBy, 'released by "sm90_gemm" on stream 13');
  assert.equal(
    siteLineText(lines[0]),
    'host blocked 22.5 ms, 3 waits of up to 7.6 ms: eventSync, released by "sm90_gemm" on stream 13',
  );
  // The editor names the releaser in a lens of its own where it can link to its launch line.
  assert.equal(siteLineText(lines[0], false), 'host blocked 22.5 ms, 3 waits of up to 7.6 ms: eventSync');
  assert.equal(
    siteLineText(lines[1]),
    'host blocked 400 ns: streamSync, released by: unknown (the trace does not say)',
  );
  assert.equal(
    siteLineText(lines[2]),
    'host blocked 150 ns in this function: deviceSync, nothing was pending: returned at once',
  );
});

test('a finding goes on the site of its first call that has one', () => {
  const problems = siteProblems(trace());
  assert.deepEqual(
    problems.map((p) => [p.file, p.line, p.finding.rule]),
    [[SCRIPT, 24, 'S13']],
  );
});

test('a site file matches the same path, else the one workspace file with the longest shared tail', () => {
  assert.equal(sharedTail('/a/b/c.py', '/x/b/c.py'), 2);
  assert.equal(matchSiteFile(SCRIPT, ['/w/side_stream_sync.py', SCRIPT]), SCRIPT);
  assert.equal(
    matchSiteFile(SCRIPT, ['/w/a/side_stream_sync.py', '/w/proj/side_stream_sync.py']),
    '/w/proj/side_stream_sync.py',
  );
  assert.equal(matchSiteFile(SCRIPT, ['/w/a/side_stream_sync.py', '/w/b/side_stream_sync.py']), undefined);
  assert.equal(matchSiteFile(SCRIPT, ['/w/train.py']), undefined);
});

test('a releaser inferred from timing reads "likely"; waits the trace cannot explain are counted', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'python', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  b.sites.push({ frame: { file: SCRIPT, line: 9, function: 'f' }, precision: 'line', stack: [] });
  const k = b.op({ lane: s, kind: 'kernel', name: 'k', start: 0, end: 90 });
  b.call({ lane: host, kind: 'streamSync', begin: 0, end: 95, blockedNs: 90, releasedBy: k, how: 'timing', site: 0 });
  b.call({ lane: host, kind: 'streamSync', begin: 100, end: 110, blockedNs: 9, releasedBy: RELEASED_UNKNOWN, site: 0 });
  const [line] = siteLines(b.finish({ source: 'pytorch', clock: 'host', alignmentErrorNs: 0 }));
  assert.equal(line.releasedBy, 'released by likely "k" on stream 7; 1 of 2 unknown');
});

test("a lens names a cuBLAS kernel by the short name the lanes give it, not CUPTI's whole name", () => {
  const t = parseTrace(readFileSync(repoPath('test/fixtures/editor/side_stream_sync.syncscope.json'), 'utf8'));
  const sync = siteLines(t).find((l) => l.line === 18);
  assert.ok(sync);
  assert.equal(
    siteLineText(sync),
    'host blocked 10.3 ms, 3 waits of up to 5.28 ms: eventSync, released by "xmma_gemm f32 nn" on stream 13',
  );
});

test("a profile's pageable-copy findings go on their own lines, or on the overview's line in the window", () => {
  const t = importPytorch(
    gunzipSync(readFileSync(repoPath('test/fixtures/torch/profile/train_step.profile.json.gz'))).toString(),
  );
  const analysis = analyze(t);
  t.findings = analysis.findings;
  // Read by hand: model.cuda()'s first copy (call 1739) and the first batch upload (call 2248) are
  // known only by their function (line 0); model.cuda()'s later copies are marked at line 12, the
  // batch uploads in the loop at 20. Each place is a finding of its own.
  const problems = siteProblems(t).map((p) => [p.finding.kind, p.line, p.precision]);
  assert.deepEqual(problems, [
    ['pageable-async-copy', 0, 'function'],
    ['pageable-async-copy', 12, 'line'],
    ['hidden-sync', 25, 'line'],
    ['pageable-async-copy', 20, 'line'],
  ]);
  const ranked = siteProblems(t, buildOverview(t, analysis, h200).findings);
  assert.deepEqual([ranked[0].finding.kind, ranked[0].line, ranked[0].precision], ['pageable-async-copy', 20, 'line']);
});

/** A helper in util.py that copies to the host, called from train.py's lines 16 and 24; one wait at train.py:30 itself. */
function helperTrace(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'python', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  const helper = { file: '/p/util.py', line: 11, function: 'to_host' };
  const lib = { file: '/venv/lib/python3.12/site-packages/torch/_tensor.py', line: 1, function: 'cpu' };
  const at = (line: number, fn: string) => ({ file: '/p/train.py', line, function: fn });
  b.sites.push(
    { frame: helper, precision: 'line', stack: [lib, helper, at(16, 'train_step')], caller: at(16, 'train_step') },
    { frame: helper, precision: 'line', stack: [lib, helper, at(24, 'eval_step')], caller: at(24, 'eval_step') },
    { frame: at(30, '<module>'), precision: 'line', stack: [at(30, '<module>')] },
  );
  const k = b.op({ lane: s, kind: 'kernel', name: 'k', start: 0, end: 1e6 });
  const waits: [number, number][] = [
    [0, 300_000],
    [1, 100_000],
    [0, 200_000],
    [2, 50_000],
  ];
  let t0 = 0;
  for (const [site, ns] of waits) {
    b.call({ lane: host, kind: 'memcpy', begin: t0, end: t0 + ns, blockedNs: ns, releasedBy: k, site });
    t0 += ns + 1000;
  }
  return b.finish({ source: 'capture', clock: 'host', alignmentErrorNs: 0 });
}

test('a helper called from two lines: its line, then each calling line with its own waits', () => {
  const lines = siteLines(helperTrace());
  assert.deepEqual(
    lines.map((l) => [l.file, l.line, l.count, l.totalBlockedNs, l.via?.line, l.callers]),
    [
      ['/p/util.py', 11, 3, 600_000, undefined, 2],
      ['/p/train.py', 16, 2, 500_000, 11, undefined],
      ['/p/train.py', 24, 1, 100_000, 11, undefined],
      ['/p/train.py', 30, 1, 50_000, undefined, undefined],
    ],
  );
  assert.equal(
    siteLineText(lines[1], false),
    'host blocked 500 µs in to_host() (util.py:11), 2 waits of up to 300 µs: memcpy',
  );
});

test("the overview counts a helper's waits once, by the line that called it", () => {
  const t = helperTrace();
  const o = buildOverview(t, analyze(t), h200);
  assert.deepEqual(
    o.lines.map((l) => ['context' in l.where ? l.where.context : [l.where.line, l.where.calledFrom?.line], l.waits]),
    [
      [[11, 16], 2],
      [[11, 24], 1],
      [[30, undefined], 1],
    ],
  );
});
