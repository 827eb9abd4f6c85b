// Simulator cases the rule-per-test file does not reach: waits issued after a re-record (S7), a
// launch queue filled by host functions and memsets (S19), a kernel's own latency over its waves,
// and elapsed time on an event that was never recorded (S9, S11).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200 } from '../../core/simulate';
import { str } from '../../core/trace';
import { run } from './analyze-scenario';
import { calls, end, hasEdge, op, sim, start } from './simulate-helpers';

test('S7 a wait issued after a re-record binds to the new record; one issued before keeps the old one', () => {
  const t = sim({
    streams: { p: { nonBlocking: true }, c1: { nonBlocking: true }, c2: { nonBlocking: true } },
    events: { e: {} },
    steps: [
      { launch: 'first', stream: 'p', us: 50 },
      { record: 'e', stream: 'p' },
      { wait: 'e', stream: 'c1' },
      { launch: 'second', stream: 'p', us: 500 },
      { record: 'e', stream: 'p' },
      { wait: 'e', stream: 'c2' },
      { launch: 'early', stream: 'c1', us: 10 },
      { launch: 'late', stream: 'c2', us: 10 },
      { eventSync: 'e' },
    ],
  });
  const [rec1, rec2] = [op(t, 'record e', 0), op(t, 'record e', 1)];
  const [w1, w2] = [op(t, 'wait e', 0), op(t, 'wait e', 1)];
  assert.ok(hasEdge(t, 'event', rec1, w1) && !hasEdge(t, 'event', rec2, w1));
  assert.ok(hasEdge(t, 'event', rec2, w2) && !hasEdge(t, 'event', rec1, w2));
  const second = op(t, 'second');
  assert.equal(start(t, op(t, 'early')), end(t, op(t, 'first')), 'early waited for the first record only');
  assert.equal(start(t, op(t, 'late')), end(t, second), 'late waited for the re-record');
  // The synchronize, issued after the re-record too, is released by the work the new record captured.
  assert.equal(t.calls.releasedBy[calls(t, 'eventSync')[0]], second);
});

test('S19 host functions and memsets take launch-queue entries like kernels do', () => {
  const half = (h200.queueDepth - 1) / 2; // 1021 = 510 host functions + 511 memsets
  assert.equal(half, 510);
  const t = sim({
    streams: { s: { nonBlocking: true } },
    buffers: { d: { bytes: 64 } },
    steps: [
      { launch: 'long', stream: 's', ms: 30 },
      { repeat: half, steps: [{ hostFunc: 'fn', stream: 's', us: 0 }] },
      { repeat: half + 1, steps: [{ memset: 'd', async: true, stream: 's' }] },
      { launch: 'last', stream: 's', us: 1 },
    ],
  });
  const blocked = [...Array(t.calls.count).keys()].filter((c) => t.calls.blockedNs[c] > 0);
  const last = calls(t, 'launch')[1];
  assert.deepEqual(blocked, [last], 'only the launch that found 1021 entries queued');
  const long = op(t, 'long');
  assert.equal(t.calls.releasedBy[last], long);
  assert.equal(t.calls.begin[last] + t.calls.blockedNs[last], end(t, long));
});

test("S19 a CUDA graph launch's further nodes cost the host no call and take no launch-queue entry", () => {
  const graph = [
    { launch: 'first', stream: 's', us: 1 },
    { repeat: 1500, steps: [{ launch: 'node', stream: 's', us: 1, graphNode: true }] },
  ];
  const t = sim({
    streams: { s: { nonBlocking: true } },
    steps: [
      { launch: 'long', stream: 's', ms: 20 },
      { repeat: 3, steps: graph },
      { launch: 'after', stream: 's', us: 1 },
    ],
  });
  const launches = calls(t, 'launch');
  // 4503 kernels queued behind the long one, past the queue's 1021 entries: none blocked.
  assert.deepEqual(
    launches.filter((c) => t.calls.blockedNs[c] > 0),
    [],
  );
  // Only the long kernel's, each graph's first node's and the last launch take the host's time.
  const paid = launches.filter((c) => t.calls.end[c] > t.calls.begin[c]);
  assert.equal(paid.length, 1 + 3 + 1);
  const after = launches[launches.length - 1];
  assert.equal(
    t.calls.begin[after],
    t.calls.end[paid[3]],
    'the last graph launched no further call after its first node',
  );
});

test("a kernel's own latency (kernelOverheadNs) is paid once, by its first blocks, not by every wave", () => {
  const slots = h200.sms * h200.blocksPerSm;
  const t = sim({
    streams: { s: { nonBlocking: true } },
    steps: [
      { launch: 'three', stream: 's', us: 100, grid: 3 * slots, block: 32 },
      { launch: 'one', stream: 's', us: 100, grid: 1 },
    ],
  });
  // Three waves of 100 us and 2.6 us once: 302.6 us (not 3 x 102.6); a one-block kernel 102.6 us.
  assert.equal(end(t, op(t, 'three')) - start(t, op(t, 'three')), 302_600);
  assert.equal(end(t, op(t, 'one')) - start(t, op(t, 'one')), 102_600);
});

test("a launch's latencyNs takes the place of the profile's kernel latency: queued kernels follow each other that much sooner", () => {
  const t = sim({
    streams: { s: { nonBlocking: true } },
    steps: [
      { launch: 'ahead', stream: 's', us: 200 },
      { launch: 'node', stream: 's', ns: 1500, latencyNs: 0 },
      { launch: 'next', stream: 's', ns: 1500, latencyNs: 300 },
      { launch: 'lone', stream: 's', ns: 1500 },
    ],
  });
  // All three queued behind the 200 us kernel: 1.5 us with none, 1.8 us with 0.3, 4.1 us with the profile's 2.6.
  assert.equal(end(t, op(t, 'node')) - start(t, op(t, 'node')), 1500);
  assert.equal(start(t, op(t, 'next')), end(t, op(t, 'node')));
  assert.equal(end(t, op(t, 'next')) - start(t, op(t, 'next')), 1800);
  assert.equal(end(t, op(t, 'lone')) - start(t, op(t, 'lone')), 1500 + h200.kernelOverheadNs);
});

test('S11 elapsed time on a never-recorded event is an error, nothing is measured, and the analysis says so', () => {
  const { trace: t, analysis } = run({
    streams: { s: {} },
    events: { a: { timing: true }, never: { timing: true } },
    steps: [
      { record: 'a', stream: 's' },
      { launch: 'k', stream: 's', us: 10 },
      { deviceSync: true },
      { elapsed: ['a', 'never'] },
      { elapsed: ['never', 'a'] },
    ],
  });
  const found = analysis.findings.filter((f) => f.kind === 'elapsed-unrecorded');
  assert.deepEqual(
    found.map((f) => [f.rule, f.severity, f.calls]),
    calls(t, 'elapsed').map((c) => ['S11', 'error', [c]]),
  );
  assert.match(
    found[0].message,
    /^elapsed time from "a" to "never" \(line \d+\) reads "never" before it was ever recorded/,
  );
  // Once both are recorded, there is nothing to say.
  const fine = run({
    streams: { s: {} },
    events: { a: { timing: true }, b: { timing: true } },
    steps: [{ record: 'a', stream: 's' }, { record: 'b', stream: 's' }, { eventSync: 'b' }, { elapsed: ['a', 'b'] }],
  });
  assert.deepEqual(
    fine.analysis.findings.filter((f) => f.kind === 'elapsed-unrecorded'),
    [],
  );
  for (const c of calls(t, 'elapsed')) {
    assert.equal(str(t, t.calls.status[c]), 'cudaErrorInvalidResourceHandle');
    assert.equal(t.calls.answer[c], 3); // error
    assert.ok(Number.isNaN(t.calls.value[c]));
  }
});
