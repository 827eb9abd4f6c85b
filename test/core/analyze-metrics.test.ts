import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { TraceBuilder } from '../../core/trace/model';
import { opNamed, run } from './analyze-scenario';

function handMade() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s1 = b.lane({ kind: 'stream', name: 's1', device: 0, nonBlocking: true });
  const s2 = b.lane({ kind: 'stream', name: 's2', device: 0, nonBlocking: true });
  const l1 = b.call({ lane: host, kind: 'launch', begin: 0, end: 10, stream: s1 });
  const l2 = b.call({ lane: host, kind: 'launch', begin: 10, end: 20, stream: s2 });
  const k1 = b.op({ lane: s1, kind: 'kernel', name: 'k1', start: 20, end: 120, call: l1 });
  const k2 = b.op({ lane: s2, kind: 'kernel', name: 'k2', start: 70, end: 170, call: l2 });
  const sync = b.call({
    lane: host,
    kind: 'deviceSync',
    begin: 20,
    end: 200,
    blockedNs: 180,
    releasedBy: k2,
    unblockNs: 30,
  });
  b.edge('launch', l1, k1);
  b.edge('launch', l2, k2);
  b.edge('release', k2, sync);
  return {
    trace: b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 }),
    ids: { l1, l2, k1, k2, sync },
  };
}

test("metrics: host blocked, GPU busy per stream and for the device, and overlap, from the ops' intervals", () => {
  const { trace } = handMade();
  const m = analyze(trace).metrics;
  const wall = 200; // calls and ops span 0..200
  assert.equal(m.wallNs, wall);
  assert.equal(m.hostBlockedPct, (100 * 180) / wall);
  assert.equal(m.gpuBusyPct, (100 * (170 - 20)) / wall); // union of [20,120] and [70,170]
  assert.equal(m.overlapPct, (100 * (120 - 70)) / (170 - 20));
  assert.deepEqual(m.perStream, [
    { stream: 's1', busyPct: 50 },
    { stream: 's2', busyPct: 50 },
  ]);
});

test('critical path: from the last thing to finish back through the latest-finishing predecessor', () => {
  const { trace, ids } = handMade();
  const path = analyze(trace).metrics.criticalPath;
  assert.deepEqual(
    path.map((p) => `${p.kind} ${p.id}`),
    [`call ${ids.l1}`, `call ${ids.l2}`, `op ${ids.k2}`, `call ${ids.sync}`],
  );
});

test('critical path of a simulated run ends at the last wait and runs through the kernel that released it', () => {
  const { analysis, trace } = run({
    streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'a', stream: 's1', us: 300 },
      { record: 'e', stream: 's1' },
      { wait: 'e', stream: 's2' },
      { launch: 'b', stream: 's2', us: 200 },
      { launch: 'side', stream: 's1', us: 10 },
      { deviceSync: true },
    ],
  });
  const path = analysis.metrics.criticalPath;
  const names = path.filter((p) => p.kind === 'op').map((p) => p.name);
  assert.deepEqual(
    names.filter((n) => !n.startsWith('record') && !n.startsWith('wait')),
    ['a (s1)', 'b (s2)'],
  );
  assert.equal(path[path.length - 1].name, 'cudaDeviceSynchronize');
  for (let k = 1; k < path.length; k++)
    assert.ok(path[k - 1].endNs <= path[k].endNs, 'each step finishes no later than the next');
  assert.equal(
    path.find((p) => p.kind === 'op' && p.id === opNamed(trace, 'side')),
    undefined,
  );
  assert.ok(analysis.metrics.overlapPct < 5, 'b waits for a: hardly any overlap');
});
