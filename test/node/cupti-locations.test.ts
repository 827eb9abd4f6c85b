// The CUPTI search that the build and `syncscope capture` share, on a made-up file system.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cuptiLocations } from '../../node/cupti-locations.mjs';

const tree = (files: string[]) => ({
  exists: (p: string) => files.includes(p),
  list: (d: string) => [
    ...new Set(files.filter((f) => f.startsWith(d + '/')).map((f) => f.slice(d.length + 1).split('/')[0])),
  ],
});

test('CUDA_HOME comes first, then /usr/local/cuda, then versioned toolkits newest first', () => {
  const fs = tree([
    '/usr/local/cuda-12.4/lib64/libcupti.so',
    '/usr/local/cuda-12.4/include/cupti.h',
    '/usr/local/cuda-13.0/extras/CUPTI/lib64/libcupti.so.13',
    '/usr/local/cuda-13.0/extras/CUPTI/include/cupti.h',
    '/opt/cuda/lib64/libcupti.so',
    '/opt/cuda/include/cupti.h',
  ]);
  assert.deepEqual(cuptiLocations({ CUDA_HOME: '/opt/cuda' }, fs.exists, fs.list), {
    root: '/opt/cuda',
    lib: '/opt/cuda/lib64',
    include: '/opt/cuda/include',
  });
  assert.deepEqual(cuptiLocations({}, fs.exists, fs.list), {
    root: '/usr/local/cuda-13.0',
    lib: '/usr/local/cuda-13.0/extras/CUPTI/lib64',
    include: '/usr/local/cuda-13.0/extras/CUPTI/include',
  });
});

test('the build needs the headers; running a capture needs the library only', () => {
  const fs = tree([
    '/usr/local/cuda/lib64/libcupti.so.13',
    '/usr/local/cuda-12.4/lib64/libcupti.so',
    '/usr/local/cuda-12.4/include/cupti.h',
  ]);
  assert.equal(cuptiLocations({}, fs.exists, fs.list)?.root, '/usr/local/cuda-12.4');
  assert.equal(cuptiLocations({}, fs.exists, fs.list, false)?.lib, '/usr/local/cuda/lib64');
  assert.equal(
    cuptiLocations(
      {},
      () => false,
      () => [],
    ),
    undefined,
  );
});
