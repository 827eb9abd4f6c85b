// The rules of a call, read by hand from SEMANTICS.md: one answer for report --json `rules` and the
// timeline's details pane (core/analyze/describe.ts callRules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callRules, callTarget, releasedByLine, releasedByText, releasingOps } from '../../core/analyze/describe';
import { buildReport, formatReport } from '../../core/report';
import { RELEASED_UNKNOWN, TraceBuilder, type CallKind, type Trace } from '../../core/trace/model';
import { run } from './analyze-scenario';

/** One host thread, one stream with one kernel, and one call of each kind given, in order. */
function callsOf(
  calls: { kind: CallKind; name?: string; blockedNs?: number; releasedBy?: number; event?: string }[],
  devices = 1,
): Trace {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const side = b.lane({ kind: 'stream', name: 'side', device: 0 });
  b.op({ lane: side, kind: 'kernel', start: 0, end: 100, name: 'produce' });
  calls.forEach((c, k) => b.call({ lane: main, stream: side, begin: 10 * k, end: 10 * k + 5, ...c }));
  const meta = devices > 1 ? { devices: [...Array(devices).keys()].map((device) => ({ device, name: 'H200' })) } : {};
  return b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0, ...meta });
}

test('each call kind names its SEMANTICS.md rules, S16 only where an op released it, and never S15', () => {
  const t = callsOf([
    { kind: 'eventSync', event: 'ready', blockedNs: 90, releasedBy: 0 },
    { kind: 'streamSync' },
    { kind: 'deviceSync', blockedNs: 70, releasedBy: 0 },
    { kind: 'memcpy', name: 'cudaMemcpyAsync', blockedNs: 40, releasedBy: 0 },
    { kind: 'memcpy', name: 'cudaMemcpy', blockedNs: 30, releasedBy: 0 },
    { kind: 'memset', name: 'cudaMemset' },
    { kind: 'launch' },
    { kind: 'launch', blockedNs: 20, releasedBy: 0 },
    { kind: 'hostFunc', blockedNs: 20 },
    { kind: 'record', event: 'ready' },
    { kind: 'streamWait', event: 'ready' },
    { kind: 'query', event: 'ready' },
    { kind: 'elapsed', event: 'start' },
    { kind: 'hostWork' },
    { kind: 'api', name: 'cudaGetDevice' },
    { kind: 'eventSync', event: 'ready', blockedNs: 50, releasedBy: RELEASED_UNKNOWN },
  ]);
  const rules = [...Array(t.calls.count).keys()].map((i) => callRules(t, i));
  assert.deepEqual(rules, [
    ['S12', 'S16'],
    ['S13'],
    ['S14', 'S16'],
    ['S17', 'S16'],
    ['S18', 'S16'],
    ['S18'],
    [],
    ['S19', 'S16'],
    ['S20', 'S19'],
    ['S6', 'S7'],
    ['S8'],
    ['S10'],
    ['S11'],
    [],
    [],
    ['S12'],
  ]);
});

test('a call names its event, else its stream; a device synchronize names the device only where there are several', () => {
  const one = callsOf([{ kind: 'eventSync', event: 'ready' }, { kind: 'streamSync' }, { kind: 'deviceSync' }]);
  assert.deepEqual(
    [0, 1, 2].map((i) => callTarget(one, i)),
    ['ready', 'side', 'device'],
  );
  const two = callsOf([{ kind: 'deviceSync' }], 2);
  two.calls.device[0] = 1;
  assert.equal(callTarget(two, 0), 'device 1');
});

test('S16 the released-by words: the op, nothing pending, or unknown', () => {
  const t = callsOf([
    { kind: 'streamSync', blockedNs: 90, releasedBy: 0 },
    { kind: 'streamSync' },
    { kind: 'streamSync', blockedNs: 5, releasedBy: RELEASED_UNKNOWN },
  ]);
  const by = [0, 1, 2].map((i) => releasingOps(t, i));
  assert.deepEqual(by, [[{ op: 0, name: 'produce', stream: 'side', how: 'exact' }], [], null]);
  assert.deepEqual(by.map(releasedByText), [
    'op 0 "produce" on side',
    'nothing was pending: returned at once',
    'unknown (the trace does not say)',
  ]);
  assert.deepEqual(by.map(releasedByLine), [
    'released by op 0 "produce" on side',
    'nothing was pending: returned at once',
    'released by: unknown (the trace does not say)',
  ]);
});

test('report --json gives each wait the rules of its call, and the report text its released-by line', () => {
  const { analysis, trace, program } = run({
    streams: { side: { nonBlocking: true } },
    events: { ready: {} },
    buffers: { d: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pageable' } },
    steps: [
      { launch: 'produce', stream: 'side', us: 100 },
      { record: 'ready', stream: 'side' },
      { eventSync: 'ready' },
      { copy: 'd', to: 'h', async: true, stream: 'side' },
      { streamSync: 'side' },
      { deviceSync: true },
    ],
  });
  const report = buildReport(trace, analysis);
  assert.deepEqual(
    report.waits.map((w) => [w.kind, w.rules]),
    [
      ['eventSync', ['S12', 'S16']],
      ['memcpy', ['S17', 'S16']],
      ['streamSync', ['S13']],
      ['deviceSync', ['S14']],
    ],
  );
  for (const w of report.waits) assert.deepEqual(w.rules, callRules(trace, w.id, program));
  const text = formatReport(report);
  for (const w of report.waits)
    assert.ok(text.includes(`      ${releasedByLine(w.releasedBy)}`), `${w.kind}: ${releasedByLine(w.releasedBy)}`);
});
