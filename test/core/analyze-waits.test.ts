import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { RELEASED_NONE, RELEASED_UNKNOWN, TraceBuilder } from '../../core/trace/model';
import { lineOf, opNamed, run, type ScenarioSpec } from './analyze-scenario';

const streams: ScenarioSpec['streams'] = { s1: { nonBlocking: true }, s2: { nonBlocking: true } };

test('S13 S16 a stream synchronize: what it waited for, the releasing op, blocked time and unblock latency', () => {
  const { analysis, trace, text } = run({
    streams,
    steps: [{ launch: 'k', stream: 's1', us: 200 }, { streamSync: 's1' }],
  });
  assert.equal(analysis.waits.length, 1);
  const w = analysis.waits[0];
  const k = opNamed(trace, 'k');
  assert.deepEqual([w.kind, w.thread, w.target], ['streamSync', 'main', 's1']);
  assert.deepEqual(w.releasedBy, [{ op: k, name: 'k', stream: 's1', how: 'exact' }]);
  assert.equal(w.blockedNs, trace.calls.blockedNs[w.id]);
  assert.ok(w.blockedNs > 190_000);
  assert.equal(w.unblockLatencyNs, w.endNs - trace.ops.end[k]);
  assert.ok(w.unblockLatencyNs! >= 0);
  assert.equal(w.pending, true);
  assert.deepEqual(w.rules, ['S13', 'S16']);
  assert.equal(w.source?.line, lineOf(text, '"streamSync"'));
});

test('S14 a device synchronize is released by the op that completes last, on whichever stream', () => {
  const { analysis, trace } = run({
    streams,
    steps: [{ launch: 'long', stream: 's2', us: 500 }, { launch: 'short', stream: 's1', us: 50 }, { deviceSync: true }],
  });
  const w = analysis.waits[0];
  assert.deepEqual([w.kind, w.target], ['deviceSync', 'device']);
  assert.equal(w.releasedBy?.[0].op, opNamed(trace, 'long'));
  assert.ok(w.rules.includes('S14'));
});

test('S12 an event synchronize is released by the work its record captured', () => {
  const { analysis, trace } = run({
    streams,
    events: { e: {} },
    steps: [{ launch: 'k', stream: 's1', us: 100 }, { record: 'e', stream: 's1' }, { eventSync: 'e' }],
  });
  const w = analysis.waits[0];
  assert.deepEqual([w.kind, w.target], ['eventSync', 'e']);
  assert.equal(w.releasedBy?.[0].op, opNamed(trace, 'k'));
  assert.ok(trace.ops.end[opNamed(trace, 'record e')] >= trace.ops.end[opNamed(trace, 'k')]);
});

test('a wait that found nothing pending says so: no releasing op, nothing blocked', () => {
  const { analysis } = run({
    streams,
    steps: [{ launch: 'k', stream: 's1', us: 20 }, { hostWork: { us: 300 } }, { streamSync: 's1' }],
  });
  const w = analysis.waits[0];
  assert.deepEqual([w.pending, w.releasedBy, w.blockedNs, w.unblockLatencyNs], [false, [], 0, null]);
  assert.equal(w.narrower, undefined);
});

test('S18 a synchronous copy is a host wait released by its own copy', () => {
  const { analysis, trace } = run({
    buffers: { d: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pinned' } },
    steps: [{ copy: 'd', to: 'h' }],
  });
  const w = analysis.waits.find((x) => x.kind === 'memcpy')!;
  assert.equal(w.releasedBy?.[0].op, opNamed(trace, 'DtoH d -> h'));
  assert.ok(w.rules.includes('S18'));
});

test('narrower wait: a stream synchronize that also waits for work queued after the copy the host needs', () => {
  const spec = (sync: unknown): ScenarioSpec => ({
    streams,
    buffers: { d: { bytes: 1 << 16 }, h: { bytes: 1 << 16, host: 'pinned' } },
    steps: [{ copy: 'd', to: 'h', async: true, stream: 's1' }, { launch: 'later', stream: 's1', us: 800 }, sync],
  });
  const { analysis, trace } = run(spec({ streamSync: 's1' }));
  const w = analysis.waits.find((x) => x.kind === 'streamSync')!;
  const copy = opNamed(trace, 'DtoH d -> h');
  assert.equal(w.narrower?.op, copy);
  assert.equal(w.narrower?.savedNs, w.endNs - (Math.max(w.beginNs, trace.ops.end[copy]) + w.unblockLatencyNs!));
  assert.ok(w.narrower!.savedNs > 700_000);
  // Without anything the host needs, there is nothing to narrow to.
  const none = run({
    streams,
    steps: [{ launch: 'a', stream: 's1', us: 50 }, { launch: 'b', stream: 's1', us: 800 }, { streamSync: 's1' }],
  });
  assert.equal(none.analysis.waits[0].narrower, undefined);
});

test('narrower wait: the op whose buffer the next launch on another stream uses is the one needed', () => {
  const { analysis, trace } = run({
    streams,
    buffers: { x: { bytes: 4096 } },
    steps: [
      { launch: 'produce', stream: 's1', us: 50, writes: ['x'] },
      { launch: 'unrelated', stream: 's1', us: 900 },
      { streamSync: 's1' },
      { launch: 'consume', stream: 's2', us: 10, reads: ['x'] },
    ],
  });
  assert.equal(analysis.waits[0].narrower?.op, opNamed(trace, 'produce'));
});

test('imported waits: an unknown releasing op is null, and the enclosing framework ops are the context', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'python', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  b.call({ lane: host, kind: 'context', name: 'aten::item', begin: 0, end: 100 });
  const k = b.op({ lane: s, kind: 'kernel', name: 'k', start: 0, end: 90 });
  b.call({
    lane: host,
    kind: 'streamSync',
    name: 'cudaStreamSynchronize',
    begin: 10,
    end: 95,
    stream: s,
    blockedNs: 80,
    releasedBy: k,
    unblockNs: 5,
    context: 'aten::item > aten::_local_scalar_dense',
  });
  b.call({
    lane: host,
    kind: 'deviceSync',
    name: 'cudaDeviceSynchronize',
    begin: 96,
    end: 99,
    releasedBy: RELEASED_UNKNOWN,
  });
  const a = analyze(b.finish({ source: 'pytorch', clock: 'host', alignmentErrorNs: 1000 }));
  assert.deepEqual(
    a.waits.map((w) => [w.kind, w.context, w.releasedBy]),
    [
      [
        'streamSync',
        'aten::item > aten::_local_scalar_dense',
        [{ op: k, name: 'k', stream: 'stream 7', how: 'exact' }],
      ],
      ['deviceSync', undefined, null],
    ],
  );
});

test('S13 S16 a wait that blocked the host was pending, even when the trace holds none of the work it waited for', () => {
  // An imported trace cut off at its start: the kernel the synchronize waited for is not in it. The
  // only kernel, k, ended at 50 µs, before either wait began at 100 µs.
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'python', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  const launch = b.call({ lane: host, kind: 'launch', name: 'cudaLaunchKernel', begin: 0, end: 5_000, stream: s });
  const k = b.op({ lane: s, kind: 'kernel', name: 'k', start: 10_000, end: 50_000, call: launch });
  b.edge('launch', launch, k);
  const sync = (begin: number, end: number, blockedNs: number) =>
    b.call({
      lane: host,
      kind: 'streamSync',
      name: 'cudaStreamSynchronize',
      begin,
      end,
      stream: s,
      blockedNs,
      releasedBy: blockedNs > 0 ? RELEASED_UNKNOWN : RELEASED_NONE,
    });
  sync(100_000, 600_000, 500_000); // the host waited 500 µs for something
  sync(700_000, 701_500, 0); // returned at once
  const a = analyze(b.finish({ source: 'pytorch', clock: 'host', alignmentErrorNs: 1000 }));
  assert.deepEqual(
    a.waits.map((w) => [w.beginNs, w.blockedNs, w.releasedBy, w.pending]),
    [
      [100_000, 500_000, null, true],
      [700_000, 0, [], false],
    ],
  );
});
