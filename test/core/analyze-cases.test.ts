// Analysis cases pinned by hand: the narrower wait among several needed ops, host-blocked % with
// two host threads, and the timing-dependent query's 20 µs boundary on both sides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { CLOSE_QUERY_NS } from '../../core/analyze/event-smells';
import { TraceBuilder, type Answer } from '../../core/trace/model';
import { opNamed, run } from './analyze-scenario';

test('narrower wait: of the ops the host needed, the one that completed last, not the first found', () => {
  const { analysis, trace } = run({
    streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true }, s3: { nonBlocking: true } },
    buffers: {
      d1: { bytes: 4096 },
      h1: { bytes: 4096, host: 'pinned' },
      d2: { bytes: 4096 },
      h2: { bytes: 4096, host: 'pinned' },
    },
    steps: [
      { copy: 'd1', to: 'h1', async: true, stream: 's1' },
      { launch: 'fill', stream: 's2', us: 300, writes: ['d2'] },
      { copy: 'd2', to: 'h2', async: true, stream: 's2' },
      { launch: 'unrelated', stream: 's3', us: 900 },
      { deviceSync: true },
    ],
  });
  const w = analysis.waits.find((x) => x.kind === 'deviceSync')!;
  const [c1, c2] = [opNamed(trace, 'DtoH d1 -> h1'), opNamed(trace, 'DtoH d2 -> h2')];
  assert.ok(trace.ops.end[c1] < trace.ops.end[c2], 'the first copy completed first');
  assert.equal(w.narrower?.op, c2);
  assert.equal(w.narrower?.savedNs, w.endNs - (trace.ops.end[c2] + w.unblockLatencyNs!));
});

test('host-blocked % is the blocked time of all threads over wall time times the number of host threads', () => {
  const b = new TraceBuilder();
  const a = b.lane({ kind: 'thread', name: 'a', device: 0 });
  const z = b.lane({ kind: 'thread', name: 'z', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  b.op({ lane: s, kind: 'kernel', name: 'k', start: 0, end: 1000 });
  b.call({ lane: a, kind: 'deviceSync', begin: 0, end: 1000, blockedNs: 600 });
  b.call({ lane: z, kind: 'deviceSync', begin: 0, end: 1000, blockedNs: 200 });
  const m = analyze(b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 })).metrics;
  assert.equal(m.wallNs, 1000);
  assert.equal(m.hostBlockedPct, 40); // (600 + 200) / (1000 × 2 threads); the stream is no thread
});

/** A kernel and a record on one stream; the record completes at 100 µs; a query at [begin, end]. */
function queried(begin: number, end: number, answer: Answer) {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0, nonBlocking: true });
  const l = b.call({ lane: host, kind: 'launch', begin: 0, end: 10, stream: s });
  const k = b.op({ lane: s, kind: 'kernel', name: 'k', start: 10, end: 100_000, call: l });
  const rc = b.call({ lane: host, kind: 'record', begin: 10, end: 20, stream: s, event: 'e' });
  const r = b.op({ lane: s, kind: 'eventRecord', start: 100_000, end: 100_000, call: rc, event: 'e' });
  b.call({ lane: host, kind: 'query', begin, end, event: 'e', answer });
  b.edge('launch', l, k);
  b.edge('launch', rc, r);
  b.edge('stream', k, r);
  const found = analyze(b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 })).findings;
  return found.filter((f) => f.kind === 'timing-dependent-query').length;
}

test('S10 a query is timing-dependent when its record completed less than 20 µs from it, on either side', () => {
  assert.equal(CLOSE_QUERY_NS, 20_000);
  // Ready: the record completed 20 µs before the query began (not flagged), or 1 ns less.
  assert.equal(queried(120_000, 120_100, 'ready'), 0);
  assert.equal(queried(119_999, 120_099, 'ready'), 1);
  // Not ready: the record completed 20 µs after the query returned (not flagged), or 1 ns less.
  assert.equal(queried(79_900, 80_000, 'notReady'), 0);
  assert.equal(queried(79_901, 80_001, 'notReady'), 1);
  // While the query ran.
  assert.equal(queried(99_950, 100_050, 'notReady'), 1);
});
