// The release rule (S16) on hand-built traces, so that a bug in it cannot hide behind producers
// that all share it. Every expected op and latency below is read off the trace by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RELEASED_NONE, TraceBuilder, type OpKind } from '../../core/trace/model';
import { ReleaseRule } from '../../core/trace/release';
import { run, type ScenarioSpec } from './analyze-scenario';
import { op as opNamed } from './simulate-helpers';

/** A builder with one host thread and streams s0..s2, and a helper that adds an op with its launch. */
function setup() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = [0, 1, 2].map((i) => b.lane({ kind: 'stream', name: `s${i}`, device: 0 }));
  let at = 0;
  /** Adds the op and its launch edge, then its ordering edges, in the order ReleaseRule expects. */
  const add = (kind: OpKind, lane: number, start: number, end: number, after: [string, number][] = []) => {
    const call = b.call({ lane: host, kind: 'launch', begin: at, end: at + 1 });
    at += 2;
    const o = b.op({ lane: s[lane], kind, start, end, call });
    b.edge('launch', call, o);
    for (const [kind, from] of after) b.edge(kind as 'stream', from, o);
    return o;
  };
  const wait = (begin: number, end: number) => b.call({ lane: host, kind: 'streamSync', begin, end });
  return { b, add, wait };
}

test('S16: of several pending ops, the one that completed last releases the wait', () => {
  const { b, add, wait } = setup();
  const done = add('kernel', 0, 0, 40); // completed before the wait began: not pending
  const k1 = add('kernel', 0, 40, 100);
  const k2 = add('kernel', 1, 0, 300);
  const k3 = add('kernel', 2, 0, 200);
  const call = wait(50, 310);
  const rule = new ReleaseRule(b);
  assert.equal(rule.release(call, [done, k1, k2, k3]), k2);
  assert.equal(b.calls.cols.releasedBy[call], k2);
  assert.equal(b.calls.cols.unblockNs[call], 10); // 310 - 300
  // The order of the list does not matter, and neither does an op that ended before the wait.
  assert.equal(rule.releasingOp([k2, k3, k1, done], 50), k2);
  assert.equal(rule.releasingOp([k3, k1], 50), k3);
  assert.equal(rule.releasingOp([done], 50), RELEASED_NONE);
  // Only `count` entries are read.
  assert.equal(rule.releasingOp([k1, k3, k2], 50, 2), k3);
});

test('S16: a tie goes to a real op over a marker, then to the op issued later', () => {
  const { b, add } = setup();
  const k1 = add('kernel', 0, 0, 100);
  const k2 = add('kernel', 1, 0, 100);
  const r = add('eventRecord', 2, 100, 100); // nothing behind it: it stands for itself
  const rule = new ReleaseRule(b);
  assert.equal(rule.releasingOp([k1, k2], 0), k2);
  assert.equal(rule.releasingOp([k2, k1], 0), k2);
  assert.equal(rule.releasingOp([r, k1], 0), k1);
  assert.equal(rule.releasingOp([k1, r], 0), k1);
});

test('S16: a marker is followed back to the real op behind it that completed last, not the first or earliest', () => {
  const { b, add, wait } = setup();
  const early = add('kernel', 1, 0, 200); // on s1, ends first
  const late = add('kernel', 0, 0, 500); // on s0, ends last
  // A record on s1 behind `early`, with a legacy edge from `late` (as on a legacy stream): the
  // earlier-ending predecessor is listed first.
  const r = add('eventRecord', 1, 500, 500, [
    ['stream', early],
    ['legacy', late],
  ]);
  const call = wait(10, 520);
  const rule = new ReleaseRule(b);
  assert.equal(rule.release(call, [r]), late);
  assert.equal(b.calls.cols.unblockNs[call], 20); // 520 - 500
  assert.equal(rule.releasingOp([r], 300), late, 'still pending at 300');
  // Once `early` had ended when the wait began, only `late` counts; once both had, the marker stands.
  assert.equal(rule.releasingOp([r], 600), RELEASED_NONE);
});

test('S16: through a wait marker and the record it bound to, to the work that record captured', () => {
  const { b, add } = setup();
  const k0 = add('kernel', 0, 0, 700); // what the record on s0 captured
  const k2 = add('kernel', 2, 0, 300); // the wait marker's own stream predecessor on s2
  const r = add('eventRecord', 0, 700, 700, [['stream', k0]]);
  const w = add('waitEvent', 2, 700, 700, [
    ['stream', k2],
    ['event', r],
  ]);
  const rule = new ReleaseRule(b);
  assert.equal(rule.releasingOp([w], 0), k0);
  // A marker whose captured work had all ended before the wait began stands for itself.
  const r2 = add('eventRecord', 1, 800, 800);
  const w2 = add('waitEvent', 1, 800, 800, [['stream', r2]]);
  assert.equal(rule.releasingOp([w2], 750), w2);
});

test('S16 in the simulator: event.record(s); event.synchronize() is released by the latest kernel captured', () => {
  const spec: ScenarioSpec = {
    streams: { a: {}, b: {} },
    events: { e: {} },
    steps: [
      { launch: 'long', stream: 'a', us: 500 },
      { launch: 'short', stream: 'b', us: 100 },
      { record: 'e', stream: 'b' },
      { wait: 'e', stream: 'a' },
      { record: 'e', stream: 'a' },
      { eventSync: 'e' },
    ],
  };
  const { trace } = run(spec);
  const syncs = [...Array(trace.calls.count).keys()].filter((i) => trace.calls.releasedBy[i] >= 0);
  assert.deepEqual(
    syncs.map((i) => trace.calls.releasedBy[i]),
    [opNamed(trace, 'long')],
  );
});

test('S3 serialization names the blocker that ended last, not the first one listed', () => {
  const { analysis, trace } = run({
    streams: { a: {}, b: {} },
    steps: [
      { launch: 'short', stream: 'a', us: 100 },
      { launch: 'long', stream: 'b', us: 500 },
      { launch: 'quick', us: 10 },
    ],
  });
  const found = analysis.findings.filter((f) => f.kind === 'legacy-serialization');
  assert.equal(found.length, 1);
  assert.deepEqual(found[0].ops, [opNamed(trace, 'quick'), opNamed(trace, 'long')]);
  assert.match(
    found[0].message,
    /^"quick" on the legacy default stream \(line 5\) waited 499 µs for "long" on blocking stream b \(line 4\)/,
  );
});
