// S21 in the simulator: every stream and event belongs to one device, waits may cross devices,
// deviceSync covers only its device, and each device has its own SMs, engines, legacy stream and
// launch queue; a peer copy holds the source device's outbound and the destination's inbound engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h200, loadProfile } from '../../core/simulate';
import { COPY_KINDS, str } from '../../core/trace';
import { calls, end, hasEdge, lane, op, opsOfKind, sim, start } from './simulate-helpers';

const US = 1000;
const MIB = 1 << 20;

/** Two devices with a non-blocking stream each. */
const twoDevices = {
  streams: { s0: { nonBlocking: true }, s1: { nonBlocking: true, device: 1 } },
  events: { e: {} },
};

test('S21 a stream of device 1 waiting for an event recorded on device 0 runs after the work the record captured', () => {
  const t = sim({
    ...twoDevices,
    steps: [
      { launch: 'produce', stream: 's0', us: 200 },
      { record: 'e', stream: 's0' },
      { wait: 'e', stream: 's1' },
      { launch: 'consume', stream: 's1', us: 10 },
      { launch: 'free', stream: 's1', us: 10 },
    ],
  });
  const [rec, wait] = [op(t, 'record e'), op(t, 'wait e')];
  assert.ok(hasEdge(t, 'event', rec, wait), 'event edge from the record on device 0 to the wait on device 1');
  assert.equal(start(t, op(t, 'consume')), end(t, op(t, 'produce')));
  assert.deepEqual(
    [t.lanes[t.ops.lane[op(t, 'produce')]].device, t.lanes[t.ops.lane[op(t, 'consume')]].device],
    [0, 1],
  );
  assert.equal(t.lanes[lane(t, 's1')].device, 1);
  // The host did not wait for any of it (S8).
  assert.ok(t.calls.end[calls(t, 'launch')[1]] < end(t, op(t, 'produce')));
});

test("S21 deviceSync covers only its device: the other device's work does not hold the host", () => {
  const t = sim({
    ...twoDevices,
    steps: [
      { launch: 'long0', stream: 's0', ms: 1 },
      { launch: 'short1', stream: 's1', us: 50 },
      { deviceSync: 1 },
      { setDevice: 1 },
      { deviceSync: true },
      { deviceSync: 0 },
    ],
  });
  const [sync1, current, sync0] = calls(t, 'deviceSync');
  const [long0, short1] = [op(t, 'long0'), op(t, 'short1')];
  assert.equal(t.calls.releasedBy[sync1], short1);
  assert.equal(t.calls.end[sync1], end(t, short1) + h200.spinWakeNs);
  assert.ok(t.calls.end[sync1] < end(t, long0), 'returned before device 0 finished');
  assert.deepEqual([t.calls.device[sync1], t.calls.device[current], t.calls.device[sync0]], [1, 1, 0]);
  // After setDevice(1), a bare deviceSync is device 1's: nothing there is pending any more.
  assert.equal(t.calls.blockedNs[current], 0);
  assert.equal(t.calls.releasedBy[sync0], long0);
  assert.equal(t.calls.end[sync0], end(t, long0) + h200.spinWakeNs);
  assert.equal(str(t, t.calls.name[calls(t, 'api')[0]]), 'cudaSetDevice');
});

test('S21 "default" follows setDevice: each device has its own legacy default stream, and S3 stays within a device', () => {
  const t = sim({
    streams: { b1: { device: 1 } },
    steps: [
      { launch: 'legacy0', ms: 1 },
      { launch: 'blocking1', stream: 'b1', us: 10 },
      { setDevice: 1 },
      { launch: 'legacy1', us: 10 },
      { launch: 'after1', stream: 'b1', us: 10 },
    ],
  });
  const [l0, b1, l1, a1] = ['legacy0', 'blocking1', 'legacy1', 'after1'].map((n) => op(t, n));
  assert.deepEqual(
    [t.lanes[t.ops.lane[l0]].name, t.lanes[t.ops.lane[l1]].name, t.lanes[t.ops.lane[l1]].device],
    ['default', 'default (GPU 1)', 1],
  );
  // Device 0's legacy stream does not hold device 1's blocking stream (S3 is per device)...
  assert.ok(start(t, b1) < end(t, l0), 'blocking1 ran while legacy0 did');
  // ...but device 1's legacy stream orders it both ways.
  assert.ok(hasEdge(t, 'legacy', b1, l1));
  assert.ok(hasEdge(t, 'legacy', l1, a1));
  assert.ok(start(t, l1) >= end(t, b1) && start(t, a1) >= end(t, l1));
});

test('S21 each device has its own SMs: full-wave kernels on two devices run together', () => {
  const grid = h200.sms * h200.blocksPerSm;
  const t = sim({
    ...twoDevices,
    steps: [
      { launch: 'k0', stream: 's0', us: 500, grid, block: 32 },
      { launch: 'k1', stream: 's1', us: 500, grid, block: 32 },
    ],
  });
  assert.ok(start(t, op(t, 'k1')) < end(t, op(t, 'k0')), "the second device did not wait for the first one's wave");
  const one = sim({
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    steps: [
      { launch: 'k0', stream: 'a', us: 500, grid, block: 32 },
      { launch: 'k1', stream: 'b', us: 500, grid, block: 32 },
    ],
  });
  assert.equal(start(one, op(one, 'k1')), end(one, op(one, 'k0')));
});

test("S21 a peer copy holds the source device's outbound and the destination device's inbound copy engine", () => {
  const t = sim({
    streams: {
      p: { nonBlocking: true },
      out0: { nonBlocking: true },
      in0: { nonBlocking: true },
      in1: { nonBlocking: true, device: 1 },
    },
    buffers: {
      x0: { bytes: 64 * MIB },
      x1: { bytes: 64 * MIB, device: 1 },
      y0: { bytes: 64 * MIB },
      y1: { bytes: 64 * MIB, device: 1 },
      h: { bytes: 64 * MIB, host: 'pinned' },
      g: { bytes: 64 * MIB, host: 'pinned' },
    },
    steps: [
      { copy: 'x0', to: 'x1', async: true, stream: 'p' },
      { copy: 'y0', to: 'h', async: true, stream: 'out0' },
      { copy: 'g', to: 'y1', async: true, stream: 'in1' },
      { copy: 'g', to: 'y0', async: true, stream: 'in0' },
    ],
  });
  const peer = op(t, 'PtoP x0 -> x1');
  const [dtoh0, htod1, htod0] = [op(t, 'DtoH y0 -> h'), op(t, 'HtoD g -> y1'), op(t, 'HtoD g -> y0')];
  assert.equal(COPY_KINDS[t.ops.copy[peer]], 'PtoP');
  assert.equal(end(t, peer) - start(t, peer), Math.round((64 * MIB) / h200.peerGBps));
  assert.equal(start(t, dtoh0), end(t, peer), "device 0's outbound engine was busy with the peer copy");
  assert.equal(start(t, htod1), end(t, peer), "device 1's inbound engine was busy with the peer copy");
  assert.ok(start(t, htod0) < end(t, peer), "device 0's inbound engine was free");
  // An async peer copy does not block the host.
  assert.equal(t.calls.blockedNs[calls(t, 'memcpy')[0]], 0);
  assert.deepEqual(
    opsOfKind(t, 'memcpy').map((o) => t.lanes[t.ops.lane[o]].device),
    [0, 0, 1, 0],
  );
});

test('S21 each device has its own launch queue (S19)', () => {
  const profile = loadProfile({ queueDepth: 2 });
  const t = sim(
    {
      ...twoDevices,
      steps: [
        { launch: 'long', stream: 's0', ms: 1 },
        { launch: 'q1', stream: 's0', us: 1 },
        { launch: 'q2', stream: 's0', us: 1 },
        { launch: 'other', stream: 's1', us: 1 },
        { launch: 'q3', stream: 's0', us: 1 },
      ],
    },
    profile,
  );
  const launches = calls(t, 'launch');
  assert.equal(t.calls.blockedNs[launches[3]], 0, 'device 1 had room');
  assert.ok(
    t.calls.blockedNs[launches[4]] > 900 * US,
    `q3 waited for device 0's queue: ${t.calls.blockedNs[launches[4]]}`,
  );
  assert.equal(t.calls.releasedBy[launches[4]], op(t, 'long'));
});

test('S21 each device has its own schedule: waits on a blockingSync device sleep, on others they spin', () => {
  const t = sim({
    ...twoDevices,
    devices: { 1: { schedule: 'blockingSync' } },
    steps: [
      { launch: 'k0', stream: 's0', us: 100 },
      { streamSync: 's0' },
      { launch: 'k1', stream: 's1', us: 100 },
      { streamSync: 's1' },
    ],
  });
  const [w0, w1] = calls(t, 'streamSync');
  assert.equal(t.calls.unblockNs[w0], h200.spinWakeNs);
  assert.equal(t.calls.unblockNs[w1], h200.scheduleSleepWakeNs);
});
