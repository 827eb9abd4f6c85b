// S21 on hardware: a scenario on two GPUs, run on the GPUs and in the simulator, must agree on
// every happens-before relation between named ops and on the op that released every pending wait,
// and no wait may return before its releasing op. Needs two CUDA devices with peer access.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { happensBefore } from '../../core/analyze';
import { simulate } from '../../core/simulate';
import { h200 } from '../../core/simulate/profile';
import { COPY_KINDS, isWait, str, type Trace } from '../../core/trace/model';
import { runOnGpu } from '../../runner/gpu';
import { asRecorded } from '../../core/gpu-run/recorded';
import { assertGpu, callsOf, compile, needsDevices, op, releaser, span } from './gpu';

const RUNS = 5;
const opts = { skip: needsDevices(2) };

const program = compile({
  name: 'S21 two devices',
  streams: { p: { nonBlocking: true }, c: { nonBlocking: true, device: 1 }, side1: { nonBlocking: true, device: 1 } },
  events: { produced: {}, consumed: { device: 1 } },
  buffers: { b0: { bytes: 16 << 20 }, b1: { bytes: 16 << 20, device: 1 } },
  steps: [
    { launch: 'produce', stream: 'p', us: 300, writes: ['b0'] },
    { record: 'produced', stream: 'p' },
    { wait: 'produced', stream: 'c' },
    { copy: 'b0', to: 'b1', async: true, stream: 'c' },
    { launch: 'consume', stream: 'c', us: 200, reads: ['b1'] },
    { record: 'consumed', stream: 'c' },
    { launch: 'long0', stream: 'p', us: 2000 },
    { launch: 'free1', stream: 'side1', us: 50 },
    { deviceSync: 1 },
    { eventSync: 'consumed' },
    { setDevice: 1 },
    { launch: 'tail1', us: 100 },
    { deviceSync: true },
    { deviceSync: 0 },
  ],
});

const NAMES = [
  'produce',
  'record produced',
  'wait produced',
  'PtoP b0 -> b1',
  'consume',
  'record consumed',
  'long0',
  'free1',
  'tail1',
];

/** Every ordered pair of named ops that happens-before relates, as "a < b". */
function relations(t: Trace): string[] {
  const hb = happensBefore(t);
  const out: string[] = [];
  for (const a of NAMES)
    for (const b of NAMES)
      if (a !== b && hb.before({ kind: 'op', id: op(t, a) }, { kind: 'op', id: op(t, b) })) out.push(`${a} < ${b}`);
  return out.sort();
}

/** The releasing op of every host wait that was clearly pending in the simulator, by step. */
function releasers(sim: Trace, other: Trace): [string, string, string][] {
  return [...Array(sim.calls.count).keys()]
    .filter((i) => isWait(sim, i) && sim.calls.blockedNs[i] > 20_000)
    .map((i) => {
      const j = [...Array(other.calls.count).keys()].find((k) => other.calls.step[k] === sim.calls.step[i]);
      assert.ok(j !== undefined, `wait at step ${sim.calls.step[i]} missing`);
      return [`step ${sim.calls.step[i]}`, releaser(sim, i), releaser(other, j)];
    });
}

test(
  'S21 two devices on hardware: the same happens-before relations and releasing ops as the simulator, and no causality violation',
  opts,
  async (t) => {
    assertGpu();
    const sim = simulate(program, asRecorded(h200));
    const expected = relations(sim);
    assert.ok(expected.includes('produce < consume'), 'the scenario orders device 0 before device 1');
    let violations = 0;
    for (let run = 0; run < RUNS; run++) {
      const gpu = await runOnGpu(program);
      assert.deepEqual(relations(gpu), expected, `run ${run}: happens-before`);
      const released = releasers(sim, gpu);
      assert.ok(released.length > 0, 'pending waits compared');
      for (const [where, s, g] of released)
        assert.equal(g, s, `run ${run}, ${where}: released by "${g}" on the GPU, "${s}" in the simulator`);
      for (let i = 0; i < gpu.calls.count; i++) {
        if (isWait(gpu, i) && gpu.calls.releasedBy[i] >= 0 && gpu.calls.unblockNs[i] < -gpu.meta.alignmentErrorNs)
          violations++;
      }
      // The lanes name their devices, and the copy between the two is a peer copy on device 1's stream.
      const peer = op(gpu, 'PtoP b0 -> b1');
      assert.equal(COPY_KINDS[gpu.ops.copy[peer]], 'PtoP');
      assert.deepEqual(
        ['produce', 'consume', 'long0', 'tail1'].map((n) => gpu.lanes[gpu.ops.lane[op(gpu, n)]].device),
        [0, 1, 0, 1],
      );
      // deviceSync(1) did not wait for device 0's long kernel (allowing both devices' alignment error).
      const [sync1] = callsOf(gpu, 'deviceSync');
      const slack = 2 * gpu.meta.alignmentErrorNs;
      assert.ok(
        gpu.calls.end[sync1] < span(gpu, op(gpu, 'long0')).end - slack,
        `run ${run}: deviceSync(1) waited for device 0`,
      );
      assert.ok(
        span(gpu, op(gpu, 'consume')).start >= span(gpu, op(gpu, 'produce')).end - slack,
        `run ${run}: consume ran before produce ended`,
      );
      t.diagnostic(
        `run ${run}: ${gpu.meta.devices?.map((d) => `${d.device}: ${d.name}`).join(', ')}; alignment ${gpu.meta.alignmentErrorNs} ns; ${(gpu.meta.notes ?? []).filter((n) => n.startsWith('device')).join('; ')}`,
      );
    }
    assert.equal(violations, 0);
    assert.equal(str(sim, sim.calls.name[callsOf(sim, 'api')[0]]), 'cudaSetDevice');
  },
);
