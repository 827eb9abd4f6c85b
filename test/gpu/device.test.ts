// A machine with an NVIDIA GPU must be able to use it: there, a native runtime that is missing or
// fails to load is a failure, never a reason for the GPU tests to skip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertGpu, deviceCount, nvidiaDevice } from './gpu';

test(
  'an NVIDIA GPU on this machine is seen by the native runtime',
  { skip: nvidiaDevice ? false : 'no NVIDIA GPU here (no /dev/nvidia0, no /proc/driver/nvidia/gpus, no nvidia-smi)' },
  () => {
    assertGpu();
    assert.ok(deviceCount > 0, `${nvidiaDevice}, but the runtime found no CUDA device`);
  },
);
