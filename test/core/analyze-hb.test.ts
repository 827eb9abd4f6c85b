import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, happensBefore, type NodeRef } from '../../core/analyze';
import { successors } from '../../core/analyze/graph';
import { TraceBuilder } from '../../core/trace/model';
import { opNamed, run, type ScenarioSpec } from './analyze-scenario';

const op = (id: number): NodeRef => ({ kind: 'op', id });

function hbOf(spec: ScenarioSpec) {
  const { trace } = run(spec);
  const hb = happensBefore(trace);
  const before = (a: string, b: string) => hb.before(op(opNamed(trace, a)), op(opNamed(trace, b)));
  return { trace, hb, before };
}

test('S1 stream order: an op happens before later ops of its stream, never the reverse', () => {
  const { before } = hbOf({
    steps: [
      { launch: 'a', stream: 's', us: 10 },
      { launch: 'b', stream: 's', us: 10 },
    ],
    streams: { s: {} },
  });
  assert.equal(before('a', 'b'), true);
  assert.equal(before('b', 'a'), false);
  assert.equal(before('a', 'a'), false);
});

test('S2 ops on two non-blocking streams are unordered', () => {
  const { before } = hbOf({
    streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true } },
    steps: [
      { launch: 'a', stream: 's1', us: 10 },
      { launch: 'b', stream: 's2', us: 10 },
    ],
  });
  assert.equal(before('a', 'b'), false);
  assert.equal(before('b', 'a'), false);
});

test('S3 legacy default stream orders work on blocking streams both ways; non-blocking streams stay out', () => {
  const steps = [
    { launch: 'side1', stream: 'side', us: 50 },
    { launch: 'legacy', us: 10 },
    { launch: 'side2', stream: 'side', us: 10 },
  ];
  const blocking = hbOf({ streams: { side: {} }, steps });
  assert.equal(blocking.before('side1', 'legacy'), true);
  assert.equal(blocking.before('legacy', 'side2'), true);
  const nonBlocking = hbOf({ streams: { side: { nonBlocking: true } }, steps });
  assert.equal(nonBlocking.before('side1', 'legacy'), false);
  assert.equal(nonBlocking.before('legacy', 'side2'), false);
  assert.equal(nonBlocking.before('side1', 'side2'), true);
});

test('S4 a per-thread default stream is ordered with the legacy stream only', () => {
  const { before } = hbOf({
    device: { perThreadDefaultStream: true },
    streams: { b: {} },
    steps: [
      { launch: 'ptds', us: 50 },
      { launch: 'blocking', stream: 'b', us: 10 },
      { launch: 'leg', stream: 'legacy', us: 10 },
    ],
  });
  assert.equal(before('ptds', 'blocking'), false);
  assert.equal(before('ptds', 'leg'), true);
  assert.equal(before('blocking', 'leg'), true);
});

test('S6 S8 a stream wait orders the recorded work before later work of the waiting stream', () => {
  const { before } = hbOf({
    streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'produce', stream: 's1', us: 100 },
      { record: 'e', stream: 's1' },
      { launch: 'after', stream: 's1', us: 10 },
      { launch: 'early', stream: 's2', us: 10 },
      { wait: 'e', stream: 's2' },
      { launch: 'consume', stream: 's2', us: 10 },
    ],
  });
  assert.equal(before('produce', 'consume'), true);
  assert.equal(before('after', 'consume'), false, 'work recorded after the event is not covered');
  assert.equal(before('produce', 'early'), false, 'work issued before the wait is not ordered');
});

test('S7 a stream wait keeps the record it bound to when the event is recorded again', () => {
  const { before } = hbOf({
    streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'k1', stream: 's1', us: 100 },
      { record: 'e', stream: 's1' },
      { wait: 'e', stream: 's2' },
      { launch: 'k2', stream: 's1', us: 100 },
      { record: 'e', stream: 's1' },
      { launch: 'consume', stream: 's2', us: 10 },
    ],
  });
  assert.equal(before('k1', 'consume'), true);
  assert.equal(before('k2', 'consume'), false);
});

for (const sync of [{ eventSync: 'e' }, { streamSync: 's1' }, { deviceSync: true }]) {
  const kind = Object.keys(sync)[0];
  const rule = { eventSync: 'S12', streamSync: 'S13', deviceSync: 'S14' }[kind];
  test(`${rule} a host ${kind} orders the awaited work before the thread's later launches`, () => {
    const spec = (withSync: boolean): ScenarioSpec => ({
      streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true } },
      events: { e: {} },
      steps: [
        { launch: 'k', stream: 's1', us: 100 },
        { record: 'e', stream: 's1' },
        ...(withSync ? [sync] : []),
        { launch: 'next', stream: 's2', us: 10 },
      ],
    });
    assert.equal(hbOf(spec(true)).before('k', 'next'), true);
    assert.equal(hbOf(spec(false)).before('k', 'next'), false);
  });
}

test('S12 an event synchronize on another thread orders that thread after the recorded work', () => {
  const { before } = hbOf({
    streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true } },
    events: { e: {} },
    threads: {
      producer: [
        { launch: 'produce', stream: 's1', us: 100 },
        { record: 'e', stream: 's1' },
      ],
      consumer: [{ hostWork: { us: 20 } }, { eventSync: 'e' }, { launch: 'consume', stream: 's2', us: 10 }],
    },
  });
  assert.equal(before('produce', 'consume'), true);
});

test("S10 a query that answered ready orders the record before the thread's later calls; notReady does not", () => {
  const spec = (waitUs: number): ScenarioSpec => ({
    streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'k', stream: 's1', us: 100 },
      { record: 'e', stream: 's1' },
      { hostWork: { us: waitUs } },
      { query: 'e' },
      { launch: 'next', stream: 's2', us: 10 },
    ],
  });
  assert.equal(hbOf(spec(300)).before('k', 'next'), true);
  assert.equal(hbOf(spec(1)).before('k', 'next'), false);
});

test('launch and host program order: a call happens before the op it launches and the calls after it', () => {
  const { trace, hb } = hbOf({
    streams: { s: { nonBlocking: true } },
    steps: [
      { launch: 'a', stream: 's', us: 10 },
      { launch: 'b', stream: 's', us: 10 },
    ],
  });
  const a = opNamed(trace, 'a');
  const launchA = trace.ops.call[a];
  const launchB = trace.ops.call[opNamed(trace, 'b')];
  assert.equal(hb.before({ kind: 'call', id: launchA }, op(a)), true);
  assert.equal(hb.before({ kind: 'call', id: launchA }, { kind: 'call', id: launchB }), true);
  assert.equal(hb.before(op(a), { kind: 'call', id: launchB }), false, 'a launch does not wait for earlier work');
});

test('cone: before and after sets agree with before() for every pair of nodes', () => {
  const { trace, hb } = hbOf({
    streams: { s1: { nonBlocking: true }, s2: {} },
    events: { e: {} },
    threads: {
      main: [
        { launch: 'a', stream: 's1', us: 50 },
        { record: 'e', stream: 's1' },
        { launch: 'b', stream: 's2', us: 20 },
        { wait: 'e', stream: 's2' },
        { launch: 'c', stream: 's2', us: 10 },
        { launch: 'd', us: 10 },
        { streamSync: 's2' },
        { launch: 'f', stream: 's1', us: 10 },
      ],
      other: [{ launch: 'g', stream: 's1', us: 5 }, { deviceSync: true }],
    },
  });
  const nodes: NodeRef[] = [
    ...Array.from({ length: trace.calls.count }, (_, id) => ({ kind: 'call' as const, id })),
    ...Array.from({ length: trace.ops.count }, (_, id) => ({ kind: 'op' as const, id })),
  ];
  let related = 0;
  for (const x of nodes) {
    const cone = hb.cone(x);
    const has = (set: { calls: Int32Array; ops: Int32Array }, n: NodeRef) =>
      (n.kind === 'call' ? set.calls : set.ops).includes(n.id);
    for (const y of nodes) {
      assert.equal(has(cone.before, y), hb.before(y, x), `before-cone of ${x.kind} ${x.id} and ${y.kind} ${y.id}`);
      assert.equal(has(cone.after, y), hb.before(x, y), `after-cone of ${x.kind} ${x.id} and ${y.kind} ${y.id}`);
      if (hb.before(x, y)) related++;
      if (hb.before(x, y)) assert.equal(hb.before(y, x), false, 'happens-before is antisymmetric');
    }
  }
  assert.ok(related > nodes.length, 'the scenario orders many pairs');

  // The clocks against plain reachability over the same graph (lane order plus cross-lane edges).
  const g = hb.graph;
  const { succStart, succ } = successors(g);
  const reach = (from: number): Set<number> => {
    const seen = new Set<number>();
    const stack = [from];
    while (stack.length) {
      const n = stack.pop()!;
      const next = [...succ.subarray(succStart[n], succStart[n + 1])];
      const k = g.laneStart[g.lane[n]] + g.seq[n];
      if (g.lane[n] >= 0 && k < g.laneStart[g.lane[n] + 1]) next.push(g.order[k]);
      for (const m of next)
        if (!seen.has(m)) {
          seen.add(m);
          stack.push(m);
        }
    }
    return seen;
  };
  for (let a = 0; a < g.nodes; a++) {
    const r = reach(a);
    for (let b = 0; b < g.nodes; b++) assert.equal(hb.beforeNode(a, b), r.has(b), `node ${a} before node ${b}`);
  }
});

test('edges that contradict each other (a cycle, as clock skew can make in an imported trace) still give an answer', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  const a = b.call({ lane: host, kind: 'launch', begin: 0, end: 10, stream: s });
  const c = b.call({ lane: host, kind: 'launch', begin: 20, end: 30, stream: s });
  const x = b.op({ lane: s, kind: 'kernel', start: 40, end: 50, call: a });
  const y = b.op({ lane: s, kind: 'kernel', start: 60, end: 70, call: c });
  b.edge('release', y, a); // y cannot both follow c and release a, which precedes c
  const t = b.finish({ source: 'pytorch', clock: 'host', alignmentErrorNs: 0 });
  const hb = happensBefore(t);
  assert.equal(hb.before({ kind: 'call', id: a }, { kind: 'call', id: c }), true);
  assert.equal(hb.before(op(x), op(y)), true);
  assert.equal(analyze(t).waits.length, 0);
});
