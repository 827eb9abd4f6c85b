import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { buildReport, formatReport } from '../../core/report';
import { TraceBuilder, type Finding } from '../../core/trace/model';
import { lineOf, opNamed, run, type ScenarioSpec } from './analyze-scenario';

const only = (spec: ScenarioSpec, kind: string): Finding[] =>
  run(spec).analysis.findings.filter((f) => f.kind === kind);
const two: ScenarioSpec['streams'] = {
  s1: { nonBlocking: true },
  s2: { nonBlocking: true },
  s3: { nonBlocking: true },
};

test('S9 no-op wait: waiting on, synchronizing or querying an event never recorded is an error, with the later record in the fix', () => {
  const spec: ScenarioSpec = {
    streams: two,
    events: { e: {} },
    steps: [
      { launch: 'k', stream: 's1', us: 100 },
      { wait: 'e', stream: 's2' },
      { eventSync: 'e' },
      { query: 'e' },
      { record: 'e', stream: 's1' },
    ],
  };
  const { analysis, text } = run(spec);
  const found = analysis.findings.filter((f) => f.kind === 'no-op-wait');
  assert.deepEqual(
    found.map((f) => [f.rule, f.severity, f.source?.line]),
    [
      ['S9', 'error', lineOf(text, '"wait"')],
      ['S9', 'error', lineOf(text, '"eventSync"')],
      ['S9', 'error', lineOf(text, '"query"')],
    ],
  );
  for (const f of found)
    assert.match(f.fix!, new RegExp(`after the record of "e" \\(line ${lineOf(text, '"record"')}\\)`));
  assert.ok(analysis.waits.find((w) => w.kind === 'eventSync')!.rules.includes('S9'));
});

test('S9 no-op wait: near miss, the same calls after the record are not flagged', () => {
  assert.deepEqual(
    only(
      {
        streams: two,
        events: { e: {} },
        steps: [
          { launch: 'k', stream: 's1', us: 100 },
          { record: 'e', stream: 's1' },
          { wait: 'e', stream: 's2' },
          { eventSync: 'e' },
          { query: 'e' },
        ],
      },
      'no-op-wait',
    ),
    [],
  );
});

test('S7 stale wait: re-recording on another stream before the wait leaves the first record uncovered', () => {
  const spec: ScenarioSpec = {
    streams: two,
    events: { e: {} },
    steps: [
      { launch: 'k1', stream: 's1', us: 100 },
      { record: 'e', stream: 's1' },
      { launch: 'k2', stream: 's2', us: 50 },
      { record: 'e', stream: 's2' },
      { wait: 'e', stream: 's3' },
      { launch: 'consume', stream: 's3', us: 10 },
    ],
  };
  const { analysis, text, trace } = run(spec);
  const found = analysis.findings.filter((f) => f.kind === 'stale-wait');
  assert.equal(found.length, 1);
  assert.equal(found[0].rule, 'S7');
  assert.equal(found[0].source?.line, lineOf(text, '"wait"'));
  assert.ok(found[0].ops.includes(opNamed(trace, 'record e')));
  assert.match(found[0].message, /does not cover "k1" on stream s1/);
});

test('S7 stale wait: near misses (wait before the re-record; a second event; re-record on the same stream) are not flagged', () => {
  const base = (steps: unknown[], events: ScenarioSpec['events'] = { e: {} }): ScenarioSpec => ({
    streams: two,
    events,
    steps,
  });
  const twins: [string, ScenarioSpec][] = [
    [
      'wait first',
      base([
        { launch: 'k1', stream: 's1', us: 100 },
        { record: 'e', stream: 's1' },
        { wait: 'e', stream: 's3' },
        { launch: 'k2', stream: 's2', us: 50 },
        { record: 'e', stream: 's2' },
        { wait: 'e', stream: 's3' },
      ]),
    ],
    [
      'two events',
      base(
        [
          { launch: 'k1', stream: 's1', us: 100 },
          { record: 'e', stream: 's1' },
          { launch: 'k2', stream: 's2', us: 50 },
          { record: 'f', stream: 's2' },
          { wait: 'e', stream: 's3' },
          { wait: 'f', stream: 's3' },
        ],
        { e: {}, f: {} },
      ),
    ],
    [
      'same stream',
      base([
        { launch: 'k1', stream: 's1', us: 100 },
        { record: 'e', stream: 's1' },
        { launch: 'k2', stream: 's1', us: 50 },
        { record: 'e', stream: 's1' },
        { wait: 'e', stream: 's3' },
      ]),
    ],
  ];
  for (const [name, spec] of twins) assert.deepEqual(only(spec, 'stale-wait'), [], name);
});

test('S7 stale wait: a consumer thread that waits after the producer thread re-recorded', () => {
  const spec = (consumerDelayUs: number): ScenarioSpec => ({
    streams: two,
    events: { e: {} },
    threads: {
      producer: [
        { launch: 'k1', stream: 's1', us: 100 },
        { record: 'e', stream: 's1' },
        { hostWork: { us: 50 } },
        { launch: 'k2', stream: 's1', us: 100 },
        { record: 'e', stream: 's1' },
      ],
      consumer: [
        { hostWork: { us: consumerDelayUs } },
        { wait: 'e', stream: 's2' },
        { launch: 'use', stream: 's2', us: 10 },
      ],
    },
  });
  assert.equal(only(spec(200), 'stale-wait').length, 1);
  assert.deepEqual(only(spec(20), 'stale-wait'), []);
});

test('S3 legacy serialization: work on the legacy stream delayed only by a blocking stream', () => {
  const spec = (side: Record<string, unknown>, ordered = false): ScenarioSpec => ({
    streams: { side },
    events: { e: {} },
    steps: [
      { launch: 'long', stream: 'side', us: 500 },
      ...(ordered ? [{ record: 'e', stream: 'side' }, { wait: 'e' }] : []),
      { launch: 'quick', us: 10 },
    ],
  });
  const { analysis, text, trace } = run(spec({}));
  const found = analysis.findings.filter((f) => f.kind === 'legacy-serialization');
  assert.equal(found.length, 1);
  assert.deepEqual(
    [found[0].rule, found[0].severity, found[0].source?.line],
    ['S3', 'warning', lineOf(text, '"quick"')],
  );
  const quick = opNamed(trace, 'quick');
  assert.deepEqual(found[0].ops, [quick, opNamed(trace, 'long')]);
  assert.deepEqual(only(spec({ nonBlocking: true }), 'legacy-serialization'), [], 'non-blocking stream');
  assert.deepEqual(only(spec({}, true), 'legacy-serialization'), [], 'the program asked for the order with an event');
});

test("S3 legacy serialization: a blocking stream's work delayed by earlier legacy-stream work", () => {
  const spec = (side: Record<string, unknown>): ScenarioSpec => ({
    streams: { side },
    steps: [
      { launch: 'legacyLong', us: 500 },
      { launch: 'sideWork', stream: 'side', us: 10 },
    ],
  });
  assert.equal(only(spec({}), 'legacy-serialization').length, 1);
  assert.deepEqual(only(spec({ nonBlocking: true }), 'legacy-serialization'), []);
});

test('S18 sync copy serialization: cudaMemcpy on the legacy stream waits for a blocking stream', () => {
  const spec = (side: Record<string, unknown>): ScenarioSpec => ({
    streams: { side },
    buffers: { d: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pinned' } },
    steps: [
      { launch: 'long', stream: 'side', us: 2000 },
      { copy: 'd', to: 'h' },
    ],
  });
  const found = only(spec({}), 'sync-copy-serialization');
  assert.equal(found.length, 1);
  assert.equal(found[0].rule, 'S18');
  assert.deepEqual(only(spec({}), 'legacy-serialization'), [], 'reported once, as the copy');
  assert.deepEqual(only(spec({ nonBlocking: true }), 'sync-copy-serialization'), []);
});

test('S17 pageable async copy: cudaMemcpyAsync with pageable memory blocks the host; pinned does not', () => {
  const spec = (host: string): ScenarioSpec => ({
    streams: { s: { nonBlocking: true } },
    buffers: { d: { bytes: 1 << 22 }, h: { bytes: 1 << 22, host } },
    steps: [
      { launch: 'k', stream: 's', us: 300 },
      { copy: 'd', to: 'h', async: true, stream: 's' },
    ],
  });
  const { analysis, trace } = run(spec('pageable'));
  const found = analysis.findings.filter((f) => f.kind === 'pageable-async-copy');
  assert.equal(found.length, 1);
  assert.equal(found[0].rule, 'S17');
  assert.match(found[0].fix!, /"h" as pinned/);
  const call = found[0].calls[0];
  assert.equal(found[0].savedNs, trace.calls.blockedNs[call]);
  assert.ok(found[0].savedNs! > 300_000 * 0.9, 'it waited for the kernel before it');
  assert.deepEqual(only(spec('pinned'), 'pageable-async-copy'), []);
});

test('S19 launch queue stall: the launch after a full queue blocks the host; fewer launches do not', () => {
  const spec = (n: number): ScenarioSpec => ({
    streams: { s: { nonBlocking: true } },
    steps: [
      { launch: 'long', stream: 's', ms: 5 },
      { repeat: n, steps: [{ launch: 'tiny', stream: 's', us: 1 }] },
    ],
  });
  const { analysis, trace } = run(spec(1100));
  const found = analysis.findings.filter((f) => f.kind === 'launch-queue-stall');
  assert.equal(found.length, 1);
  assert.equal(found[0].rule, 'S19');
  let blocked = 0;
  for (let i = 0; i < trace.calls.count; i++) if (trace.calls.kind[i] === 0) blocked += trace.calls.blockedNs[i];
  assert.ok(blocked > 0);
  assert.equal(found[0].savedNs, blocked);
  assert.deepEqual(only(spec(500), 'launch-queue-stall'), []);
});

test('redundant wait: a second stream synchronize with nothing issued in between; near miss: work finished by timing only', () => {
  const spec = (steps: unknown[]): ScenarioSpec => ({ streams: { s: { nonBlocking: true } }, steps });
  const { analysis, text } = run(
    spec([{ launch: 'k', stream: 's', us: 100 }, { streamSync: 's' }, { deviceSync: true }]),
  );
  const found = analysis.findings.filter((f) => f.kind === 'redundant-wait');
  assert.deepEqual(
    found.map((f) => [f.severity, f.source?.line]),
    [['info', lineOf(text, '"deviceSync"')]],
  );
  assert.deepEqual(
    only(
      spec([{ launch: 'k', stream: 's', us: 100 }, { hostWork: { us: 500 } }, { streamSync: 's' }]),
      'redundant-wait',
    ),
    [],
    'the host did not know the kernel had finished',
  );
  assert.equal(only(spec([{ streamSync: 's' }]), 'redundant-wait').length, 1, 'nothing was ever issued to the stream');
});

test('device-wide wait: a device synchronize that waits for unrelated work, with the time an event wait saves', () => {
  const spec = (sync: unknown): ScenarioSpec => ({
    streams: two,
    events: { copied: {} },
    buffers: { d: { bytes: 1 << 16 }, h: { bytes: 1 << 16, host: 'pinned' } },
    steps: [
      { launch: 'unrelated', stream: 's2', us: 2000 },
      { launch: 'compute', stream: 's1', us: 100, writes: ['d'] },
      { copy: 'd', to: 'h', async: true, stream: 's1' },
      { record: 'copied', stream: 's1' },
      sync,
    ],
  });
  const { analysis, trace } = run(spec({ deviceSync: true }));
  const found = analysis.findings.filter((f) => f.kind === 'device-wide-wait');
  assert.equal(found.length, 1);
  const wait = analysis.waits.find((w) => w.kind === 'deviceSync')!;
  const copy = opNamed(trace, 'DtoH d -> h');
  assert.equal(wait.narrower?.op, copy);
  assert.equal(wait.narrower?.savedNs, wait.endNs - (trace.ops.end[copy] + wait.unblockLatencyNs!));
  assert.equal(found[0].savedNs, wait.narrower?.savedNs);
  assert.ok(found[0].savedNs! > 1_500_000);
  assert.equal(wait.narrower?.deduced, undefined, 'the scenario declares its buffers: the needed op is exact');
  assert.doesNotMatch(found[0].message, /deduced/);
  assert.doesNotMatch(found[0].fix!, /wait_stream/);
  assert.deepEqual(only(spec({ eventSync: 'copied' }), 'device-wide-wait'), [], 'the event wait it suggests');
  const needsAll: ScenarioSpec = {
    ...spec({ deviceSync: true }),
    steps: spec({ deviceSync: true }).steps!.filter((s) => !(s as { launch?: string }).launch?.startsWith('unrelated')),
  };
  assert.deepEqual(only(needsAll, 'device-wide-wait'), [], 'nothing unrelated to wait for');
});

test('device-wide wait on a trace with no buffers (an imported one): the needed op is a deduction, and the fix orders later GPU work', () => {
  // A training step on s1 ends with its loss copied to pinned memory; an EMA update of 2 ms runs on
  // s2; the device synchronize waits for the EMA too. Times in ns, read off the layout below.
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s1 = b.lane({ kind: 'stream', name: '7', device: 0 });
  const s2 = b.lane({ kind: 'stream', name: '13', device: 0 });
  const step = b.call({ lane: host, kind: 'launch', begin: 0, end: 5_000, stream: s1, name: 'cudaLaunchKernel' });
  b.op({ lane: s1, kind: 'kernel', start: 10_000, end: 110_000, call: step, name: 'step' });
  const ema = b.call({ lane: host, kind: 'launch', begin: 6_000, end: 11_000, stream: s2, name: 'cudaLaunchKernel' });
  const emaOp = b.op({ lane: s2, kind: 'kernel', start: 12_000, end: 2_012_000, call: ema, name: 'ema' });
  const copy = b.call({ lane: host, kind: 'memcpy', begin: 12_000, end: 15_000, stream: s1, name: 'cudaMemcpyAsync' });
  b.op({ lane: s1, kind: 'memcpy', start: 110_000, end: 112_000, call: copy, copy: 'DtoH', hostMemory: 'pinned' });
  b.call({ lane: host, kind: 'deviceSync', begin: 16_000, end: 2_015_000, blockedNs: 1_999_000, releasedBy: emaOp });
  const t = b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
  const analysis = analyze(t);
  const wait = analysis.waits.find((w) => w.kind === 'deviceSync')!;
  assert.equal(wait.narrower?.deduced, true);
  assert.match(
    formatReport(buildReport(t, analysis)),
    /an event wait on op 2 would have released the host .* earlier \(deduced: read from its copies to host memory/,
  );
  const [f, ...more] = analysis.findings.filter((x) => x.kind === 'device-wide-wait');
  assert.equal(more.length, 0);
  assert.equal(f.ops[0], 2, 'the copy to pinned memory is the op the host needed');
  // Released 2.015 ms; the copy ended at 112 us and the host resumes 3 us after an op ends.
  assert.ok(f.savedNs! > 1_890_000 && f.savedNs! < 1_905_000, `${f.savedNs}`);
  assert.match(
    f.message,
    /the host needed only .*\(deduced: read from its copies to host memory .* the trace lists no buffers/,
  );
  assert.match(
    f.fix!,
    /instead of the whole device; where work queued later on another stream .* wait_stream\) before that work$/,
  );
});

test('S10 timing-dependent query: a query that raced the op, with how close; near misses: ordered, or far apart', () => {
  const spec = (hostUs: number, extra: unknown[] = [], expect?: string): ScenarioSpec => ({
    streams: two,
    events: { e: {} },
    steps: [
      { launch: 'k', stream: 's1', us: 100 },
      { record: 'e', stream: 's1' },
      ...extra,
      { hostWork: { us: hostUs } },
      expect ? { query: 'e', expect } : { query: 'e' },
    ],
  });
  // Find a host delay that puts the query within a few microseconds of the record's completion.
  const { trace } = run(spec(1));
  const rec = opNamed(trace, 'record e');
  const queryAt = (t: typeof trace) => {
    for (let i = 0; i < t.calls.count; i++) if (t.strings[t.calls.name[i]] === 'cudaEventQuery') return i;
    return -1;
  };
  const offsetUs = 1 + Math.round((trace.ops.end[rec] - trace.calls.begin[queryAt(trace)]) / 1000);
  const close = run(spec(offsetUs - 3));
  const found = close.analysis.findings.filter((f) => f.kind === 'timing-dependent-query');
  assert.equal(found.length, 1);
  assert.equal(found[0].rule, 'S10');
  const q = queryAt(close.trace);
  const margin = close.trace.ops.end[opNamed(close.trace, 'record e')] - close.trace.calls.end[q];
  assert.ok(margin > 0 && margin < 20_000, `margin ${margin}`);
  assert.match(found[0].message, /answered notReady.* after the query returned/);
  assert.deepEqual(only(spec(offsetUs + 500), 'timing-dependent-query'), [], 'far after completion');
  assert.deepEqual(
    only(spec(offsetUs - 3, [{ eventSync: 'e' }]), 'timing-dependent-query'),
    [],
    'ordered by a synchronize',
  );
  const wrong = only(spec(offsetUs + 500, [], 'notReady'), 'timing-dependent-query');
  assert.equal(wrong.length, 1);
  assert.match(wrong[0].message, /answered ready \(the scenario expected notReady\)/);
});

test('S20 host function stall: work queued behind a host function waits for it; near miss: an event record instead', () => {
  const spec = (marker: unknown): ScenarioSpec => ({
    streams: { s: { nonBlocking: true } },
    events: { progress: {} },
    steps: [
      { launch: 'step1', stream: 's', us: 50 },
      marker,
      { launch: 'step2', stream: 's', us: 50 },
      { streamSync: 's' },
    ],
  });
  const { analysis, trace, text } = run(spec({ hostFunc: 'report', stream: 's' }));
  const found = analysis.findings.filter((f) => f.kind === 'host-func-stall');
  assert.equal(found.length, 1);
  assert.deepEqual([found[0].rule, found[0].source?.line], ['S20', lineOf(text, '"hostFunc"')]);
  const hf = opNamed(trace, 'report');
  assert.deepEqual(found[0].ops, [hf, opNamed(trace, 'step2')]);
  assert.ok(
    trace.ops.start[opNamed(trace, 'step2')] >= trace.ops.end[hf],
    'step2 ran after the host function returned',
  );
  assert.deepEqual(only(spec({ record: 'progress', stream: 's' }), 'host-func-stall'), []);
});
