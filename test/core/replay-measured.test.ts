// The replay runs what the trace measured (docs/whatif.md): the simulator's profile only for what the
// trace does not say. Each test is a small trace written here, its values read by hand: the host's
// calls charged as the simulator charges them, a call's time before it submitted its work, the time
// an op started after it could have, work launched before the trace's first call, and a wait's
// return after its releasing op.
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import assert from 'node:assert/strict';
import { compileScenario } from '../../core/scenario/parse';
import { h200, simulate } from '../../core/simulate';
import { RELEASED_UNKNOWN, str, TraceBuilder, type Trace } from '../../core/trace/model';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { replay, type Replay } from '../../core/whatif/replay';
import { parseTrace } from '../../core/trace/json';
import { repoPath } from '../helpers/paths';

const US = 1000;
const capture = (b: TraceBuilder): Trace => b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });

/** The replay's simulated call for each step of the scenario's only thread that stands for trace call `call`. */
function simCalls(r: Replay, call: number): number[] {
  const steps = [...r.scenario.threads.values()][0].filter((s) => Object.keys(s.step).length);
  const out: number[] = [];
  for (let i = 0; i < r.simulated.calls.count; i++) if (steps[r.simulated.calls.step[i]]?.call === call) out.push(i);
  return out;
}

/** The replay's op for trace op `op`. */
function simOp(r: Replay, op: number): number {
  const steps = [...r.scenario.threads.values()][0].filter((s) => Object.keys(s.step).length);
  for (let j = 0; j < r.simulated.ops.count; j++) {
    const c = r.simulated.ops.call[j];
    if (c >= 0 && steps[r.simulated.calls.step[c]]?.op === op) return j;
  }
  throw new Error(`op ${op} has no op in the replay`);
}

test("a simulated trace replays to the nanosecond: each call is charged as the simulator charged it (a thread's first call, idle and queued launches, the first copy each way)", () => {
  const t = simulate(
    compileScenario(
      JSON.stringify({
        name: 'charges',
        streams: { s: { nonBlocking: true } },
        buffers: { h: { bytes: 4096, host: 'pinned' }, d: { bytes: 4096 } },
        steps: [
          { launch: 'first', stream: 's', us: 50 },
          { launch: 'queued', stream: 's', us: 50 },
          { copy: 'h', to: 'd', bytes: 4096, async: true, stream: 's' },
          { streamSync: 's' },
          { hostWork: { us: 30 } },
          { launch: 'idle', stream: 's', us: 20 },
          { hostWork: { us: 10 } },
          { copy: 'd', to: 'h', bytes: 4096, async: true, stream: 's' },
          { streamSync: 's' },
        ],
      }),
      'charges.scenario.json',
    ),
    h200,
  );
  // The simulator charged the first launch 0.5 us (cold) and 5 us (idle), the second 3.9 us (queued),
  // the launch after the synchronize 5 us again, and each copy 2 us and its direction's first 1.5 us.
  const call = (i: number) => t.calls.end[i] - t.calls.begin[i];
  assert.deepEqual([0, 1, 5].map(call), [5500, 3900, 5000]);
  assert.equal(call(2), 3500);
  const r = replay(t, h200);
  for (let i = 0; i < t.calls.count; i++) {
    if (str(t, t.calls.name[i]) === 'hostWork') continue;
    const [first] = simCalls(r, i);
    assert.equal(r.simulated.calls.begin[first] - r.simulated.calls.begin[0], t.calls.begin[i], `call ${i} begins`);
    assert.equal(r.simulated.calls.end[first] - r.simulated.calls.begin[0], t.calls.end[i], `call ${i} ends`);
  }
  for (const w of r.waits) assert.equal(w.replayedNs, w.measuredNs, `call ${w.call}`);
});

/**
 * Three iterations of an async pinned copy whose call took 35 us on an idle stream, its 300 us copy
 * starting 36 us after the call began, then a stream synchronize at 40 us that returned 5 us after
 * the copy ended; each iteration 400 us.
 */
function lateSubmits(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0, nonBlocking: true, handle: 7 });
  for (let k = 0; k < 3; k++) {
    const at = k * 400 * US;
    const c = b.call({ lane: host, kind: 'memcpy', begin: at, end: at + 35 * US, stream: s, name: 'cudaMemcpyAsync' });
    const op = b.op({
      lane: s,
      kind: 'memcpy',
      start: at + 36 * US,
      end: at + 336 * US,
      call: c,
      copy: 'HtoD',
      bytes: 1 << 20,
      hostMemory: 'pinned',
    });
    b.call({
      lane: host,
      kind: 'streamSync',
      begin: at + 40 * US,
      end: at + 341 * US,
      stream: s,
      name: 'cudaStreamSynchronize',
      blockedNs: 301 * US,
      releasedBy: op,
      unblockNs: 5 * US,
    });
  }
  return capture(b);
}

test('a call that ran long before it submitted its work: host work before its step, so that the work starts when it did, counted as the call', () => {
  const t = lateSubmits();
  const g = scenarioFromTrace(t, h200);
  const steps = g.threads.get('main')!;
  // The first call costs the model's 0.5 us (its thread's first call: the first copy to the device
  // costs nothing more then) and 2 us for the copy, 2.5 us of its 35; the copy started 36 us after
  // the call began, later than the submit (1 us) after them allows: the call's other 32.5 us came
  // before it submitted the copy, which runs the 300 us it took.
  assert.deepEqual(steps[0], {
    step: { hostWork: { ns: 32.5 * US } },
    call: -1,
    partOf: 0,
    note: "call 0's own time before it submitted its work (its work started that late on a free stream)",
  });
  assert.equal(steps[1].step.ns, 300 * US);
  // The later calls cost the model's 2 us: 33 us before (36 - 1 - 2).
  const later = steps.filter((s) => s.partOf === 2 || s.partOf === 4);
  assert.deepEqual(
    later.map((s) => s.step),
    [{ hostWork: { ns: 33 * US } }, { hostWork: { ns: 33 * US } }],
  );
  const r = replay(t, h200);
  // Each copy starts 36 us after its call began, as in the trace.
  for (const [call, op] of [
    [0, 0],
    [2, 1],
    [4, 2],
  ]) {
    const o = simOp(r, op);
    const sync = simCalls(r, call + 1)[0];
    assert.equal(r.simulated.ops.end[o] - r.simulated.ops.start[o], 300 * US);
    assert.equal(
      r.simulated.calls.begin[sync] - r.simulated.ops.start[o],
      4 * US,
      `copy ${op} starts 4 us before the sync`,
    );
  }
  // Each iteration is as long as the trace's: its first call begins with the host work before its step.
  assert.equal(r.iterations.length, 3);
  for (const it of r.iterations) assert.ok(Math.abs(it.error) < 0.001, `${it.label}: ${it.error}`);
  for (const w of r.waits) assert.ok(Math.abs(w.replayedNs - 301 * US) < 2 * US, `call ${w.call}: ${w.replayedNs}`);
});

/**
 * Ten 20 us kernels launched 5 us apart (each call 4 us), queued on their stream: the GPU started
 * each 1.5 us after the one before ended. Then a stream synchronize that returned 3.6 us after the
 * last ended. With `other`, an op of another stream ran in the time it gives (us).
 */
function backlog(other?: { kind: 'kernel' | 'memcpy'; from: number; to: number }): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0, nonBlocking: true, handle: 7 });
  let k = -1;
  for (let n = 0; n < 10; n++) {
    const c = b.call({ lane: host, kind: 'launch', begin: n * 5 * US, end: n * 5 * US + 4 * US, stream: s });
    const start = 10 * US + n * 21.5 * US;
    k = b.op({ lane: s, kind: 'kernel', start, end: start + 20 * US, call: c, name: 'k' });
  }
  if (other) {
    const s2 = b.lane({ kind: 'stream', name: 'stream 8', device: 0, nonBlocking: true, handle: 8 });
    const c = b.call({
      lane: host,
      kind: other.kind === 'kernel' ? 'launch' : 'memcpy',
      begin: 51 * US,
      end: 55 * US,
      stream: s2,
    });
    const op = { lane: s2, start: other.from * US, end: other.to * US, call: c, name: 'other' };
    if (other.kind === 'kernel') b.op({ ...op, kind: 'kernel' });
    else b.op({ ...op, kind: 'memcpy', copy: 'HtoD', bytes: 1 << 20 });
  }
  // The last kernel ends at 10 + 9 x 21.5 + 20 = 223.5 us.
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 60 * US,
    end: 227.1 * US,
    stream: s,
    blockedNs: 167.1 * US,
    releasedBy: k,
    unblockNs: 3.6 * US,
  });
  return capture(b);
}

test('queued work starts a little after the op before it ended: each op runs that much longer, so the replay ends it when the trace did', () => {
  const t = backlog();
  const g = scenarioFromTrace(t, h200);
  const kernels = g.threads.get('main')!.filter((s) => 'launch' in s.step);
  // The first starts 10 us after its launch began (cold 0.5 + idle 5 + submit 1 us allow 6.5: 3.5 us
  // late); each later one 1.5 us after the one before; every one less the profile's 2.6 us kernel overhead.
  assert.deepEqual(
    kernels.map((s) => s.step.ns),
    [20 * US + 3.5 * US - 2600, ...Array(9).fill(20 * US + 1.5 * US - 2600)],
  );
  const r = replay(t, h200);
  const [w] = r.waits;
  assert.equal(w.measuredBy, 9);
  assert.equal(w.replayedBy, 9);
  // The kernels' durations are fitted to what the scenario gave them, not back to their 20 us.
  assert.ok(Math.abs(w.replayedNs - 167.1 * US) < 200, `replayed ${w.replayedNs}`);
  assert.equal(r.simulated.ops.end[simOp(r, 9)] - r.simulated.calls.begin[0], 223.5 * US);
});

test("no lead is taken where another stream's kernel ran in it: the op may have waited for SMs, which the scenario models", () => {
  const g = scenarioFromTrace(backlog({ kind: 'kernel', from: 30, to: 60 }), h200);
  const kernels = g.threads.get('main')!.filter((s) => s.op !== undefined && s.op < 10);
  // The other stream's kernel ran from 30 to 60 us: the gaps before the kernels that started at
  // 31.5 and 53 us fall in it; the first kernel's lead (from 6.5 to 10 us) and the later gaps do not.
  assert.deepEqual(
    kernels.map((s) => (s.step.ns as number) + 2600 - 20 * US),
    [3.5 * US, 0, 0, 1.5 * US, 1.5 * US, 1.5 * US, 1.5 * US, 1.5 * US, 1.5 * US, 1.5 * US],
  );
});

test("another stream's copy takes no lead away where it ran through the gap, only where it ended in it: the op may have been ordered after it", () => {
  const leads = (t: Trace) =>
    scenarioFromTrace(t, h200)
      .threads.get('main')!
      .filter((s) => s.op !== undefined && s.op < 10)
      .map((s) => (s.step.ns as number) + 2600 - 20 * US);
  // A copy from 30 to 60 us holds no SMs: every gap stays the kernels' own.
  assert.deepEqual(leads(backlog({ kind: 'memcpy', from: 30, to: 60 })), [3.5 * US, ...Array(9).fill(1.5 * US)]);
  // One that ends at 31 us, in the gap from 30 to 31.5 us before the second kernel, may have let it go.
  assert.deepEqual(leads(backlog({ kind: 'memcpy', from: 12, to: 31 })), [3.5 * US, 0, ...Array(8).fill(1.5 * US)]);
});

/**
 * A profile that began while the GPU was busy: kernel "a" (no call) ran from 100 us before the
 * first call until 200 us after it, "b" and "c" (no call) were queued behind it; the first call, a
 * 20 us copy call, put its copy "d" after them, and a synchronize at 25 us waited for it.
 */
function busyAtStart(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0, nonBlocking: true, handle: 7 });
  b.op({ lane: s, kind: 'kernel', start: -100 * US, end: 200 * US, name: 'a' });
  b.op({ lane: s, kind: 'kernel', start: 201 * US, end: 251 * US, name: 'b' });
  b.op({ lane: s, kind: 'kernel', start: 252 * US, end: 302 * US, name: 'c' });
  const c = b.call({ lane: host, kind: 'memcpy', begin: 0, end: 20 * US, stream: s, name: 'cudaMemcpyAsync' });
  const d = b.op({
    lane: s,
    kind: 'memcpy',
    start: 303 * US,
    end: 305 * US,
    call: c,
    copy: 'DtoH',
    bytes: 4,
    hostMemory: 'pinned',
  });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 25 * US,
    end: 308.6 * US,
    stream: s,
    blockedNs: 283.6 * US,
    releasedBy: d,
    unblockNs: 3.6 * US,
  });
  return capture(b);
}

test('work on the GPU when the first call began is launched before it, each op ending when it did; the wait is released by the copy', () => {
  const t = busyAtStart();
  const g = scenarioFromTrace(t, h200);
  const steps = g.threads.get('main')!;
  assert.deepEqual(
    steps.slice(0, 3).map((s) => [s.call, s.op]),
    [
      [-1, 0],
      [-1, 1],
      [-1, 2],
    ],
  );
  assert.match(steps[0].note!, /^a was on its stream when the first call began, launched before: launched here/);
  // "b" and "c" as measured, and the 1 us before each: queued behind the op before them.
  assert.deepEqual(
    steps.slice(1, 3).map((s) => s.step.ns),
    [51 * US - 2600, 51 * US - 2600],
  );
  const r = replay(t, h200);
  const [w] = r.waits;
  assert.equal(w.measuredBy, 3);
  assert.equal(w.replayedBy, 3);
  assert.ok(Math.abs(w.replayedNs - 283.6 * US) < 1 * US, `replayed ${w.replayedNs}`);
  // "a" ends 200 us after the first call began, as it did.
  assert.equal(r.simulated.ops.end[simOp(r, 0)] - r.simulated.calls.begin[simCalls(r, 0)[0]], 200 * US);
});

/** A kernel of 100 us and a synchronize that returned 20 us after it ended; with `late`, a second kernel the import did not name ended 2 us before the return. */
function slowWake(late = false): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0, nonBlocking: true, handle: 7 });
  const c = b.call({ lane: host, kind: 'launch', begin: 0, end: 5500, stream: s });
  const k = b.op({ lane: s, kind: 'kernel', start: 6500, end: 106_500, call: c, name: 'k' });
  if (late) b.op({ lane: s, kind: 'kernel', start: 106_600, end: 124_500, name: 'node' });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 10 * US,
    end: 126.5 * US,
    stream: s,
    blockedNs: 116.5 * US,
    releasedBy: k,
    unblockNs: 20 * US,
  });
  const next = b.call({ lane: host, kind: 'launch', begin: 130 * US, end: 135 * US, stream: s });
  b.op({ lane: s, kind: 'kernel', start: 136 * US, end: 140 * US, call: next, name: 'next' });
  return capture(b);
}

test("a wait's return after its releasing op beyond the profile's wake-up: host work after it, counted in the wait", () => {
  const t = slowWake();
  const g = scenarioFromTrace(t, h200);
  const steps = g.threads.get('main')!;
  const wake = steps.find((s) => s.partOf === 1)!;
  // 20 us measured, 3.6 us the profile's.
  assert.deepEqual(wake.step, { hostWork: { ns: 16.4 * US } });
  const r = replay(t, h200);
  assert.equal(r.waits[0].replayedNs, 116.5 * US);
  // The next call begins when it did, 130 us after the first.
  const [next] = simCalls(r, 2);
  assert.equal(r.simulated.calls.begin[next] - r.simulated.calls.begin[0], 130 * US);
  // A releaser named before an op that ended later: the wake-up counts only from that op's end (2 us).
  const named = scenarioFromTrace(slowWake(true), h200).threads.get('main')!;
  assert.equal(
    named.find((s) => s.partOf === 1),
    undefined,
  );
});

/**
 * torch.profiler's `Event.record()` then `side.wait_event(e)`: the record names no event or stream,
 * the wait names its event. "produce" (stream 7) ran from 6 to 206 us; "consume" (stream 8),
 * launched at 20 us, started at 207 us, when produce had ended; the host synchronized stream 8.
 */
function profiledWait(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const a = b.lane({ kind: 'stream', name: 'stream 7', device: 0, nonBlocking: true, handle: 7 });
  const side = b.lane({ kind: 'stream', name: 'stream 8', device: 0, nonBlocking: true, handle: 8 });
  const p = b.call({ lane: host, kind: 'launch', begin: 0, end: 5 * US, stream: a });
  b.op({ lane: a, kind: 'kernel', start: 6 * US, end: 206 * US, call: p, name: 'produce' });
  b.call({ lane: host, kind: 'record', begin: 10 * US, end: 12 * US, name: 'cudaEventRecordWithFlags' });
  b.call({ lane: host, kind: 'streamWait', begin: 15 * US, end: 17 * US, stream: side, event: 'event 3' });
  const q = b.call({ lane: host, kind: 'launch', begin: 20 * US, end: 25 * US, stream: side });
  const k = b.op({ lane: side, kind: 'kernel', start: 207 * US, end: 217 * US, call: q, name: 'consume' });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 30 * US,
    end: 220.6 * US,
    stream: side,
    blockedNs: 190.6 * US,
    releasedBy: k,
    unblockNs: 3.6 * US,
  });
  return b.finish({ source: 'pytorch', clock: 'test', alignmentErrorNs: 0 });
}

test("a stream wait whose event the trace records nowhere waits, inferred by timing, for the op of another stream at whose end its stream's next op started", () => {
  const t = profiledWait();
  const g = scenarioFromTrace(t, h200);
  const steps = g.threads.get('main')!.filter((s) => Object.keys(s.step).length && !('hostWork' in s.step));
  // consume could have started at 25 us (its launch's end), and started at 207 us, when produce (launched before the wait) ended.
  assert.deepEqual(
    steps.map((s) => [s.call, s.step, s.inferred]),
    [
      [0, { launch: 'produce', stream: 's7', ns: 200 * US - 2600 }, undefined],
      [0, { record: 'ev_after_op0', stream: 's7' }, 'timing'],
      [2, { wait: 'ev_after_op0', stream: 's8' }, 'timing'],
      [3, { launch: 'consume', stream: 's8', ns: 10 * US - 2600 }, undefined],
      [4, { streamSync: 's8' }, undefined],
    ],
  );
  assert.match(
    steps[2].note!,
    /^inferred \(timing\): the trace has no record of its event; it waits for the record after op 0 "produce"/,
  );
  const r = replay(t, h200);
  const [w] = r.waits;
  assert.equal(w.replayedBy, 1);
  assert.ok(Math.abs(w.replayedNs - 190.6 * US) < 2 * US, `replayed ${w.replayedNs}`);
});

/**
 * A torch.profiler trace whose records name no event: "train" on stream 7 (6 to 1000 us), then
 * "ema" on stream 13 (1000 to 1100 us); the host synchronized the event at 30 us and resumed at
 * 1180 us, 80 us after "ema" ended, beyond the 50 us within which the import takes the op that
 * ended last for the releaser. It leaves the wait unknown, between the two.
 */
function ambiguousEventSync(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const train = b.lane({ kind: 'stream', name: 'stream 7', device: 0, nonBlocking: true, handle: 7 });
  const ema = b.lane({ kind: 'stream', name: 'stream 13', device: 0, nonBlocking: true, handle: 13 });
  const l1 = b.call({ lane: host, kind: 'launch', begin: 0, end: 5 * US, stream: train });
  b.op({ lane: train, kind: 'kernel', start: 6 * US, end: 1000 * US, call: l1, name: 'train' });
  // ema_stream.wait_stream(current_stream()): a record on stream 7 and a wait on stream 13.
  b.call({ lane: host, kind: 'record', begin: 6 * US, end: 7 * US, name: 'cudaEventRecordWithFlags' });
  b.call({ lane: host, kind: 'streamWait', begin: 8 * US, end: 9 * US, stream: ema, event: 'event 5' });
  const l2 = b.call({ lane: host, kind: 'launch', begin: 10 * US, end: 15 * US, stream: ema });
  b.op({ lane: ema, kind: 'kernel', start: 1000 * US, end: 1100 * US, call: l2, name: 'ema' });
  b.call({ lane: host, kind: 'record', begin: 20 * US, end: 22 * US, name: 'cudaEventRecordWithFlags' });
  b.call({
    lane: host,
    kind: 'eventSync',
    begin: 30 * US,
    end: 1180 * US,
    event: 'event 39',
    blockedNs: 1150 * US,
    releasedBy: RELEASED_UNKNOWN,
  });
  return b.finish({ source: 'pytorch', clock: 'test', alignmentErrorNs: 0 });
}

test('an event synchronize the trace leaves between two ops waits, inferred by timing, for the one that ended last, and replays as measured', () => {
  const t = ambiguousEventSync();
  const g = scenarioFromTrace(t, h200);
  const steps = g.threads.get('main')!.filter((s) => Object.keys(s.step).length && !('hostWork' in s.step));
  const record = steps.find((s) => 'record' in s.step && s.step.record === 'ev_after_op1')!;
  assert.deepEqual(
    [record.call, record.step, record.inferred],
    [3, { record: 'ev_after_op1', stream: 's13' }, 'timing'],
  );
  assert.match(
    record.note!,
    /which of the ops the trace leaves it between ended last before the event synchronize of call 5/,
  );
  const sync = steps.find((s) => s.call === 5)!;
  assert.deepEqual([sync.step, sync.inferred], [{ eventSync: 'ev_after_op1' }, 'timing']);
  assert.match(
    sync.note!,
    /^inferred \(timing\): the trace has no record of its event; it waits for the record after op 1 "ema", the last to end before the host resumed of the 2 ops the trace leaves it between/,
  );
  const [w] = replay(t, h200).waits;
  assert.deepEqual([w.measuredBy, w.replayedBy, w.amongCandidates, w.sameReleaser], [RELEASED_UNKNOWN, 1, true, true]);
  // The host resumed 80 us after "ema" ended: its wake-up beyond the profile's is the wait's too.
  assert.ok(Math.abs(w.replayedNs - 1150 * US) < 0.15 * 1150 * US, `replayed ${w.replayedNs}`);
});

/**
 * A torch.profiler trace: "late" (no call) ran from 7 to 57 us, before the kernel "k" that the
 * window's first call launched (60 to 110 us); with `after`, "k" ran first (6 to 56 us) and "late"
 * after it (57 to 107 us). The host synchronized their stream at 10 us.
 */
function profiledOrphans(after: boolean): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0, nonBlocking: true, handle: 7 });
  const c = b.call({ lane: host, kind: 'launch', begin: 0, end: 5 * US, stream: s });
  // With `after`, the kernel the window launched ran first, so "late" was launched after it.
  const k = b.op({
    lane: s,
    kind: 'kernel',
    start: after ? 6 * US : 60 * US,
    end: after ? 56 * US : 110 * US,
    call: c,
    name: 'k',
  });
  const late = b.op({
    lane: s,
    kind: 'kernel',
    start: after ? 57 * US : 7 * US,
    end: after ? 107 * US : 57 * US,
    name: 'late',
  });
  // The synchronize returned 3.6 us after the later of the two ended.
  const last = after ? 107 * US : 110 * US;
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 10 * US,
    end: last + 3600,
    stream: s,
    blockedNs: last + 3600 - 10 * US,
    releasedBy: after ? late : k,
    unblockNs: 3600,
  });
  return b.finish({ source: 'pytorch', clock: 'test', alignmentErrorNs: 0 });
}

test('in a torch.profiler trace, work with no call on a stream busy since before the first call was launched before the trace began, unless work of its calls ran before it on its stream', () => {
  const before = scenarioFromTrace(profiledOrphans(false), h200).threads.get('main')!;
  assert.deepEqual(
    before.map((s) => [s.call, s.op]),
    [
      [-1, 1],
      [0, 0],
      [-1, undefined],
      [1, undefined],
    ],
  );
  const after = scenarioFromTrace(profiledOrphans(true), h200).threads.get('main')!;
  // Launched in the gap after the launch of "k", the last call that ended before it started.
  assert.deepEqual(
    after.filter((s) => s.op !== undefined).map((s) => [s.call, s.op]),
    [
      [0, 0],
      [-1, 1],
    ],
  );
  // Work with no call on a stream the window's calls did not use. Running when the first call began:
  // launched before the trace in a profile. Started after a break (the stream idle since before the
  // first call): launched by a call the trace does not show, after the calls that ended before it,
  // as in a capture (an API it does not follow).
  const elsewhere = (source: 'pytorch' | 'capture', sideStart = 30 * US) => {
    const b = new TraceBuilder();
    const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
    const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0, nonBlocking: true, handle: 7 });
    const s8 = b.lane({ kind: 'stream', name: 'stream 8', device: 0, nonBlocking: true, handle: 8 });
    const c = b.call({ lane: host, kind: 'launch', begin: 0, end: 5 * US, stream: s });
    b.op({ lane: s, kind: 'kernel', start: 6 * US, end: 56 * US, call: c, name: 'k' });
    b.op({ lane: s8, kind: 'kernel', start: sideStart, end: 80 * US, name: 'side' });
    b.call({ lane: host, kind: 'deviceSync', begin: 40 * US, end: 83.6 * US, blockedNs: 43.6 * US, releasedBy: 1 });
    const g = scenarioFromTrace(b.finish({ source, clock: 'test', alignmentErrorNs: 0 }), h200);
    return g.threads
      .get('main')!
      .filter((st) => st.op !== undefined)
      .map((st) => st.op);
  };
  assert.deepEqual(elsewhere('pytorch', 0), [1, 0]);
  assert.deepEqual(elsewhere('pytorch'), [0, 1]);
  assert.deepEqual(elsewhere('capture'), [0, 1]);
  for (const t of [profiledOrphans(false), profiledOrphans(true)]) {
    const [w] = replay(t, h200).waits;
    assert.equal(w.replayedBy, w.measuredBy);
    assert.ok(Math.abs(w.replayedNs - w.measuredNs) < 1 * US, `replayed ${w.replayedNs}, measured ${w.measuredNs}`);
  }
});

test('graph work mid-trace with no call in the profile is launched where it ran, not before the trace', () => {
  // test/fixtures/editor/side_stream_sync: each iteration's two GEMMs on stream 13 come from a graph
  // launch the profile did not record, after a break of the stream; calls 5 and 10 wait 5.05 ms and
  // 5.28 ms for them (the trace's event synchronizes, released by ops 3 and 5).
  const t = parseTrace(
    readFileSync(repoPath('test/fixtures/editor/side_stream_sync.syncscope.json'), 'utf8'),
    'editor',
  );
  const long = replay(t, h200).waits.filter((w) => w.measuredNs > 50 * US);
  assert.deepEqual(
    long.map((w) => [w.call, w.measuredBy, w.replayedBy]),
    [
      [5, 3, 3],
      [10, 5, 5],
    ],
  );
  for (const w of long) assert.ok(Math.abs(w.replayedNs - w.measuredNs) < 0.15 * w.measuredNs, `call ${w.call}`);
});

test("a capture's graph launches queue the graph's kernels: each replayed graph's GEMM releases the stream synchronize after it, as measured", () => {
  // test/fixtures/capture/recaptured/graph_replay.plain (its report): calls 169, 171 and 173,
  // `torch.cuda.current_stream().synchronize()` after each `graph.replay()`, block 5.30, 5.30 and
  // 5.31 ms, released by ops 13, 15 and 17, the GEMM each cudaGraphLaunch queued; call 162, the
  // synchronize of the graph's capture, blocks 9.81 ms for op 7.
  const t = parseTrace(
    gunzipSync(
      readFileSync(repoPath('test/fixtures/capture/recaptured/graph_replay.plain.syncscope.json.gz')),
    ).toString(),
    'graph_replay',
  );
  const long = replay(t, h200).waits.filter((w) => w.measuredNs > 50 * US);
  assert.deepEqual(
    long.map((w) => [w.call, w.measuredBy, w.replayedBy]),
    [
      [162, 7, 7],
      [169, 13, 13],
      [171, 15, 15],
      [173, 17, 17],
    ],
  );
  assert.deepEqual(
    long.map((w) => Math.round(w.measuredNs / 10 / US) / 100),
    [9.81, 5.3, 5.3, 5.31],
  );
  for (const w of long) assert.ok(Math.abs(w.replayedNs - w.measuredNs) < 0.15 * w.measuredNs, `call ${w.call}`);
});
