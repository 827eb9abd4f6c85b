import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200, loadProfile, ProfileError, simulate } from '../../core/simulate';
import { compileScenario } from '../../core/scenario/parse';

test('loadProfile fills missing fields from h200 and keeps the given ones', () => {
  const p = loadProfile({ name: 'my-gpu', spinWakeNs: 5000, sms: 108 });
  assert.equal(p.name, 'my-gpu');
  assert.equal(p.spinWakeNs, 5000);
  assert.equal(p.sms, 108);
  assert.equal(p.launchNs, h200.launchNs);
  assert.deepEqual(Object.keys(p).sort(), Object.keys(h200).sort());
  assert.deepEqual(loadProfile('h200'), { ...h200 });
});

test('loadProfile names the field at fault', () => {
  const bad: [unknown, RegExp][] = [
    [{ spinWakeNS: 1 }, /^profile\.spinWakeNS: unknown field; fields are name, deviceName, sms/],
    [{ sms: 1.5 }, /^profile\.sms: expected a whole number of at least 1, got 1\.5$/],
    [{ launchNs: -1 }, /^profile\.launchNs: expected a number of at least 0, got -1$/],
    [{ memoryGBps: 0 }, /^profile\.memoryGBps: expected a number above 0, got 0$/],
    [{ queryNs: '150' }, /^profile\.queryNs: expected a number, got "150"$/],
    [{ name: '' }, /^profile\.name: expected a non-empty string/],
    [[1], /^a profile must be a JSON object, got an array$/],
    ['a100', /^unknown profile "a100"; built-in profiles: h200$/],
  ];
  for (const [json, message] of bad)
    assert.throws(
      () => loadProfile(json),
      (e: Error) => e instanceof ProfileError && message.test(e.message),
      String(json),
    );
});

test('a profile changes timing only, and the trace names it', () => {
  const program = compileScenario(
    JSON.stringify({
      name: 'p',
      streams: { s: {} },
      steps: [{ launch: 'k', stream: 's', us: 100 }, { streamSync: 's' }],
    }),
    'p.scenario.json',
  );
  // The launch finds its stream idle, so it costs idleLaunchNs, not launchNs.
  const slow = simulate(
    program,
    loadProfile({ name: 'slow', spinWakeNs: 20000, idleLaunchNs: 10000, launchNs: 1, coldCallNs: 0 }),
  );
  const fast = simulate(program);
  assert.equal(slow.meta.profile, 'slow');
  assert.equal(fast.meta.profile, 'h200');
  assert.equal(fast.meta.device?.name, 'NVIDIA H200');
  assert.equal(slow.calls.unblockNs[1], 20000);
  assert.equal(slow.calls.end[0], 10000);
  assert.equal(slow.calls.releasedBy[1], fast.calls.releasedBy[1]);
  assert.deepEqual(slow.meta.scenario, { name: 'p', file: 'p.scenario.json' });
  assert.equal(slow.meta.source, 'simulator');
  assert.equal(slow.meta.alignmentErrorNs, 0);
});

const compile = (scenario: object) => compileScenario(JSON.stringify({ name: 'p', ...scenario }), 'p.scenario.json');

test('a launch onto an idle stream costs idleLaunchNs; one queued behind pending work costs launchNs', () => {
  const t = simulate(
    compile({
      streams: { s: {} },
      steps: [
        { launch: 'a', stream: 's', us: 100 },
        { launch: 'b', stream: 's', us: 1 },
      ],
    }),
    loadProfile({ idleLaunchNs: 7000, launchNs: 2000, coldCallNs: 0 }),
  );
  assert.deepEqual([t.calls.end[0] - t.calls.begin[0], t.calls.end[1] - t.calls.begin[1]], [7000, 2000]);
});

test("a thread's first CUDA call costs coldCallNs more, whatever it is; host work before it does not take it", () => {
  const p = loadProfile({ idleLaunchNs: 7000, launchNs: 2000, coldCallNs: 1500 });
  const dur = (t: ReturnType<typeof simulate>) => Array.from(t.calls.begin, (b, i) => t.calls.end[i] - b);
  const launches = simulate(
    compile({
      streams: { s: {} },
      steps: [{ hostWork: { us: 5 } }, { launch: 'a', stream: 's', us: 100 }, { launch: 'b', stream: 's', us: 1 }],
    }),
    p,
  );
  assert.deepEqual(dur(launches), [5000, 8500, 2000]);
  assert.equal(launches.calls.begin[1], 5000, 'the call begins when the host work ends');
  assert.ok(launches.ops.start[0] > 5000 + 8500, 'its kernel is issued after the cold call');
  // A small pageable copy first (x.cuda()): it blocks the host for its whole call, the cold cost included.
  const copy = compile({
    buffers: { h: { bytes: 64, host: 'pageable' }, d: { bytes: 64 } },
    steps: [
      { copy: 'h', to: 'd', async: true },
      { copy: 'h', to: 'd', async: true },
    ],
  });
  const cold = simulate(copy, p);
  const warm = simulate(copy, loadProfile({ idleLaunchNs: 7000, launchNs: 2000, coldCallNs: 0, coldCopyNs: 0 }));
  assert.equal(cold.calls.blockedNs[0] - warm.calls.blockedNs[0], 1500);
  assert.equal(cold.calls.blockedNs[1], warm.calls.blockedNs[1]);
});

test("a thread's first call that copies at most 16 B costs coldTinyCopyNs more instead, and a later tiny copy nothing", () => {
  const p = loadProfile({
    idleLaunchNs: 7000,
    launchNs: 2000,
    copyCallNs: 1000,
    coldCallNs: 1500,
    coldTinyCopyNs: 400,
    coldCopyNs: 700,
  });
  const dur = (t: ReturnType<typeof simulate>) => Array.from(t.calls.begin, (b, i) => t.calls.end[i] - b);
  const run = (bytes: number, hostWorkFirst = false) =>
    dur(
      simulate(
        compile({
          streams: { s: {} },
          buffers: { h: { bytes, host: 'pinned' }, d: { bytes } },
          steps: [
            ...(hostWorkFirst ? [{ hostWork: { us: 5 } }] : []),
            { copy: 'h', to: 'd', async: true, stream: 's' },
            { copy: 'h', to: 'd', async: true, stream: 's' },
            { copy: 'd', to: 'h', async: true, stream: 's' },
          ],
        }),
        p,
      ),
    ).slice(hostWorkFirst ? 1 : 0);
  assert.deepEqual(run(16), [1400, 1000, 1700]);
  assert.deepEqual(run(16, true), [1400, 1000, 1700], 'host work first does not spend it');
  assert.deepEqual(run(17), [2500, 1000, 1700]);
});

test("a run's first copy in each direction costs coldCopyNs more, unless it is its thread's first call", () => {
  const p = loadProfile({ idleLaunchNs: 7000, launchNs: 2000, copyCallNs: 1000, coldCallNs: 1500, coldCopyNs: 700 });
  const dur = (t: ReturnType<typeof simulate>) => Array.from(t.calls.begin, (b, i) => t.calls.end[i] - b);
  const buffers = { h: { bytes: 64, host: 'pinned' }, d: { bytes: 64 } };
  const up = { copy: 'h', to: 'd', async: true, stream: 's' };
  const down = { copy: 'd', to: 'h', async: true, stream: 's' };
  const t = simulate(
    compile({ streams: { s: {} }, buffers, steps: [{ launch: 'a', stream: 's', us: 1 }, up, up, down, down] }),
    p,
  );
  assert.deepEqual(dur(t), [8500, 1700, 1000, 1700, 1000]);
  const first = simulate(compile({ streams: { s: {} }, buffers, steps: [up, up, down] }), p);
  assert.deepEqual(dur(first), [2500, 1000, 1700], 'a first call pays coldCallNs only');
});

test("afterFirstStreamOpNs: more host time after a thread's first stream op, half that after its second, and so on", () => {
  const p = loadProfile({ afterStreamOpNs: 1000, afterFirstStreamOpNs: 800, coldCallNs: 0 });
  const t = simulate(
    compile({
      streams: { s: {} },
      events: { e: {} },
      steps: [
        { launch: 'a', stream: 's', us: 1 },
        { query: 'e' },
        { launch: 'b', stream: 's', us: 1 },
        { launch: 'c', stream: 's', us: 1 },
        { launch: 'd', stream: 's', us: 1 },
      ],
    }),
    p,
  );
  const gaps = Array.from({ length: t.calls.count - 1 }, (_, i) => t.calls.begin[i + 1] - t.calls.end[i]);
  assert.deepEqual(gaps, [1800, 0, 1400, 1200]);
});

test("afterStreamOpNs delays the next step but is not part of the call, nor of a blocking copy's wait", () => {
  const program = compile({
    streams: { s: { nonBlocking: true } },
    buffers: { d: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pageable' } },
    steps: [{ launch: 'k', stream: 's', us: 50 }, { copy: 'd', to: 'h', async: true, stream: 's' }, { query: 'e' }],
    events: { e: {} },
  });
  const bare = simulate(program);
  const tail = simulate(program, loadProfile({ afterStreamOpNs: 4000 }));
  assert.equal(tail.calls.end[0] - tail.calls.begin[0], bare.calls.end[0] - bare.calls.begin[0]);
  assert.equal(tail.calls.begin[1], tail.calls.end[0] + 4000);
  assert.equal(tail.calls.begin[2], tail.calls.end[1] + 4000);
  // S17: the pageable copy blocks for the whole call, from its begin to its return.
  assert.equal(tail.calls.blockedNs[1], tail.calls.end[1] - tail.calls.begin[1]);
  assert.ok(tail.calls.blockedNs[1] < bare.calls.blockedNs[1], 'the kernel is further along when the copy begins');
});

test('S15 a spinning host, a blocking-sync event and a blockingSync device each wake after their own profile time', () => {
  const p = loadProfile({ spinWakeNs: 1000, sleepWakeNs: 20000, scheduleSleepWakeNs: 70000 });
  const wake = (scenario: object) => {
    const t = simulate(
      compile({ streams: { s: {} }, events: { spin: {}, sleep: { blockingSync: true } }, ...scenario }),
      p,
    );
    return t.calls.unblockNs[t.calls.count - 1];
  };
  const steps = (ev: string) => [{ launch: 'k', stream: 's', us: 100 }, { record: ev, stream: 's' }, { eventSync: ev }];
  assert.equal(wake({ steps: steps('spin') }), 1000);
  assert.equal(wake({ steps: steps('sleep') }), 20000);
  assert.equal(wake({ device: { schedule: 'blockingSync' }, steps: steps('spin') }), 70000);
  assert.equal(
    wake({ device: { schedule: 'blockingSync' }, steps: [{ launch: 'k', stream: 's', us: 100 }, { streamSync: 's' }] }),
    70000,
  );
});
