import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { findSourceFile, sourceCandidates } from '../../extension/logic/sourceFile';

test('a site file: the path as written, then its tails under each workspace folder, longest first', () => {
  assert.deepEqual(sourceCandidates('/other/machine/proj/train.py', ['/ws']), [
    '/other/machine/proj/train.py',
    join('/ws', 'other/machine/proj/train.py'),
    join('/ws', 'machine/proj/train.py'),
    join('/ws', 'proj/train.py'),
    join('/ws', 'train.py'),
  ]);
  // Kineto's relative names are tried under the folders only.
  assert.deepEqual(sourceCandidates('test/gpu/torch/programs/x.py', ['/a']).slice(0, 2), [
    join('/a', 'test/gpu/torch/programs/x.py'),
    join('/a', 'gpu/torch/programs/x.py'),
  ]);
  // Parent steps never lead out of a folder.
  assert.ok(sourceCandidates('../../etc/passwd', ['/ws']).every((p) => p.startsWith('/ws')));
});

test('the first candidate that exists is opened; none is undefined', () => {
  const present = new Set([join('/ws', 'proj/train.py'), join('/ws', 'train.py')]);
  assert.equal(
    findSourceFile('/other/proj/train.py', ['/ws'], (p) => present.has(p)),
    join('/ws', 'proj/train.py'),
  );
  assert.equal(
    findSourceFile('/other/model.py', ['/ws'], (p) => present.has(p)),
    undefined,
  );
});
