// Fixes as edits: each edit read by hand on a small trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200, simulate } from '../../core/simulate';
import { compileScenario } from '../../core/scenario/parse';
import { str, TraceBuilder } from '../../core/trace/model';
import { savedNs, whatIf } from '../../core/whatif/fixes';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { readFileSync } from 'node:fs';
import { repoPath } from '../helpers/paths';

/** A 1 MiB pageable async copy that held the host 2 ms, then 1 ms of host work and a stream sync. */
function pageable() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0, nonBlocking: true, handle: 3 });
  const c = b.call({
    lane: host,
    kind: 'memcpy',
    begin: 0,
    end: 2_000_000,
    stream: s,
    name: 'cudaMemcpyAsync',
    blockedNs: 1_990_000,
    releasedBy: 0,
  });
  b.op({
    lane: s,
    kind: 'memcpy',
    start: 5000,
    end: 2_000_000,
    call: c,
    copy: 'HtoD',
    bytes: 1 << 20,
    hostMemory: 'pageable',
  });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 3_000_000,
    end: 3_010_000,
    stream: s,
    name: 'cudaStreamSynchronize',
  });
  return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
}

test('a pageable copy fix: the copy reads a pinned buffer, asynchronously, at the profile bandwidth; its wait shrinks', () => {
  const [r] = whatIf(pageable(), h200, 'all');
  assert.equal(r.finding.kind, 'pageable-async-copy');
  assert.equal(r.applied, true);
  assert.match(r.scenario!, /"h_pinned_1048576":\{"bytes":1048576,"host":"pinned"\}/);
  assert.match(
    r.scenario!,
    /\{"copy":"h_pinned_1048576","to":"d_1048576","bytes":1048576,"async":true,"stream":"s3"\}/,
  );
  // Before: the copy's 1.995 ms held the host; after: the host returns at once and the 1 ms of host
  // work covers the pinned copy (1 MiB at tens of GB/s: tens of us), so the host saves about 2 ms.
  assert.ok(r.before.hostNs - r.after!.hostNs > 1_900_000, `${r.before.hostNs} -> ${r.after!.hostNs}`);
  assert.equal(r.waits[0].call, 0);
  assert.ok(r.waits[0].afterNs! < 10_000);
});

test('a fix that cannot apply says why', () => {
  const [r] = whatIf(pageable(), h200, ['F1'], { from: 2_500_000 });
  assert.equal(r.applied, false);
  assert.match(r.edit, /^cannot apply: its copies are not in the scenario/);
});

const simulated = (text: string) => simulate(compileScenario(text), h200);

test('a loop-sync fix: the synchronizes are removed and the GPU runs the kernels back to back', () => {
  // Four 100 us kernels, each followed by a device synchronize and 20 us of host work; one last
  // synchronize (another line, so not part of the loop) waits for everything.
  const t = simulated(`{ "name": "loop", "steps": [
    { "repeat": 4, "steps": [ { "launch": "k", "us": 100 }, { "deviceSync": true }, { "hostWork": { "us": 20 } } ] },
    { "deviceSync": true } ] }`);
  const [r] = whatIf(t, h200, 'all', {});
  assert.equal(r.finding.kind, 'loop-sync');
  assert.equal(r.edit, 'remove 4 synchronize steps');
  assert.equal((r.scenario!.match(/"deviceSync"/g) ?? []).length, 1);
  // Before, each 20 us of host work ran while the GPU sat idle; after, it overlaps the next kernel:
  // the host saves the 4 x 20 us, plus what each removed synchronize cost beyond that (its call and
  // wake-up), and the GPU's busy time (4 x 100 us plus overheads) stays the same.
  const saved = r.before.hostNs - r.after!.hostNs;
  assert.ok(saved >= 80_000 && saved <= 80_000 + 4 * 10_000, `saved ${saved}`);
  assert.ok(Math.abs(r.before.gpuBusyNs - r.after!.gpuBusyNs) < 1000);
  // The four loop waits are gone; the last one now waits for the work they used to.
  assert.deepEqual(
    r.waits.filter((w) => w.afterNs === undefined).map((w) => w.name),
    ['cudaDeviceSynchronize', 'cudaDeviceSynchronize', 'cudaDeviceSynchronize', 'cudaDeviceSynchronize'],
  );
});

test('a loop-sync whose synchronize reads a copy to pinned memory: the fix moves the read after the loop, not away', () => {
  // Four passes of a 100 us kernel, its result copied to pinned memory, a stream wait on another
  // stream for the copy (no host wait), a device synchronize and 50 us of host work on the copy;
  // then a last kernel and a stream synchronize.
  const t = simulated(`{ "name": "logged", "streams": { "s": { "nonBlocking": true }, "u": { "nonBlocking": true } },
    "events": { "copied": {} }, "buffers": { "d": { "bytes": 8 }, "h": { "bytes": 8, "host": "pinned" } },
    "steps": [ { "repeat": 4, "steps": [ { "launch": "step", "stream": "s", "us": 100, "writes": ["d"] },
      { "copy": "d", "to": "h", "async": true, "stream": "s" }, { "record": "copied", "stream": "s" },
      { "wait": "copied", "stream": "u" }, { "deviceSync": true }, { "hostWork": { "us": 50 } } ] },
      { "launch": "last", "stream": "s", "us": 10 }, { "streamSync": "s" } ] }`);
  const r = whatIf(t, h200, 'all').find((x) => x.finding.kind === 'loop-sync')!;
  assert.equal(
    r.edit,
    "move 4 synchronize steps that read a copy to host memory to the thread's next host wait (the values read after the loop)",
  );
  // The recorded window is the four passes: their synchronizes now all come after the last launch.
  const text = r.scenario!;
  assert.ok(text.lastIndexOf('"launch"') < text.indexOf('"deviceSync"'), text);
  // After: the host's 60 us a pass runs under the GPU's 100 us kernels, and the window's work is
  // done once the GPU's is, its busy time and the first launch and last wake-up (under 20 us) after.
  // Before, the GPU sat idle for the wake-up, 50 us of host work and a launch after each of the
  // first three passes.
  assert.ok(r.after!.doneNs - r.after!.gpuBusyNs < 20_000, `${r.after!.doneNs} against ${r.after!.gpuBusyNs}`);
  const saved = r.before.doneNs - r.after!.doneNs;
  assert.ok(saved > 3 * 50_000 && saved < 3 * 65_000, `saved ${saved}`);
});

test("a removed synchronize takes its measured return with it: the host work that the trace's late wake-up became", () => {
  // The loop above, but each of the loop's four synchronizes returned 20 us later after its kernel
  // than the profile's 3.6 us wake-up (as a capture's callbacks make it): everything after moves on.
  const t = simulated(`{ "name": "loop", "steps": [
    { "repeat": 4, "steps": [ { "launch": "k", "us": 100 }, { "deviceSync": true }, { "hostWork": { "us": 20 } } ] },
    { "deviceSync": true } ] }`);
  const { calls: c, ops: o } = t;
  const syncs = [...Array(c.count).keys()].filter((i) => str(t, c.name[i]) === 'cudaDeviceSynchronize');
  for (const i of syncs.slice(0, 4)) {
    const from = c.end[i];
    for (let k = 0; k < c.count; k++)
      if (c.begin[k] >= from) {
        c.begin[k] += 20_000;
        c.end[k] += 20_000;
      }
    for (let j = 0; j < o.count; j++)
      if (o.start[j] >= from) {
        o.start[j] += 20_000;
        o.end[j] += 20_000;
      }
    c.end[i] += 20_000;
    c.blockedNs[i] += 20_000;
    c.unblockNs[i] += 20_000;
  }
  const wakes = [...scenarioFromTrace(t, h200).threads.values()][0].filter((st) => st.partOf !== undefined);
  assert.deepEqual(
    wakes.map((st) => [st.partOf, st.step]),
    syncs.slice(0, 4).map((i) => [i, { hostWork: { ns: 20_000 } }]),
  );
  const [r] = whatIf(t, h200, 'all', {});
  assert.equal(r.finding.kind, 'loop-sync');
  assert.equal(r.edit, 'remove 4 synchronize steps');
  assert.doesNotMatch(r.scenario!, /returned this much later/);
  // The host saves the 4 x 20 us of host work the GPU did not overlap and the 4 x 20 us of late
  // returns, plus what each removed synchronize cost beyond that (its call and wake-up).
  const saved = r.before.hostNs - r.after!.hostNs;
  assert.ok(saved >= 160_000 && saved <= 160_000 + 4 * 10_000, `saved ${saved}`);
});

/** `.item()` as PyTorch leaves it: a kernel, a 4-byte device-to-host copy and a stream synchronize in aten::item, then more work. */
function item() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0, nonBlocking: true, handle: 7 });
  const context = 'aten::item > aten::_local_scalar_dense';
  const k1 = b.call({ lane: host, kind: 'launch', begin: 0, end: 5000, stream: s, name: 'cudaLaunchKernel' });
  b.op({ lane: s, kind: 'kernel', start: 5000, end: 505_000, call: k1, name: 'loss' });
  const cp = b.call({
    lane: host,
    kind: 'memcpy',
    begin: 10_000,
    end: 20_000,
    stream: s,
    name: 'cudaMemcpyAsync',
    context,
  });
  b.op({
    lane: s,
    kind: 'memcpy',
    start: 505_000,
    end: 507_000,
    call: cp,
    copy: 'DtoH',
    bytes: 4,
    hostMemory: 'pinned',
  });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 20_000,
    end: 510_000,
    stream: s,
    name: 'cudaStreamSynchronize',
    blockedNs: 487_000,
    releasedBy: 1,
    context,
  });
  // The next step's kernel, then the thread's next wait.
  const k2 = b.call({ lane: host, kind: 'launch', begin: 610_000, end: 615_000, stream: s, name: 'cudaLaunchKernel' });
  b.op({ lane: s, kind: 'kernel', start: 615_000, end: 815_000, call: k2, name: 'step' });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 620_000,
    end: 820_000,
    stream: s,
    name: 'cudaStreamSynchronize',
    blockedNs: 195_000,
    releasedBy: 2,
  });
  return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
}

test('a hidden-sync fix: the .item() synchronize moves to the next wait, so the host work after it overlaps the GPU', () => {
  const results = whatIf(item(), h200, 'all');
  const r = results.find((x) => x.finding.kind === 'hidden-sync')!;
  assert.equal(r.applied, true, r.edit);
  assert.match(r.edit, /^move 1 synchronize step/);
  // The moved synchronize sits right before the last one.
  const syncs = r.scenario!.split('\n').filter((l) => /"streamSync"|"launch"/.test(l));
  assert.deepEqual(
    syncs.map((l) => /"(streamSync|launch)"/.exec(l)![1]),
    ['launch', 'launch', 'streamSync', 'streamSync'],
  );
  // Before: the host waited ~490 us for "loss", then did 100 us of work, launched "step" and waited
  // 200 us for it: about 820 us. After: the 100 us of host work runs while "loss" (500 us) runs, and
  // "step" (200 us) follows it on the stream: the host span is about 5 + 500 + 2 + 200 us, some 100 us less.
  const saved = r.before.hostNs - r.after!.hostNs;
  assert.ok(saved > 90_000 && saved < 115_000, `saved ${saved}`);
  // The moved synchronize (call 2) now waits for "loss" and "step" together, which is no less than
  // before; the thread's last wait (call 4), which waited ~200 us for "step", returns at once.
  assert.deepEqual(
    r.waits.map((w) => [w.call, w.afterNs]),
    [[4, 0]],
  );
});

test('a race fix: the second stream waits for the first, and the fix reports its cost', () => {
  // "load" (150 us) writes batch on one stream while "train" (300 us) reads it on another.
  const t = simulated(`{ "name": "race", "streams": { "a": { "nonBlocking": true }, "b": { "nonBlocking": true } },
    "buffers": { "batch": { "bytes": 1024 } },
    "steps": [ { "launch": "load", "stream": "a", "us": 150, "writes": ["batch"] },
      { "launch": "train", "stream": "b", "us": 300, "reads": ["batch"] }, { "deviceSync": true } ] }`);
  const r = whatIf(t, h200, 'all').find((x) => x.finding.kind === 'race')!;
  assert.equal(r.applied, true, r.edit);
  assert.equal(r.isCost, true);
  // Recorded right after "load" and waited for right before "train" (the simulator issued them back to back).
  assert.match(
    r.scenario!,
    /"launch":"load".*\n.*\{"record":"fix_0_1","stream":"a"\}.*\n.*\{"wait":"fix_0_1","stream":"b"\}.*\n.*"launch":"train"/,
  );
  // Before, both ran at once: ~300 us. After, "train" starts when "load" ends: ~150 + 300 us. The
  // cost is load's 150 us, give or take the record and wait calls.
  const cost = r.after!.hostNs - r.before.hostNs;
  assert.ok(cost > 140_000 && cost < 165_000, `cost ${cost}`);
});

test('a device-wide-wait fix: the host synchronizes on an event after the copy it needed, not on the whole device', () => {
  // A 2 ms kernel on stream "side" the host never needs; on "main" a 100 us kernel and a copy of its
  // result to pinned memory, then a device synchronize, 3 ms of host work on the copied result, and
  // the next step's first kernel, synchronized.
  const t =
    simulated(`{ "name": "narrow", "streams": { "main": { "nonBlocking": true }, "side": { "nonBlocking": true } },
    "buffers": { "d": { "bytes": 4096 }, "h": { "bytes": 4096, "host": "pinned" } },
    "steps": [ { "launch": "ema", "stream": "side", "us": 2000 },
      { "launch": "loss", "stream": "main", "us": 100, "writes": ["d"] },
      { "copy": "d", "to": "h", "async": true, "stream": "main" },
      { "deviceSync": true }, { "hostWork": { "us": 3000 } },
      { "launch": "next", "stream": "main", "us": 10 }, { "streamSync": "main" } ] }`);
  const r = whatIf(t, h200, 'all').find((x) => x.finding.kind === 'device-wide-wait')!;
  assert.equal(r.applied, true, r.edit);
  assert.equal(
    r.edit,
    'synchronize on an event recorded after the op the host needed, in place of 1 device synchronize',
  );
  assert.match(
    r.scenario!,
    /"copy":"d_4096".*\n.*\{"record":"fix_narrow_3","stream":"main"\}.*\n.*\{"eventSync":"fix_narrow_3"\}/,
  );
  assert.doesNotMatch(r.scenario!, /"deviceSync"/);
  // Before: the synchronize returns once "ema" ends, about 2 ms in, and the host work ends 3 ms
  // later. After: it returns once the copy ends, about 100 us in, and the host work ends at about
  // 3.1 ms, after "ema". The saving is ema's 2 ms less loss's 100 us and the
  // copy's few us: the time the finding says the event wait saves, give or take the record call.
  const saved = r.before.doneNs - r.after!.doneNs;
  assert.ok(saved > 1_850_000 && saved < 1_900_000, `saved ${saved}`);
  assert.ok(Math.abs(saved - r.finding.savedNs!) < 5000, `${saved} vs the finding's ${r.finding.savedNs}`);
});

/** A 1 ms kernel on blocking stream s, then a 10 us kernel on the legacy default stream that the host synchronizes. */
const LEGACY = `{ "name": "legacy", "streams": { "s": {} },
  "steps": [ { "launch": "long", "stream": "s", "us": 1000 }, { "launch": "short", "us": 10 }, { "streamSync": "default" } ] }`;

test('a legacy-serialization fix: the blocking stream becomes non-blocking, and the host no longer waits for its kernel', () => {
  const t = simulated(LEGACY);
  const r = whatIf(t, h200, 'all').find((x) => x.finding.kind === 'legacy-serialization')!;
  assert.equal(r.applied, true, r.edit);
  assert.equal(r.edit, 'make stream "s" non-blocking, so the legacy default stream no longer orders it');
  assert.match(r.scenario!, /"streams": \{"s":\{"nonBlocking":true\}\}/);
  // Before: "long" runs from 6.5 us to 1,009.1 us (1 ms and the 2.6 us kernel overhead), and "short"
  // starts only when it ends; after, "short" starts once its launch call (5.5 to 10.5 us, onto an
  // idle stream, as the simulated trace has it) is submitted, at 11.5 us, so the host's synchronize
  // returns 1,009.1 - 11.5 = 997.6 us earlier.
  assert.equal(r.before.hostNs - r.after!.hostNs, 1_009_100 - 11_500);
  assert.equal(r.waits.length, 1);
});

test('a legacy-serialization fix that cannot apply: the blocking stream is non-blocking already in the scenario', () => {
  const t = simulated(LEGACY);
  // A trace whose stream says it is non-blocking (a flag the import got wrong) keeps the finding but has nothing to change.
  t.lanes.forEach((l) => {
    if (l.kind === 'stream' && !l.legacyDefault) l.nonBlocking = true;
  });
  const r = whatIf(t, h200, 'all').find((x) => x.finding.kind === 'legacy-serialization')!;
  assert.equal(r.applied, false);
  assert.match(r.edit, /^cannot apply: stream s\S* is non-blocking already$/);
});

test("a saving counts until the window's work is done, not only until the host is through its calls", () => {
  // pageable-copy-buggy: three iterations of a 500 us kernel and an 8 MiB pageable copy back, then a
  // streamSync. The recorded window ends with the third iteration, before that streamSync. With the
  // copies pinned the host is through the window's calls in microseconds, but the GPU still has the
  // kernels and copies to run: the saving is what pageable-copy-fixed (written by hand, the same
  // program with a pinned buffer) takes less, as simulated, not the host's span.
  const buggy = simulate(
    compileScenario(readFileSync(repoPath('examples/pageable-copy-buggy.scenario.json'), 'utf8')),
    h200,
  );
  const fixed = simulate(
    compileScenario(readFileSync(repoPath('examples/pageable-copy-fixed.scenario.json'), 'utf8')),
    h200,
  );
  const end = (t: typeof buggy) => Math.max(...t.calls.end.subarray(0, t.calls.count));
  const [r] = whatIf(buggy, h200, ['F1']);
  assert.equal(r.edit, 'copy from pinned host memory, asynchronously, in 3 copies');
  assert.ok(r.after!.hostNs < 100_000, `the fixed host's span ${r.after!.hostNs}`);
  const truth = end(buggy) - end(fixed);
  assert.ok(truth > 1_400_000 && truth < 1_700_000, `buggy less fixed: ${truth}`);
  assert.ok(Math.abs(savedNs(r)! - truth) < 30_000, `predicted ${savedNs(r)} against ${truth}`);
});

test('a device-wide-wait fix frees the host when device-sync-fixed, the fix written by hand, does', () => {
  const example = (name: string) =>
    simulate(compileScenario(readFileSync(repoPath(`examples/${name}.scenario.json`), 'utf8')), h200);
  const buggy = example('device-sync-buggy');
  const fixed = example('device-sync-fixed');
  const [r] = whatIf(buggy, h200, ['F1']);
  assert.equal(r.applied, true, r.edit);
  // The hand-written fix's event synchronize returns 150 us of "metric", its copy and the launch
  // calls into the run; the host's span is its last return.
  const fixedHostNs = Math.max(...fixed.calls.end.subarray(0, fixed.calls.count));
  assert.ok(fixedHostNs > 150_000 && fixedHostNs < 200_000, `fixed ${fixedHostNs}`);
  assert.ok(Math.abs(r.after!.hostNs - fixedHostNs) < 2000, `edit ${r.after!.hostNs} against ${fixedHostNs}`);
  assert.ok(r.before.hostNs > 2_000_000, `buggy ${r.before.hostNs}`);
});

test('removing an event synchronize keeps the GPU order it gave with a stream wait, as Stream.wait_event does', () => {
  // Each iteration: a 300 us producer on the side stream, its event recorded and synchronized by the
  // host, then a 100 us consumer on the default stream. The fix frees the host, but the consumer
  // still starts after the producer it read: a stream wait on the default stream takes the host's place.
  const t = simulated(`{ "name": "handoff", "streams": { "side": { "nonBlocking": true } }, "events": { "ready": {} },
    "steps": [
      { "repeat": 4, "steps": [
        { "launch": "producer", "stream": "side", "us": 300 },
        { "record": "ready", "stream": "side" },
        { "eventSync": "ready" },
        { "launch": "consumer", "us": 100 },
        { "hostWork": { "us": 20 } } ] },
      { "deviceSync": true } ] }`);
  const [r] = whatIf(t, h200, 'all', {});
  assert.equal(r.finding.kind, 'loop-sync');
  assert.equal(r.edit, 'remove 4 synchronize steps, keeping the GPU order with 4 stream waits');
  assert.equal((r.scenario!.match(/\{"wait":"ev_ready"\}/g) ?? []).length, 4);
  // In the fixed run every consumer starts after the producer of its iteration ends.
  const after = r.simulated!.after;
  const ops = (name: string) =>
    [...Array(after.ops.count).keys()].filter((j) => str(after, after.ops.name[j]) === name);
  const [producers, consumers] = [ops('producer'), ops('consumer')];
  assert.equal(consumers.length, 4);
  consumers.forEach((c, k) => assert.ok(after.ops.start[c] >= after.ops.end[producers[k]], `consumer ${k}`));
});

test('a fix applies to every call its finding stands for, past the fifty that the finding lists', () => {
  // 80 steps of 100 us: a launch of a 50 us kernel, then a stream sync; the host then works 40 us
  // before its next launch. One loop-sync finding stands for all 80 syncs; it lists the first 50.
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'legacy', device: 0, legacyDefault: true });
  for (let k = 0; k < 80; k++) {
    const at = k * 100_000;
    const c = b.call({ lane: host, kind: 'launch', begin: at, end: at + 4000, stream: s, name: 'cudaLaunchKernel' });
    b.op({ lane: s, kind: 'kernel', start: at + 5000, end: at + 55_000, call: c, name: 'gemm' });
    b.call({ lane: host, kind: 'streamSync', begin: at + 6000, end: at + 58_000, stream: s, blockedNs: 50_000 });
  }
  const t = b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
  const r = whatIf(t, h200, 'all').find((x) => x.finding.kind === 'loop-sync');
  assert.ok(r, 'a loop-sync finding');
  assert.equal(r.finding.calls.length, 50);
  assert.equal(r.applied, true);
  // The window leaves no step out here: every sync of the 80 is removed.
  assert.equal(r.edit, 'remove 80 synchronize steps');
});
