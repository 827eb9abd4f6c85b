import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic, WriteError } from '../../node/atomic-write';

const freshDir = () => mkdtempSync(join(tmpdir(), 'syncscope-atomic-'));

test('a write replaces the file whole and leaves no temp file', async () => {
  const dir = freshDir();
  const file = join(dir, 'out.json');
  writeFileSync(file, 'old');
  await writeFileAtomic(file, ['{"a":', new TextEncoder().encode('1'), '}']);
  assert.equal(readFileSync(file, 'utf8'), '{"a":1}');
  assert.deepEqual(readdirSync(dir), ['out.json']);
});

test('chunks of many batches arrive in order while the producer runs ahead of the disk', async () => {
  const dir = freshDir();
  const file = join(dir, 'out.bin');
  // 40 chunks of 256 KiB, each filled with its own index: about ten batches, each written while the next is made.
  function* chunks() {
    for (let k = 0; k < 40; k++) yield new Uint8Array(256 << 10).fill(k);
  }
  await writeFileAtomic(file, chunks());
  const bytes = readFileSync(file);
  assert.equal(bytes.length, 40 * (256 << 10));
  for (let k = 0; k < 40; k++) {
    const at = k * (256 << 10);
    assert.equal(bytes[at], k);
    assert.equal(bytes[at + (256 << 10) - 1], k);
  }
  assert.deepEqual(readdirSync(dir), ['out.bin']);
});

test('a replaced file keeps its permissions', async () => {
  const dir = freshDir();
  const file = join(dir, 'out.json');
  writeFileSync(file, 'old');
  chmodSync(file, 0o640);
  await writeFileAtomic(file, ['new']);
  assert.equal(statSync(file).mode & 0o777, 0o640);
});

test('a symlink is written through, not replaced', async () => {
  const dir = freshDir();
  writeFileSync(join(dir, 'real.json'), 'old');
  symlinkSync('real.json', join(dir, 'link.json'));
  await writeFileAtomic(join(dir, 'link.json'), ['new']);
  assert.equal(readFileSync(join(dir, 'real.json'), 'utf8'), 'new');
  assert.ok(statSync(join(dir, 'link.json')).isFile());
});

test('a failure while producing the text keeps the old file and removes the temp file', async () => {
  const dir = freshDir();
  const file = join(dir, 'out.json');
  writeFileSync(file, 'old');
  function* failing() {
    yield 'x'.repeat(3 << 20);
    throw new Error('producer failed');
  }
  await assert.rejects(writeFileAtomic(file, failing()), /producer failed/);
  assert.equal(readFileSync(file, 'utf8'), 'old');
  assert.deepEqual(readdirSync(dir), ['out.json']);
});

test('a directory, a missing directory and a file used as a directory are named in the error', async () => {
  const dir = freshDir();
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'plain'), '');
  const cases: [string, RegExp][] = [
    [join(dir, 'sub'), /sub: is a directory; give a file name to write/],
    [
      join(dir, 'nowhere', 'out.json'),
      /out\.json: the directory .*nowhere does not exist; create it or write elsewhere/,
    ],
    [join(dir, 'plain', 'out.json'), /out\.json: part of the path is a file, not a directory/],
  ];
  for (const [path, message] of cases) {
    const err = await writeFileAtomic(path, ['x']).then(
      () => assert.fail(`${path} was written`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WriteError, String(err));
    assert.match(err.message, message);
    assert.ok(err.message.startsWith(path + ': '), err.message);
  }
  assert.deepEqual(readdirSync(dir).sort(), ['plain', 'sub']);
});

test(
  'a directory that cannot be written is named in the error',
  { skip: process.getuid?.() === 0 && 'root writes anywhere' },
  async () => {
    const dir = freshDir();
    const locked = join(dir, 'locked');
    mkdirSync(locked, 0o500);
    await assert.rejects(
      writeFileAtomic(join(locked, 'out.json'), ['x']),
      /out\.json: permission denied writing in .*locked; choose a directory you can write to/,
    );
  },
);
