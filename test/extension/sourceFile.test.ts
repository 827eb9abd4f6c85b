import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { findSourceFile, isInside, sourceCandidates, sourceToOpen } from '../../extension/logic/sourceFile';

test('a site file: the path as written when inside a folder, then its tails under each folder, longest first', () => {
  assert.deepEqual(sourceCandidates('/ws/proj/train.py', ['/ws']), [
    '/ws/proj/train.py',
    join('/ws', 'ws/proj/train.py'),
    join('/ws', 'train.py'),
  ]);
  // From another machine: only its tails, each under the folder.
  assert.deepEqual(sourceCandidates('/other/machine/proj/train.py', ['/ws']), [
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
  assert.deepEqual(sourceCandidates('/etc/passwd', ['/ws']), [join('/ws', 'etc/passwd'), join('/ws', 'passwd')]);
});

test('inside a folder: the folder itself and below it, never beside it or above', () => {
  assert.equal(isInside('/ws', '/ws'), true);
  assert.equal(isInside('/ws', '/ws/a/b.py'), true);
  assert.equal(isInside('/ws', '/ws/../etc/passwd'), false);
  assert.equal(isInside('/ws', '/wsx/a.py'), false);
  assert.equal(isInside('/ws', '/etc/passwd'), false);
  assert.equal(isInside('/ws/a', '/ws'), false);
  // A name that starts with two dots is a name, not a step out.
  assert.equal(isInside('/ws', '/ws/..hidden/a.py'), true);
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

const everything = () => true;
const ALLOWED = "only files inside the workspace folders and the profiled script's folder are opened";

test('a source opens inside the workspace folders or the profiled script folder', () => {
  assert.deepEqual(sourceToOpen('/ws/train.py', ['/ws'], everything), { path: '/ws/train.py' });
  assert.deepEqual(sourceToOpen('/home/me/run/train.py', ['/ws', '/home/me/run'], everything), {
    path: '/home/me/run/train.py',
  });
  // Kineto's relative name, under the script's folder.
  const there = new Set([join('/home/me/run', 'models/net.py')]);
  assert.deepEqual(
    sourceToOpen('models/net.py', ['/ws', '/home/me/run'], (p) => there.has(p)),
    {
      path: join('/home/me/run', 'models/net.py'),
    },
  );
});

test('a path that steps out, a URI, or a file elsewhere is refused, and the message says why', () => {
  for (const file of ['../../../../etc/passwd', '/ws/../../etc/passwd', 'proj\\..\\..\\secret.py'])
    assert.deepEqual(sourceToOpen(file, ['/ws'], everything), {
      refused: `${file}: the path steps out of its folder (".."); ${ALLOWED}`,
    });
  for (const file of [
    'vscode://syncscope.syncscope/open?x',
    'command:workbench.action.terminal.new',
    'file:///etc/passwd',
    'https://example.com/a.py',
  ])
    assert.deepEqual(sourceToOpen(file, ['/ws'], everything), {
      refused: `${file}: a URI, not a file path; ${ALLOWED}`,
    });
  // /etc/passwd exists, but outside: its tails under the folder do not.
  assert.deepEqual(
    sourceToOpen('/etc/passwd', ['/ws'], (p) => p === '/etc/passwd'),
    {
      refused:
        "/etc/passwd: outside the workspace folders and the profiled script's folder, so it is not opened; open the folder that holds it",
    },
  );
  assert.deepEqual(
    sourceToOpen('/other/model.py', ['/ws'], () => false),
    {
      refused:
        "/other/model.py: not found inside the workspace folders and the profiled script's folder; open the folder the profile was made in",
    },
  );
  assert.deepEqual(sourceToOpen('train.py', [], everything), {
    refused: 'train.py: no workspace folder is open; open the folder the profile was made in',
  });
});

test('a Windows drive letter is a path, not a URI scheme', () => {
  const choice = sourceToOpen('C:/Users/me/train.py', ['/ws'], (p) => p === join('/ws', 'train.py'));
  assert.deepEqual(choice, { path: join('/ws', 'train.py') });
});
