// Every example scenario, simulated, does what its description teaches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { parse as parseJsonc } from 'jsonc-parser';
import { compileScenario } from '../../core/scenario/parse';
import { h200, simulate } from '../../core/simulate';
import { ANSWERS, RELEASED_NONE, str, type Trace } from '../../core/trace';
import { repoPath } from '../helpers/paths';
import { calls, end, hasEdge, op, ops, start } from './simulate-helpers';

const dir = repoPath('examples');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.scenario.json'))
  .sort();
const load = (name: string): Trace =>
  simulate(compileScenario(readFileSync(`${dir}/${name}.scenario.json`, 'utf8'), `${name}.scenario.json`));
const answer = (t: Trace, c: number): string => ANSWERS[t.calls.answer[c]];
const releasedBy = (t: Trace, c: number): number => t.calls.releasedBy[c];
const overlaps = (t: Trace, a: number, b: number): boolean => start(t, a) < end(t, b) && start(t, b) < end(t, a);

const expectations: Record<string, (t: Trace) => void> = {
  'seed-synchronize-one-stream': (t) => {
    const [add, mul] = [op(t, 'add'), op(t, 'mul')];
    const sync = calls(t, 'deviceSync')[0];
    assert.equal(releasedBy(t, sync), add);
    assert.ok(hasEdge(t, 'stream', add, mul), 'S1 orders mul after add');
    assert.ok(start(t, mul) > t.calls.end[sync], 'with the sync, mul is launched only after the host returned');
  },
  'seed-synchronize-one-stream-no-sync': (t) => {
    const [add, mul] = [op(t, 'add'), op(t, 'mul')];
    assert.ok(hasEdge(t, 'stream', add, mul));
    assert.equal(start(t, mul), end(t, add), 'mul runs right after add: the same GPU order, without a host wait');
    assert.equal(calls(t, 'deviceSync').length, 0);
    const withSync = load('seed-synchronize-one-stream');
    assert.ok(
      start(withSync, op(withSync, 'mul')) - end(withSync, op(withSync, 'add')) > 0,
      'the sync only made mul later',
    );
  },
  'seed-event-sync-current-stream': (t) => {
    const rec = op(t, 'record event');
    const sync = calls(t, 'eventSync')[0];
    assert.equal(
      releasedBy(t, sync),
      op(t, 'mul'),
      'S16 the multiply the record captured released the host, not the marker',
    );
    assert.equal(end(t, rec), end(t, op(t, 'mul')), 'the record captures the multiply (S6)');
    const cpu = calls(t, 'memcpy')[1];
    assert.ok(t.calls.blockedNs[cpu] > 0, 't.cpu() is a hidden sync (S17)');
    assert.equal(releasedBy(t, cpu), op(t, 'DtoH t2 -> out_cpu'));
  },
  'seed-side-stream-event-sync': (t) => {
    const [up1, up2, add, rec, down] = [
      op(t, 'HtoD t1_cpu -> t1'),
      op(t, 'HtoD t2_cpu -> t2'),
      op(t, 'add'),
      op(t, 'record event'),
      op(t, 'DtoH sum -> out_cpu'),
    ];
    assert.ok(
      !hasEdge(t, 'legacy', up1, add) && !hasEdge(t, 'legacy', up2, add),
      'a non-blocking side stream does not wait for the default stream (S3)',
    );
    assert.ok(start(t, add) >= end(t, up1) && start(t, add) >= end(t, up2));
    const sync = calls(t, 'eventSync')[0];
    assert.equal(releasedBy(t, sync), add, 'S16 released by the kernel behind the record');
    assert.equal(t.lanes[t.ops.lane[add]].name, 'stream');
    assert.equal(end(t, rec), end(t, add));
    assert.ok(hasEdge(t, 'release', add, sync));
    assert.equal(t.calls.unblockNs[sync], h200.spinWakeNs);
    assert.ok(
      !hasEdge(t, 'legacy', rec, down) && start(t, down) >= end(t, add),
      "t1.cpu() runs after the add through the host's wait, not S3",
    );
    assert.equal(releasedBy(t, calls(t, 'memcpy')[2]), down, 't1.cpu() blocks until its copy completes (S17)');
  },
  'seed-query-before-after': (t) => {
    const [before, after] = calls(t, 'query');
    assert.equal(answer(t, before), 'notReady');
    assert.equal(str(t, t.calls.status[before]), 'cudaErrorNotReady');
    assert.equal(answer(t, after), 'ready');
    assert.equal(releasedBy(t, calls(t, 'eventSync')[0]), op(t, 'mul'), 'the work the record captured');
  },
  'seed-query-already-done': (t) => {
    const q = calls(t, 'query')[0];
    assert.equal(answer(t, q), 'ready');
    assert.ok(t.calls.begin[q] >= end(t, op(t, 'record event')));
  },
  'seed-record-wait-query-elapsed': (t) => {
    const [r0, r1, w, consume] = [op(t, 'record start'), op(t, 'record end'), op(t, 'wait end'), op(t, 'consume')];
    assert.ok(hasEdge(t, 'event', r1, w));
    assert.ok(start(t, consume) >= end(t, op(t, 'produce')));
    assert.equal(t.calls.blockedNs[calls(t, 'streamWait')[0]], 0);
    assert.equal(answer(t, calls(t, 'query')[0]), 'notReady');
    assert.equal(releasedBy(t, calls(t, 'eventSync')[0]), op(t, 'produce'), 'the kernel behind the record');
    const ms = t.calls.value[calls(t, 'elapsed')[0]];
    assert.ok(Math.abs(ms * 1e6 - (end(t, r1) - end(t, r0))) <= h200.elapsedResolutionNs / 2);
    assert.ok(ms >= 0.1 && ms < 0.11, `elapsed ${ms} ms for a 100 us kernel`);
  },
  'legacy-serialization-buggy': (t) => {
    const [left, book, right] = [op(t, 'left'), op(t, 'bookkeeping'), op(t, 'right')];
    assert.ok(hasEdge(t, 'legacy', left, book) && hasEdge(t, 'legacy', book, right));
    assert.ok(start(t, right) >= end(t, book) && start(t, book) >= end(t, left), 'serialized by S3');
    assert.equal(releasedBy(t, calls(t, 'deviceSync')[0]), right);
  },
  'legacy-serialization-fixed': (t) => {
    const [left, book, right] = [op(t, 'left'), op(t, 'bookkeeping'), op(t, 'right')];
    assert.ok(overlaps(t, left, right) && overlaps(t, left, book));
    const buggy = load('legacy-serialization-buggy');
    const blocked = (x: Trace) => x.calls.blockedNs[calls(x, 'deviceSync')[0]];
    assert.ok(blocked(buggy) > 1.9 * blocked(t), `${blocked(buggy)} vs ${blocked(t)}`);
  },
  'wait-before-record-buggy': (t) => {
    const w = op(t, 'wait ready');
    assert.ok(!hasEdge(t, 'event', op(t, 'record ready'), w), 'the wait bound to nothing (S9)');
    assert.ok(overlaps(t, op(t, 'produce'), op(t, 'consume')), 'consume reads x while produce writes it');
  },
  'wait-before-record-fixed': (t) => {
    assert.ok(hasEdge(t, 'event', op(t, 'record ready'), op(t, 'wait ready')));
    assert.ok(start(t, op(t, 'consume')) >= end(t, op(t, 'produce')));
  },
  'stale-wait-buggy': (t) => {
    const [first, second] = ops(t, 'record filled');
    const w = op(t, 'wait filled');
    assert.ok(hasEdge(t, 'event', second, w) && !hasEdge(t, 'event', first, w), 'bound to the re-record (S7)');
    assert.ok(start(t, op(t, 'consume0')) >= end(t, op(t, 'fill1')), 'consume0 waited for fill1 too');
  },
  'stale-wait-fixed': (t) => {
    assert.ok(hasEdge(t, 'event', op(t, 'record filled0'), op(t, 'wait filled0')));
    assert.ok(start(t, op(t, 'consume0')) >= end(t, op(t, 'fill0')));
    assert.ok(overlaps(t, op(t, 'consume0'), op(t, 'fill1')));
  },
  'pageable-copy-buggy': (t) => {
    const copies = calls(t, 'memcpy');
    assert.equal(copies.length, 3);
    const copyOps = ops(t, 'DtoH result -> host');
    copies.forEach((c, i) => {
      assert.equal(releasedBy(t, c), copyOps[i], 'each copy blocks the host until it completes (S17)');
      assert.ok(t.calls.blockedNs[c] > 500_000, 'including the kernel before it');
    });
    assert.ok(t.calls.begin[copies[1]] > end(t, copyOps[0]), 'the host could not queue ahead');
  },
  'pageable-copy-fixed': (t) => {
    // The run's first device-to-host copy pays for the driver's cold path (coldCopyNs); none waits.
    for (const [i, c] of calls(t, 'memcpy').entries()) {
      assert.equal(t.calls.blockedNs[c], 0);
      assert.equal(t.calls.end[c] - t.calls.begin[c], h200.copyCallNs + (i === 0 ? h200.coldCopyNs : 0));
    }
    const sync = calls(t, 'streamSync')[0];
    assert.equal(releasedBy(t, sync), ops(t, 'DtoH result -> host')[2]);
    const buggy = load('pageable-copy-buggy');
    assert.ok(t.calls.end[sync] < buggy.calls.end[calls(buggy, 'streamSync')[0]], 'pinned finishes sooner');
  },
  'wake-up-spin': (t) => {
    const syncs = calls(t, 'streamSync');
    assert.equal(syncs.length, 4);
    for (const c of syncs) assert.equal(t.calls.unblockNs[c], h200.spinWakeNs);
  },
  'wake-up-blocking-sync': (t) => {
    const syncs = calls(t, 'streamSync');
    assert.equal(syncs.length, 4);
    for (const c of syncs) assert.equal(t.calls.unblockNs[c], h200.sleepWakeNs);
    const spin = load('wake-up-spin');
    const last = (x: Trace) => x.calls.end[x.calls.count - 1];
    assert.ok(last(t) - last(spin) >= 4 * (h200.sleepWakeNs - h200.spinWakeNs) - 1);
  },
  'pipeline-buggy': (t) => {
    assert.ok(overlaps(t, op(t, 'load'), op(t, 'train')), 'train reads batch while load writes it');
    assert.equal(t.edges.kind.filter((k) => k === 2).length, 0, 'no event edge orders them');
  },
  'pipeline-fixed': (t) => {
    assert.ok(hasEdge(t, 'event', op(t, 'record loaded'), op(t, 'wait loaded')));
    assert.ok(start(t, op(t, 'train')) >= end(t, op(t, 'load')));
    assert.equal(releasedBy(t, calls(t, 'streamSync')[0]), op(t, 'train'));
  },
  'device-sync-buggy': (t) => {
    const sync = calls(t, 'deviceSync')[0];
    assert.equal(releasedBy(t, sync), op(t, 'prefetch'), 'the background prefetch released the wait');
  },
  'device-sync-fixed': (t) => {
    const sync = calls(t, 'eventSync')[0];
    assert.equal(releasedBy(t, sync), op(t, 'DtoH m -> m_host'), 'the copy the record captured');
    const buggy = load('device-sync-buggy');
    const saved = buggy.calls.end[calls(buggy, 'deviceSync')[0]] - t.calls.end[sync];
    assert.ok(saved > 1.7e6 && saved < 1.9e6, `saved ${saved} ns`);
  },
  'launch-queue-full': (t) => {
    const launches = calls(t, 'launch');
    const blocked = launches.filter((c) => t.calls.blockedNs[c] > 0);
    assert.deepEqual(blocked, [launches[h200.queueDepth + 1]], 'the 1022nd launch after the long kernel blocks');
    assert.equal(releasedBy(t, blocked[0]), op(t, 'long'));
    assert.ok(t.calls.blockedNs[blocked[0]] > 1e6, 'for milliseconds');
  },
  'stream-priorities': (t) => {
    const [bulk, normal, urgent] = [op(t, 'bulk'), op(t, 'normal'), op(t, 'urgent')];
    const firstWaveEnd = start(t, bulk) + 200_000 + h200.kernelOverheadNs;
    assert.equal(start(t, urgent), firstWaveEnd, 'urgent starts when the first wave ends (S5)');
    assert.ok(start(t, normal) >= firstWaveEnd + 200_000, "normal waits behind all of bulk's blocks");
  },
  'host-func-buggy': (t) => {
    const steps = ops(t, 'step');
    for (let i = 1; i < steps.length; i++) assert.equal(start(t, steps[i]) - end(t, steps[i - 1]), h200.hostFuncGapNs);
  },
  'multi-gpu-pipeline': (t) => {
    const [produce, peer, consume, next] = [
      op(t, 'produce'),
      op(t, 'PtoP batch0 -> batch1'),
      op(t, 'consume'),
      op(t, 'produce next'),
    ];
    const device = (o: number) => t.lanes[t.ops.lane[o]].device;
    assert.deepEqual([produce, peer, consume, next].map(device), [0, 1, 1, 0]);
    assert.ok(
      hasEdge(t, 'event', op(t, 'record produced'), op(t, 'wait produced')),
      'GPU 1 waits for the event GPU 0 recorded',
    );
    assert.equal(start(t, peer), end(t, produce), 'the peer copy starts when the produced batch is done');
    assert.equal(end(t, peer) - start(t, peer), Math.round((64 * 2 ** 20) / h200.peerGBps));
    assert.equal(start(t, consume), end(t, peer));
    const [one, current] = calls(t, 'deviceSync');
    assert.equal(releasedBy(t, one), consume, "synchronize(1) is released by GPU 1's consumer");
    assert.ok(t.calls.end[one] < end(t, next), "GPU 0's next batch did not hold synchronize(1)");
    assert.equal(releasedBy(t, current), next, "synchronize() waits for GPU 0's next batch");
    assert.deepEqual([t.calls.device[one], t.calls.device[current]], [1, 0]);
  },
  'host-func-fixed': (t) => {
    const steps = ops(t, 'step');
    for (let i = 1; i < steps.length; i++) assert.equal(start(t, steps[i]), end(t, steps[i - 1]), 'back to back');
    assert.equal(releasedBy(t, calls(t, 'query')[0]), RELEASED_NONE);
  },
};

test('every example has a schema, a name, a description, and an expected outcome here', () => {
  assert.deepEqual(files.map((f) => f.replace('.scenario.json', '')).sort(), Object.keys(expectations).sort());
  for (const f of files) {
    const json = parseJsonc(readFileSync(`${dir}/${f}`, 'utf8'));
    assert.equal(json.$schema, '../media/schema/scenario.schema.json', f);
    assert.ok(typeof json.name === 'string' && json.description.length > 80, f);
    if (/-buggy\./.test(f)) assert.match(json.description, /\bS\d+\b/, `${f} names the rule it breaks`);
  }
  assert.ok(files.includes('seed-side-stream-event-sync.scenario.json'), 'the default example of `npm start`');
});

for (const [name, check] of Object.entries(expectations)) {
  test(`example ${name}`, () => check(load(name)));
}
