// The capture library's writer, without CUDA: native/capture/check/write_raw_check.cc records calls
// on three threads through the library's per-thread logs and writes them with its writer; the
// stream must decode (core/import/capture-raw.ts) to exactly what was recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeCapture, RECORD } from '../../core/import/capture-raw';
import { writeRawCheck, writeRawCheckSkip } from '../helpers/capture-check';

const skip = writeRawCheckSkip();

// 20 000 calls on the second thread: two of the log's 16 384-call chunks.
const SECOND = 20_000;

/** A fresh folder for one test, removed after it. */
function folder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-writer-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The record types in file order, runs of one type collapsed: [type, count]. */
function recordRuns(bytes: Uint8Array): [number, number][] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const runs: [number, number][] = [];
  // The header says its own length; then each record is a type, a reserved half, its body's length.
  for (let o = v.getUint32(12, true); o < bytes.length; o += 8 + v.getUint32(o + 4, true)) {
    const type = v.getUint16(o, true);
    if (runs.at(-1)?.[0] === type) runs.at(-1)![1]++;
    else runs.push([type, 1]);
  }
  return runs;
}

test(
  "the writer's stream holds every returned call of every thread, in order, and the activities after them",
  { skip },
  (t) => {
    const dir = folder(t);
    const out = join(dir, 'c.raw');
    const r = spawnSync(writeRawCheck(), [out, String(SECOND), '10'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readdirSync(dir), ['c.raw'], 'the temporary file was renamed over the target');
    const bytes = new Uint8Array(readFileSync(out));
    const raw = decodeCapture(bytes);
    assert.deepEqual(
      raw.threads.map((x) => [x.index, x.name]),
      [
        [0, 'first'],
        [1, 'second'],
        [2, 'third'],
      ],
    );
    assert.ok(raw.threads.every((x) => x.osTid > 0));
    // The second thread's last call had not returned: it is counted, not written.
    assert.equal(raw.incompleteCalls, 1);
    const ids = (thread: number) => raw.calls.filter((c) => c.thread === thread).map((c) => c.correlationId);
    const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
    assert.deepEqual(ids(0), range(1, 5));
    assert.deepEqual(ids(1), range(100, SECOND - 1));
    assert.deepEqual(ids(2), range(50, 3));
    const last = raw.calls.filter((c) => c.thread === 1).at(-1)!;
    // Times are relative to the library's start stamp (42 here).
    assert.deepEqual([last.begin, last.end, last.stream], [10 * (SECOND - 2) - 42, 10 * (SECOND - 2) + 5 - 42, 1]);
    assert.equal(raw.apiNames.get('2:211'), 'cudaLaunchKernel_v7000', "the call's API is named by CUPTI");
    assert.deepEqual(
      raw.kernels.map((k) => k.correlationId),
      range(1, 10),
    );
    assert.equal(raw.strings.get(1), 'spin');
    assert.deepEqual([raw.cuptiApiVersion, raw.cudaDriverVersion], [7, 13000]);
    // A C++ program: the library says so, and its calls carry no stack.
    assert.deepEqual(raw.python, { status: 'notPython', hexVersion: 0, unreadable: 0, text: 'not a Python process' });
    assert.ok(raw.calls.every((c) => c.pyStack === 0));
    // The order the reader relies on: threads, then calls, what the library read of Python (after
    // the calls, so that every stack a call names is written), the API names, the activities, the end.
    assert.deepEqual(recordRuns(bytes), [
      [RECORD.thread, 3],
      [RECORD.call, 5 + SECOND - 1 + 3],
      [RECORD.python, 1],
      [RECORD.apiName, 1],
      [RECORD.string, 1],
      [RECORD.kernel, 10],
      [RECORD.end, 1],
    ]);
  },
);

test('a writer that cannot create its file says which and why, and leaves nothing behind', { skip }, (t) => {
  const dir = folder(t);
  const out = join(dir, 'missing', 'c.raw');
  const r = spawnSync(writeRawCheck(), [out, '10', '0'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim(), `cannot create ${out}.part: No such file or directory`);
  assert.deepEqual(readdirSync(dir), []);
});

test(
  'a write that fails halfway (the disk full, a file size limit) is reported with its reason, and its part file removed',
  { skip },
  (t) => {
    const dir = folder(t);
    const out = join(dir, 'c.raw');
    // A 100 KiB file size limit, its signal ignored, so that write() fails with EFBIG part way through 2 MB.
    const r = spawnSync(
      'sh',
      ['-c', 'trap "" XFSZ; ulimit -f 100; exec "$0" "$@"', writeRawCheck(), out, String(SECOND), '10'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 1, r.stdout);
    assert.equal(r.stderr.trim(), `cannot write ${out}.part: File too large`);
    assert.deepEqual(readdirSync(dir), []);
  },
);
