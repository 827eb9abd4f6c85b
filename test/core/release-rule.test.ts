// The release rule (S16) on hand-built traces, so that a bug in it cannot hide behind producers
// that all share it. Every expected op and latency below is read off the trace by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RELEASED_NONE, TraceBuilder, type OpKind } from '../../core/trace/model';
import { ReleaseRule } from '../../core/trace/release';
import { loadProfile } from '../../core/simulate';
import { run, type ScenarioSpec } from './analyze-scenario';
import { calls, op as opNamed, sim } from './simulate-helpers';

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
  assert.equal(rule.releasingOp([done], 40), RELEASED_NONE, 'ended exactly as the wait began: not pending');
  assert.equal(rule.releasingOp([done], 39), done);
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

test('S16 the marker walk: through stream and event edges and a chain of markers, the latest-ending op, ties to the later-issued', () => {
  const { b, add } = setup();
  const kA = add('kernel', 0, 0, 400); // s0, issued first
  const kB = add('kernel', 1, 0, 400); // s1, issued second: ties with kA
  const kC = add('kernel', 2, 0, 300); // s2, ends earlier
  const rA = add('eventRecord', 0, 400, 400, [['stream', kA]]);
  const rB = add('eventRecord', 1, 400, 400, [['stream', kB]]);
  // On s2: a wait bound to rA behind kC, a wait bound to rB behind that, and a record behind both.
  const wA = add('waitEvent', 2, 400, 400, [
    ['stream', kC],
    ['event', rA],
  ]);
  const wB = add('waitEvent', 2, 400, 400, [
    ['stream', wA],
    ['event', rB],
  ]);
  const r = add('eventRecord', 2, 400, 400, [['stream', wB]]);
  const rule = new ReleaseRule(b);
  // Behind r: kA, kB (both end at 400) and kC (300). kB was issued after kA.
  assert.equal(rule.named(r, 0), kB);
  assert.equal(rule.releasingOp([r], 0), kB);
  assert.equal(rule.named(wA, 0), kA, 'behind wA only kA and kC');
  assert.equal(rule.named(r, 350), kB, 'kC had ended by 350, which changes nothing');
  assert.equal(rule.named(wA, 300), kA);
  assert.equal(rule.named(r, 400), r, 'all of it had ended: the marker stands for itself');
  assert.equal(rule.named(kC, 1000), kC, 'a real op names itself, pending or not');
});

// The launch-queue tests below read their times off the h200 profile by hand (ns): a thread's first
// call pays coldCallNs 500; a launch costs 5000 onto an idle stream and 3900 onto a busy one, a
// record without timing 250, a stream wait 90; the GPU may start an op submitNs 1000 after its
// call returns; a kernel lasts its time plus kernelOverheadNs 2600.

test('S19 S16 in the simulator: a launch let go as a wait marker completed names the work behind it, through event edges, ties to the later-issued', () => {
  // Launch queues of 3 entries, one per stream; kernels and records take entries, stream waits none.
  //   K on a          call 0..5500,        runs 6500..109100
  //   record e, a     call 5500..5750,     completes with K at 109100; both waits for it too
  //   wait e on b, c  calls 5750..5840 and 5840..5930
  //   x on b, y on c  calls 5930..9830 and 9830..13730, both start at 109100 and end at 121700
  //   record f, c     call 13730..13980, completes with y at 121700
  //   wait f, b       call 13980..14070, completes with x and record f at 121700
  //   q1, q2 on b     calls 14070..17970..21870, queued behind wait f: x, q1 and q2 fill b's queue
  //   q3 on b         begins at 21870, let go at 109100 when x starts, just after the markers for
  //                   K completed: it names K, through wait e and record e
  //   q4 on b         begins at 113000 (b's queue holds q1, q2 and q3), let go at 121700 when q1
  //                   starts, just after wait f completed: behind it, x and (through record f) y,
  //                   which ended together; y was issued later
  const t = sim(
    {
      streams: { a: { nonBlocking: true }, b: { nonBlocking: true }, c: { nonBlocking: true } },
      events: { e: {}, f: {} },
      steps: [
        { launch: 'K', stream: 'a', us: 100 },
        { record: 'e', stream: 'a' },
        { wait: 'e', stream: 'b' },
        { wait: 'e', stream: 'c' },
        { launch: 'x', stream: 'b', us: 10 },
        { launch: 'y', stream: 'c', us: 10 },
        { record: 'f', stream: 'c' },
        { wait: 'f', stream: 'b' },
        { launch: 'q1', stream: 'b', us: 1 },
        { launch: 'q2', stream: 'b', us: 1 },
        { launch: 'q3', stream: 'b', us: 1 },
        { launch: 'q4', stream: 'b', us: 1 },
      ],
    },
    loadProfile({ queueDepth: 3 }),
  );
  const [q3, q4] = [calls(t, 'launch')[5], calls(t, 'launch')[6]];
  const row = (c: number) => [t.calls.begin[c], t.calls.end[c], t.calls.blockedNs[c], t.calls.unblockNs[c]];
  assert.deepEqual(row(q3), [21_870, 113_000, 109_100 - 21_870, 3900]);
  assert.equal(t.calls.releasedBy[q3], opNamed(t, 'K'));
  assert.deepEqual(row(q4), [113_000, 125_600, 121_700 - 113_000, 3900]);
  assert.deepEqual([t.ops.end[opNamed(t, 'x')], t.ops.end[opNamed(t, 'y')]], [121_700, 121_700]);
  assert.equal(t.calls.releasedBy[q4], opNamed(t, 'y'));
});

test('S19 S16 in the simulator: a marker stands for the work that completed with it, and for itself when it completed later', () => {
  // Launch queues of 2 entries. "k" (a, 1 µs) runs 6500..10100; "big" (c, two waves of 4224
  // one-slot blocks) holds every SM slot until its first wave ends; q1 and q2 on b, behind a wait
  // for a record of e after k, fill the queue; q3 then waits until q1, on the higher-priority
  // stream, takes a slot as that wave ends. The op that completed last before then is the wait.
  const run = (recordFirst: boolean) => {
    const marks = [
      { record: 'e', stream: 'a' },
      { wait: 'e', stream: 'b' },
    ];
    const big = { launch: 'big', stream: 'c', us: 50, grid: 8448, block: 32 };
    const t = sim(
      {
        streams: { a: { nonBlocking: true }, b: { nonBlocking: true, priority: -1 }, c: { nonBlocking: true } },
        events: { e: {} },
        steps: [
          { launch: 'k', stream: 'a', us: 1, block: 32 },
          ...(recordFirst ? [...marks, big] : [big, ...marks]),
          { launch: 'q1', stream: 'b', us: 1, block: 32 },
          { launch: 'q2', stream: 'b', us: 1, block: 32 },
          { launch: 'q3', stream: 'b', us: 1, block: 32 },
        ],
      },
      loadProfile({ queueDepth: 2 }),
    );
    const q3 = calls(t, 'launch')[4];
    const wait = opNamed(t, 'wait e');
    return {
      t,
      q3: [t.calls.begin[q3], t.calls.end[q3], t.calls.blockedNs[q3], t.calls.releasedBy[q3], t.calls.unblockNs[q3]],
      wait: [t.ops.end[opNamed(t, 'record e')], t.ops.end[wait], wait],
    };
  };
  // Record (5500..5750) and wait (5750..5840) issued while k runs: both complete with k at 10100.
  // big's call 5840..10840, its first wave 11840..64440; q1 10840..15840 (b idle), q2 ..19740.
  const early = run(true);
  assert.deepEqual(early.wait.slice(0, 2), [10_100, 10_100]);
  assert.deepEqual(early.q3, [19_740, 68_340, 64_440 - 19_740, opNamed(early.t, 'k'), 68_340 - 10_100]);
  // big's call first (5500..10500, first wave 11500..64100); the record (10500..10750) completes at
  // 11750 and the wait (10750..10840) at 11840, as submitted, after k had ended: the wait names
  // itself. q1 10840..14740, q2 ..18640.
  const late = run(false);
  assert.deepEqual(late.wait.slice(0, 2), [11_750, 11_840]);
  assert.deepEqual(late.q3, [18_640, 68_000, 64_100 - 18_640, late.wait[2], 68_000 - 11_840]);
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
