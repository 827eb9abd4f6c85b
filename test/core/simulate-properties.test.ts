// Properties that must hold for every scenario, checked on a few hundred random ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callKind, edgeKind, opKind, str, traceToJson, type Trace } from '../../core/trace';
import { sim } from './simulate-helpers';
import { seededRandom } from '../helpers/random';

function randomScenario(seed: number): Record<string, unknown> {
  const r = seededRandom(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const streams: Record<string, unknown> = {};
  const streamNames = ['default', 'legacy'];
  for (let i = 0; i < 1 + int(4); i++) {
    streams[`s${i}`] = { nonBlocking: r() < 0.5, priority: -int(6) };
    streamNames.push(`s${i}`);
  }
  const events: Record<string, unknown> = {};
  const eventNames: string[] = [];
  for (let i = 0; i < 1 + int(3); i++) {
    events[`e${i}`] = { timing: r() < 0.5, blockingSync: r() < 0.2 };
    eventNames.push(`e${i}`);
  }
  const buffers = {
    d0: { bytes: 1 << 16 },
    d1: { bytes: 1 << 20 },
    pin: { bytes: 1 << 18, host: 'pinned' },
    page: { bytes: 1 << 18, host: 'pageable' },
  };
  const bufNames = Object.keys(buffers);
  const step = (): Record<string, unknown> => {
    const stream = pick(streamNames);
    switch (int(13)) {
      case 0:
      case 1:
      case 2:
        return {
          launch: `k${int(5)}`,
          stream,
          us: 1 + int(300),
          grid: pick([1, 132, 2000, 5000]),
          block: pick([32, 256, 1024]),
          reads: [pick(bufNames)],
          writes: r() < 0.5 ? [pick(bufNames)] : [],
        };
      case 3:
      case 4:
        return { record: pick(eventNames), stream };
      case 5:
        return { wait: pick(eventNames), stream };
      case 6:
        return { query: pick(eventNames) };
      case 7:
        return pick([{ eventSync: pick(eventNames) }, { streamSync: stream }, { deviceSync: true }]);
      case 8:
        return { elapsed: [pick(eventNames), pick(eventNames)] };
      case 9: {
        const src = pick(bufNames);
        const to = pick(bufNames.filter((b) => b !== src));
        return r() < 0.6 ? { copy: src, to, async: true, stream } : { copy: src, to };
      }
      case 10:
        return r() < 0.5 ? { memset: pick(['d0', 'd1']), async: true, stream } : { memset: pick(['d0', 'd1']) };
      case 11:
        return r() < 0.5 ? { hostWork: { us: 1 + int(200) } } : { hostFunc: 'fn', stream, us: int(20) };
      default:
        return { waitStream: pick(streamNames.slice(2).concat('default')), stream };
    }
  };
  const steps = () => Array.from({ length: 5 + int(30) }, step);
  const schedule = pick(['auto', 'spin', 'yield', 'blockingSync']);
  const perThreadDefaultStream = r() < 0.3;
  const base = { device: { schedule, perThreadDefaultStream }, streams, events, buffers };
  return r() < 0.3 ? { ...base, threads: { main: steps(), loader: steps() } } : { ...base, steps: steps() };
}

function checkInvariants(t: Trace): void {
  const { calls, ops, edges } = t;
  const lastOnLane = new Map<number, number>();
  for (let o = 0; o < ops.count; o++) {
    assert.ok(ops.end[o] >= ops.start[o] && ops.start[o] >= 0, `op ${o} has a span`);
    // Stream order: ops of a lane run in the order they were issued.
    const prev = lastOnLane.get(ops.lane[o]);
    if (prev !== undefined) assert.ok(ops.start[o] >= ops.end[prev], `S1: op ${o} starts before op ${prev} ends`);
    lastOnLane.set(ops.lane[o], o);
    assert.ok(ops.call[o] >= 0, `op ${o} has its issuing call`);
    assert.ok(ops.start[o] > calls.begin[ops.call[o]], `op ${o} starts after its call began`);
  }
  const launchEdge = new Set<number>();
  const boundRecord = new Map<number, number>();
  for (let e = 0; e < edges.count; e++) {
    const [k, from, to] = [edgeKind(t, e), edges.from[e], edges.to[e]];
    if (k === 'launch') {
      assert.equal(ops.call[to], from, `launch edge ${e} points from the op's own call`);
      launchEdge.add(to);
    } else if (k === 'release') {
      assert.equal(calls.releasedBy[to], from, `release edge ${e} matches releasedBy`);
    } else {
      assert.ok(ops.start[to] >= ops.end[from], `${k} edge ${from} -> ${to} violated`);
      if (k === 'event') {
        assert.equal(opKind(t, from), 'eventRecord');
        assert.equal(opKind(t, to), 'waitEvent');
        assert.equal(ops.event[from], ops.event[to]);
        boundRecord.set(to, from);
      }
    }
  }
  for (let o = 0; o < ops.count; o++) assert.ok(launchEdge.has(o), `op ${o} has a launch edge`);
  // An event edge comes from the record that was current when the wait was called (S7): the last
  // record call of that event that began before the wait call.
  for (let o = 0; o < ops.count; o++) {
    if (opKind(t, o) !== 'waitEvent') continue;
    const waitCall = ops.call[o];
    let current = -1;
    for (let r = 0; r < ops.count; r++) {
      if (opKind(t, r) !== 'eventRecord' || ops.event[r] !== ops.event[o]) continue;
      const rc = ops.call[r];
      if (calls.begin[rc] < calls.begin[waitCall] || (calls.begin[rc] === calls.begin[waitCall] && rc < waitCall)) {
        if (current < 0 || calls.begin[rc] >= calls.begin[ops.call[current]]) current = r;
      }
    }
    assert.equal(
      boundRecord.get(o) ?? -1,
      current,
      `wait op ${o} (${str(t, ops.event[o])}) bound to the current record`,
    );
  }
  // S3, checked from the spans alone: a legacy-stream op starts after every earlier op of a
  // blocking stream, and a blocking-stream op after every earlier legacy op.
  const lanes = t.lanes;
  let lastLegacyEnd = -Infinity;
  let lastBlockingEnd = -Infinity;
  for (let o = 0; o < ops.count; o++) {
    const l = lanes[ops.lane[o]];
    if (l.nonBlocking) continue;
    if (l.legacyDefault) {
      assert.ok(ops.start[o] >= lastBlockingEnd, `S3: legacy op ${o} starts before earlier blocking work ends`);
      lastLegacyEnd = Math.max(lastLegacyEnd, ops.end[o]);
    } else {
      assert.ok(ops.start[o] >= lastLegacyEnd, `S3: op ${o} starts before earlier legacy work ends`);
      lastBlockingEnd = Math.max(lastBlockingEnd, ops.end[o]);
    }
  }
  for (let c = 0; c < calls.count; c++) {
    assert.ok(calls.end[c] >= calls.begin[c], `call ${c} has a span`);
    const r = calls.releasedBy[c];
    if (r >= 0) {
      assert.ok(calls.end[c] >= ops.end[r], `S16: call ${c} returned before its releasing op ${r}`);
      assert.ok(calls.unblockNs[c] >= 0, `S16: negative unblock latency on call ${c}`);
      assert.equal(calls.unblockNs[c], calls.end[c] - ops.end[r]);
    }
    const k = callKind(t, c);
    if (k === 'deviceSync' || k === 'streamSync' || k === 'eventSync') {
      assert.ok(r >= 0 || calls.blockedNs[c] === 0, `wait ${c} blocked without a releasing op`);
    }
  }
  // Calls of one thread do not overlap: program order.
  const lastEnd = new Map<number, number>();
  for (let c = 0; c < calls.count; c++) {
    const l = calls.lane[c];
    // Calls are created when they begin, so per lane they come in program order.
    assert.ok(calls.begin[c] >= (lastEnd.get(l) ?? 0), `call ${c} overlaps the previous call of its thread`);
    lastEnd.set(l, calls.end[c]);
  }
}

test('random scenarios keep stream order, S3, event binding, unblock and launch invariants', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const scenario = randomScenario(seed);
    let t: Trace;
    try {
      t = sim(scenario);
      checkInvariants(t);
    } catch (e) {
      throw new Error(`seed ${seed}: ${(e as Error).message}\n${JSON.stringify(scenario)}`, { cause: e });
    }
  }
});

test('the same program gives an identical trace, byte for byte', () => {
  for (let seed = 1000; seed < 1030; seed++) {
    const scenario = randomScenario(seed);
    assert.equal(traceToJson(sim(scenario)), traceToJson(sim(scenario)), `seed ${seed}`);
  }
});
