import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { compileScenario } from '../../../core/scenario/parse';
import { simulate } from '../../../core/simulate';
import { ANSWERS, EDGE_KINDS, RELEASED_NONE, str } from '../../../core/trace/model';
import { assembleTrace } from '../../../core/gpu-run/assemble';
import { REC, RECORD_WIDTH } from '../../../core/gpu-run/encode';
import { repoPath } from '../../helpers/paths';

const program = compileScenario(
  JSON.stringify(
    {
      name: 'assembly',
      streams: { side: {} },
      events: { e: { timing: true } },
      steps: [
        { launch: 'a', stream: 'side', us: 100 },
        { record: 'e', stream: 'side' },
        { launch: 'b', us: 50 },
        { query: 'e' },
        { eventSync: 'e' },
        { deviceSync: true },
        { streamSync: 'side' },
      ],
    },
    null,
    2,
  ),
  'assembly.scenario.json',
);

/** Raw records as the addon returns them, for host and device times given in µs, with an exact clock. */
function raw(rows: Partial<Record<keyof typeof REC, number>>[]) {
  const records = new Float64Array(rows.length * RECORD_WIDTH).fill(NaN);
  rows.forEach((r, g) => {
    for (const [k, v] of Object.entries(r))
      records[g * RECORD_WIDTH + REC[k as keyof typeof REC]] =
        k === 'done' || k === 'answer' || k === 'status' ? v : v * 1000;
  });
  // Two bursts of perfect brackets (device time = host time): offset 0, error only the event resolution.
  const burst = [0, 1, 2].flatMap((i) => [i * 1e6, i * 1e6, i * 1e6]);
  const calibration = Float64Array.from([
    3,
    ...burst,
    ...burst.map((x) => x + 5e6),
    ...burst,
    ...burst.map((x) => x + 5e6),
  ]);
  return {
    records,
    calibration,
    device: { name: 'Test GPU', sms: 4, computeCapability: '9.0', cudaDriverVersion: 13000 },
  };
}

const trace = assembleTrace(
  program,
  raw([
    { hostBegin: 10, hostEnd: 14, gpuStart: 15, gpuEnd: 115, truthStart: 16, truthEnd: 114, done: 1 }, // a
    { hostBegin: 16, hostEnd: 17, gpuStart: 115, gpuEnd: 115, done: 1 }, // record e
    { hostBegin: 18, hostEnd: 22, gpuStart: 116, gpuEnd: 168, done: 1 }, // b, after a (S3)
    { hostBegin: 23, hostEnd: 23.5, answer: 2, status: 600, done: 1 }, // query: not ready
    { hostBegin: 24, hostEnd: 119, done: 1 }, // eventSync e
    { hostBegin: 120, hostEnd: 172, done: 1 }, // deviceSync
    { hostBegin: 173, hostEnd: 173.5, done: 1 }, // streamSync side: nothing pending
  ]),
);

const call = (kind: string) =>
  [...Array(trace.calls.count).keys()].find(
    (i) =>
      ['launch', 'record', 'streamWait', 'query', 'eventSync', 'streamSync', 'deviceSync'][trace.calls.kind[i]] ===
      kind,
  )!;
const op = (name: string) => [...Array(trace.ops.count).keys()].find((i) => str(trace, trace.ops.name[i]) === name)!;

test('times start at the first call and device times map into the host clock', () => {
  assert.equal(trace.meta.source, 'gpu');
  assert.equal(trace.calls.begin[0], 0);
  // No latency samples in this calibration block: an idle stream's kernel starts at its launch's return.
  assert.equal(trace.ops.start[op('a')], 4000);
  assert.equal(trace.ops.end[op('a')], 105000);
  assert.equal(trace.ops.truthStart[op('a')], 6000);
  assert.equal(trace.meta.alignmentErrorNs, 250);
});

test('S12 S16 an event synchronize is released by the kernel its record captured, with its unblock latency', () => {
  const c = call('eventSync');
  assert.equal(trace.calls.releasedBy[c], op('a'));
  assert.equal(trace.calls.unblockNs[c], 119000 - 115000);
  assert.equal(trace.calls.blockedNs[c], 119000 - 24000);
});

test('S14 a device synchronize is released by the op that completed last', () => {
  const c = call('deviceSync');
  assert.equal(trace.calls.releasedBy[c], op('b'));
  assert.equal(trace.calls.unblockNs[c], 172000 - 168000);
});

test('S13 a stream synchronize with nothing pending is released by nothing', () => {
  const c = call('streamSync');
  assert.equal(trace.calls.releasedBy[c], RELEASED_NONE);
  assert.equal(trace.calls.blockedNs[c], 0);
  assert.ok(Number.isNaN(trace.calls.unblockNs[c]));
});

test('S10 a query keeps the answer the driver gave', () => {
  const c = call('query');
  assert.equal(trace.calls.answer[c], 2);
  assert.equal(str(trace, trace.calls.status[c]), 'cudaErrorNotReady');
});

test('S1 S3 edges: stream order, the legacy stream after a blocking stream, launches and releases', () => {
  const edges = [...Array(trace.edges.count).keys()].map(
    (i) => `${EDGE_KINDS[trace.edges.kind[i]]}:${trace.edges.from[i]}->${trace.edges.to[i]}`,
  );
  assert.ok(edges.includes(`stream:${op('a')}->${op('record e')}`));
  assert.ok(edges.includes(`legacy:${op('record e')}->${op('b')}`));
  assert.ok(edges.includes(`launch:${call('launch')}->${op('a')}`));
  assert.ok(edges.includes(`release:${op('a')}->${call('eventSync')}`));
  assert.ok(edges.includes(`release:${op('b')}->${call('deviceSync')}`));
});

test('S16 releasing op is the work behind an event record (GPU assembly)', () => {
  const chain = compileScenario(
    JSON.stringify({
      name: 'markers',
      streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
      events: { ea: {}, eb: {}, late: {} },
      steps: [
        { launch: 'produce', stream: 'a', us: 100 },
        { record: 'ea', stream: 'a' },
        { wait: 'ea', stream: 'b' },
        { record: 'eb', stream: 'b' },
        { eventSync: 'eb' },
        { record: 'late', stream: 'a' },
        { eventSync: 'late' },
      ],
    }),
    'markers.scenario.json',
  );
  const t = assembleTrace(
    chain,
    raw([
      { hostBegin: 0, hostEnd: 4, gpuStart: 5, gpuEnd: 105, done: 1 }, // produce
      { hostBegin: 4, hostEnd: 5, gpuStart: 105, gpuEnd: 105, done: 1 }, // record ea
      { hostBegin: 5, hostEnd: 6, gpuStart: 105, gpuEnd: 105, done: 1 }, // wait ea on b
      { hostBegin: 6, hostEnd: 7, gpuStart: 105, gpuEnd: 105, done: 1 }, // record eb
      { hostBegin: 7, hostEnd: 109, done: 1 }, // eventSync eb
      { hostBegin: 110, hostEnd: 111, gpuStart: 112, gpuEnd: 112, done: 1 }, // record late: nothing real pending behind it
      { hostBegin: 111, hostEnd: 116, done: 1 }, // eventSync late
    ]),
  );
  const named = (n: string) => [...Array(t.ops.count).keys()].find((i) => str(t, t.ops.name[i]) === n)!;
  const [chained, markerOnly] = [4, 6];
  const edges = [...Array(t.edges.count).keys()].map(
    (i) => `${EDGE_KINDS[t.edges.kind[i]]}:${t.edges.from[i]}->${t.edges.to[i]}`,
  );
  assert.equal(t.calls.releasedBy[chained], named('produce'), 'followed back through record eb, wait ea and record ea');
  assert.equal(t.calls.unblockNs[chained], 109000 - 105000);
  assert.ok(edges.includes(`release:${named('produce')}->${chained}`));
  assert.ok(!edges.includes(`release:${named('record eb')}->${chained}`));
  assert.equal(t.calls.releasedBy[markerOnly], named('record late'));
  assert.equal(t.calls.unblockNs[markerOnly], 116000 - 112000);
});

test("S16 the GPU assembly names the same releasing op as the simulator, given the simulator's times", () => {
  const ANSWER_CODE: Record<string, number> = { ready: 1, notReady: 2 };
  const STATUS_CODE: Record<string, number> = { cudaErrorNotReady: 600, cudaErrorInvalidResourceHandle: 400 };
  const programs = readdirSync(repoPath('examples'))
    .filter((f) => f.endsWith('.scenario.json'))
    .sort()
    .map((f) => compileScenario(readFileSync(repoPath('examples', f), 'utf8'), f))
    .filter((p) => p.threads.length === 1);
  let compared = 0;
  for (const program of programs) {
    const sim = simulate(program);
    // The records a GPU run with exactly the simulator's timing would give (in µs, as raw() takes them).
    const rows: Partial<Record<keyof typeof REC, number>>[] = [];
    for (let c = 0; c < sim.calls.count; c++) {
      rows[sim.calls.step[c]] = {
        hostBegin: sim.calls.begin[c] / 1000,
        hostEnd: sim.calls.end[c] / 1000,
        done: 1,
        answer: ANSWER_CODE[ANSWERS[sim.calls.answer[c]]] ?? 0,
        status: STATUS_CODE[str(sim, sim.calls.status[c])] ?? 0,
        value: sim.calls.value[c],
      };
    }
    for (let o = 0; o < sim.ops.count; o++)
      Object.assign(rows[sim.calls.step[sim.ops.call[o]]], {
        gpuStart: sim.ops.start[o] / 1000,
        gpuEnd: sim.ops.end[o] / 1000,
      });
    const gpu = assembleTrace(program, raw(rows));
    const who = (t: typeof sim, c: number) => {
      const r = t.calls.releasedBy[c];
      return r < 0 ? String(r) : `${str(t, t.ops.name[r])} on lane ${t.ops.lane[r]}`;
    };
    for (let c = 0; c < sim.calls.count; c++) {
      // Launches blocked by a full launch queue (S19) are attributed by a different rule: when the
      // queue made room is not in the GPU's records.
      if (sim.calls.releasedBy[c] < 0 || str(sim, sim.calls.name[c]) === 'cudaLaunchKernel') continue;
      assert.equal(who(gpu, c), who(sim, c), `${program.file}: call ${c} (line ${sim.calls.line[c]})`);
      assert.equal(gpu.calls.unblockNs[c], sim.calls.unblockNs[c], `${program.file}: call ${c}`);
      compared++;
    }
  }
  assert.ok(compared >= 30, `${compared} waits compared`);
});

test("a spin kernel right behind a copy starts its length before its end; a touch kernel, or one of more blocks than SMs, at the copy's end event", () => {
  const p = compileScenario(
    JSON.stringify({
      name: 'behind copies',
      streams: { s: { nonBlocking: true } },
      buffers: { d: { bytes: 4096 }, h: { bytes: 4096, host: 'pinned' }, big: { bytes: 1 << 20 } },
      steps: [
        { copy: 'd', to: 'h', async: true, stream: 's' },
        { launch: 'spin', stream: 's', us: 10 },
        { copy: 'd', to: 'h', async: true, stream: 's' },
        { launch: 'wide', stream: 's', us: 10, grid: 8 },
        { copy: 'd', to: 'h', async: true, stream: 's' },
        { launch: 'touch', stream: 's', touch: 'big' },
      ],
    }),
    'behind.scenario.json',
  );
  // Each kernel started 9 us after its copy's end event and ran 10 us; the test GPU has 4 SMs.
  const t = assembleTrace(
    p,
    raw([
      { hostBegin: 0, hostEnd: 2, gpuEnd: 10, done: 1 },
      { hostBegin: 3, hostEnd: 6, gpuEnd: 29, done: 1 },
      { hostBegin: 40, hostEnd: 42, gpuEnd: 50, done: 1 },
      { hostBegin: 43, hostEnd: 46, gpuEnd: 69, done: 1 },
      { hostBegin: 80, hostEnd: 82, gpuEnd: 90, done: 1 },
      { hostBegin: 83, hostEnd: 86, gpuEnd: 109, done: 1 },
    ]),
  );
  const start = (name: string) =>
    t.ops.start[[...Array(t.ops.count).keys()].find((i) => str(t, t.ops.name[i]) === name)!];
  assert.equal(start('spin'), 19000);
  assert.equal(start('wide'), 50000);
  assert.equal(start('touch'), 90000);
});
