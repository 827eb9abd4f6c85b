// The capture library's writer, without CUDA: native/capture/check/write_raw_check.cc records calls
// on three threads through the library's per-thread logs and writes them with its writer; the
// stream must decode (core/import/capture-raw.ts) to exactly what was recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeCapture } from '../../core/import/capture-raw';
import { writeRawCheck, writeRawCheckSkip } from '../helpers/write-raw-check';

const skip = writeRawCheckSkip();

// 20 000 calls on the second thread: two of the log's 16 384-call chunks.
const SECOND = 20_000;

test('the writer\'s stream holds every returned call of every thread, in order, and the activities after them', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-writer-'));
  const out = join(dir, 'c.raw');
  const r = spawnSync(writeRawCheck(), [out, String(SECOND), '10'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readdirSync(dir), ['c.raw'], 'the temporary file was renamed over the target');
  const raw = decodeCapture(new Uint8Array(readFileSync(out)));
  assert.deepEqual(raw.threads.map((t) => [t.index, t.name]), [[0, 'first'], [1, 'second'], [2, 'third']]);
  assert.ok(raw.threads.every((t) => t.osTid > 0));
  // The second thread's last call had not returned: it is counted, not written.
  assert.equal(raw.incompleteCalls, 1);
  const ids = (thread: number) => raw.calls.filter((c) => c.thread === thread).map((c) => c.correlationId);
  const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
  assert.deepEqual(ids(0), range(1, 5));
  assert.deepEqual(ids(1), range(100, SECOND - 1));
  assert.deepEqual(ids(2), range(50, 3));
  assert.deepEqual(raw.calls.map((c) => c.thread), [...ids(0).map(() => 0), ...ids(1).map(() => 1), ...ids(2).map(() => 2)]);
  const last = raw.calls.filter((c) => c.thread === 1).at(-1)!;
  // Times are relative to the library's start stamp (42 here).
  assert.deepEqual([last.begin, last.end, last.stream], [10 * (SECOND - 2) - 42, 10 * (SECOND - 2) + 5 - 42, 1]);
  assert.equal(raw.apiNames.get('2:211'), 'cudaLaunchKernel_v7000', 'the call\'s API is named by CUPTI');
  assert.deepEqual(raw.kernels.map((k) => k.correlationId), range(1, 10));
  assert.equal(raw.strings.get(1), 'spin');
  assert.deepEqual([raw.cuptiApiVersion, raw.cudaDriverVersion], [7, 13000]);
});

test('a writer that cannot create its file says which and why, and leaves nothing behind', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-writer-'));
  const out = join(dir, 'missing', 'c.raw');
  const r = spawnSync(writeRawCheck(), [out, '10', '0'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim(), `cannot create ${out}.part: No such file or directory`);
  assert.deepEqual(readdirSync(dir), []);
});
