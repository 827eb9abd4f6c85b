// S21 in the analyses: an event wait across devices is a happens-before edge like any other, and a
// deviceSync orders only its own device's work before the host's later calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { happensBefore } from '../../core/analyze';
import { bindEvents } from '../../core/analyze/bindings';
import { rowEnd, rowFirst } from '../../core/analyze/csr';
import { TraceBuilder, type Finding } from '../../core/trace/model';
import { opNamed, run, type ScenarioSpec } from './analyze-scenario';

const races = (a: { findings: Finding[] }) => a.findings.filter((f) => f.kind === 'race');

const pipeline = (wait: boolean): ScenarioSpec => ({
  streams: { s0: { nonBlocking: true }, s1: { nonBlocking: true, device: 1 } },
  events: { ready: {} },
  buffers: { x0: { bytes: 4096 }, x1: { bytes: 4096, device: 1 } },
  steps: [
    { launch: 'produce', stream: 's0', us: 200, writes: ['x0'] },
    { record: 'ready', stream: 's0' },
    ...(wait ? [{ wait: 'ready', stream: 's1' }] : []),
    { copy: 'x0', to: 'x1', async: true, stream: 's1' },
    { launch: 'consume', stream: 's1', us: 50, reads: ['x1'] },
  ],
});

test("S21 an event recorded on device 0 and waited for on device 1 orders the two devices' work", () => {
  const { trace, analysis } = run(pipeline(true));
  const hb = happensBefore(trace);
  const before = (a: string, b: string) =>
    hb.before({ kind: 'op', id: opNamed(trace, a) }, { kind: 'op', id: opNamed(trace, b) });
  assert.equal(before('produce', 'PtoP x0 -> x1'), true);
  assert.equal(before('produce', 'consume'), true);
  assert.equal(before('consume', 'produce'), false);
  assert.deepEqual(races(analysis), []);
});

test('S21 without the cross-device wait, the peer copy races with the kernel that writes its source', () => {
  const { trace, analysis } = run(pipeline(false));
  const hb = happensBefore(trace);
  assert.equal(
    hb.before({ kind: 'op', id: opNamed(trace, 'produce') }, { kind: 'op', id: opNamed(trace, 'PtoP x0 -> x1') }),
    false,
  );
  const [h] = analysis.hazards;
  assert.deepEqual(
    [h.buffer, h.first.name, h.second.name, h.first.write, h.second.write],
    ['x0', 'produce', 'PtoP x0 -> x1', true, false],
  );
  assert.equal(races(analysis).length, 1);
});

test("S21 deviceSync(1) orders device 1's work before the host's next call, and not device 0's", () => {
  const { trace } = run({
    streams: { s0: { nonBlocking: true }, s1: { nonBlocking: true, device: 1 } },
    steps: [
      { launch: 'long0', stream: 's0', ms: 1 },
      { launch: 'short1', stream: 's1', us: 50 },
      { deviceSync: 1 },
      { hostWork: { us: 5 } },
    ],
  });
  const hb = happensBefore(trace);
  const after = trace.calls.count - 1;
  assert.equal(hb.before({ kind: 'op', id: opNamed(trace, 'short1') }, { kind: 'call', id: after }), true);
  assert.equal(hb.before({ kind: 'op', id: opNamed(trace, 'long0') }, { kind: 'call', id: after }), false);
});

test('S21 a deviceSync awaits the last op of each stream of the device it names, whichever thread lane calls it', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s0 = b.lane({ kind: 'stream', name: 's0', device: 0 });
  const s1 = b.lane({ kind: 'stream', name: 's1', device: 1 });
  const l0 = b.call({ lane: host, kind: 'launch', begin: 0, end: 4, stream: s0 });
  const l1 = b.call({ lane: host, kind: 'launch', begin: 5, end: 9, stream: s1 });
  const k0 = b.op({ lane: s0, kind: 'kernel', start: 10, end: 900, call: l0, name: 'k0' });
  const k1 = b.op({ lane: s1, kind: 'kernel', start: 12, end: 100, call: l1, name: 'k1' });
  const sync1 = b.call({
    lane: host,
    kind: 'deviceSync',
    begin: 10,
    end: 104,
    device: 1,
    releasedBy: k1,
    blockedNs: 94,
  });
  const sync0 = b.call({ lane: host, kind: 'deviceSync', begin: 105, end: 904, releasedBy: k0, blockedNs: 799 });
  const bind = bindEvents(b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 }));
  const awaited = (c: number) => [...bind.awaits.ids.subarray(rowFirst(bind.awaits, c), rowEnd(bind.awaits, c))];
  assert.deepEqual(awaited(sync1), [k1]);
  assert.deepEqual(awaited(sync0), [k0]);
});

test('S21 a wait on one of several GPUs names the device it synchronized', () => {
  const { analysis } = run({
    streams: { s0: { nonBlocking: true }, s1: { nonBlocking: true, device: 1 } },
    steps: [
      { launch: 'long0', stream: 's0', ms: 1 },
      { launch: 'short1', stream: 's1', us: 50 },
      { deviceSync: 1 },
      { deviceSync: true },
    ],
  });
  assert.deepEqual(
    analysis.waits.map((w) => [w.target, w.releasedBy?.[0]?.name]),
    [
      ['device 1', 'short1'],
      ['device 0', 'long0'],
    ],
  );
});
