// ROCm/HIP Kineto traces import with the CUDA rules: one table of API names serves both vendors.
// The fixture is made by hand in the field shapes of a real MI300X trace (its README says whence);
// expected values are read from it by hand (ts and dur in µs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importPytorch } from '../../core/import';
import { callKindOf } from '../../core/import/cuda-api';
import { callKind, edgeKind, isWait, str, type Trace } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';

const load = (): Trace => importPytorch(readFileSync(repoPath('test/fixtures/torch/rocm/hip_sync.json')));
const callNamed = (t: Trace, name: string): number =>
  [...Array(t.calls.count).keys()].find((c) => str(t, t.calls.name[c]) === name) ?? -1;

test('HIP entry points have the call kinds of their CUDA counterparts', () => {
  const kinds: Record<string, string> = {
    hipLaunchKernel: 'launch',
    hipExtLaunchKernel: 'launch',
    hipModuleLaunchKernel: 'launch',
    hipGraphLaunch: 'launch',
    hipLaunchKernel_spt: 'launch',
    hipEventRecord: 'record',
    hipStreamWaitEvent: 'streamWait',
    hipEventQuery: 'query',
    hipEventSynchronize: 'eventSync',
    hipStreamSynchronize: 'streamSync',
    hipStreamSynchronize_spt: 'streamSync',
    hipDeviceSynchronize: 'deviceSync',
    hipCtxSynchronize: 'deviceSync',
    hipEventElapsedTime: 'elapsed',
    hipMemcpy: 'memcpy',
    hipMemcpyAsync: 'memcpy',
    hipMemcpyWithStream: 'memcpy',
    hipMemsetAsync: 'memset',
    hipLaunchHostFunc: 'hostFunc',
    hipMalloc: 'api',
    hipStreamSynchronizeX: 'api',
  };
  assert.deepEqual(Object.fromEntries(Object.keys(kinds).map((n) => [n, callKindOf(n)])), kinds);
});

test('a HIP trace: its synchronizes are waits, its launches issue their kernels, and a device synchronize is released exactly', () => {
  const t = load();
  const waits = [...Array(t.calls.count).keys()].filter((c) => isWait(t, c)).map((c) => str(t, t.calls.name[c]));
  assert.deepEqual(waits, ['hipStreamSynchronize', 'hipEventSynchronize', 'hipDeviceSynchronize']);
  assert.equal(callKind(t, callNamed(t, 'hipEventRecord')), 'record');
  assert.equal(callKind(t, callNamed(t, 'hipMemcpyWithStream')), 'memcpy');

  // Four kernels (correlation 1, 2, 5, 7), each issued by its launch, on stream 1 of device 0.
  assert.equal(t.ops.count, 4);
  const launches = [...Array(t.calls.count).keys()].filter((c) => callKind(t, c) === 'launch');
  assert.deepEqual(
    launches.map((c) => str(t, t.calls.name[c])),
    ['hipLaunchKernel', 'hipLaunchKernel', 'hipExtLaunchKernel', 'hipLaunchKernel'],
  );
  for (let op = 0; op < t.ops.count; op++) {
    assert.equal(t.ops.call[op], launches[op]);
    assert.equal(t.lanes[t.ops.lane[op]].name, 'stream 1');
    assert.ok([...Array(t.edges.count).keys()].some((e) => edgeKind(t, e) === 'launch' && t.edges.to[e] === op));
  }
  assert.equal(
    str(t, t.ops.name[0]),
    'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>) [clone .kd]',
  );

  // hipDeviceSynchronize: ts 5888467281200, dur 426 (ends at ...81626); the last kernel before it
  // (correlation 7) ran from ...81197.25 for 420.547 µs, so it ended at ...81617.797.
  const sync = callNamed(t, 'hipDeviceSynchronize');
  assert.equal(t.calls.releasedBy[sync], 3);
  assert.equal(t.calls.unblockNs[sync], 8_203);
  assert.equal(t.calls.blockedNs[sync], 417_797);
  assert.equal(t.meta.device?.name, 'AMD Instinct MI300X');
});
