// The capture library's Python stack reader, without CUDA: test/runner/python-stack/probe.py reads its
// own stacks through native/capture/check/python_stack_check.cc at lines read by hand from the probe,
// with the GIL released and held, in a second thread, through a comprehension and a recursion
// deeper than the reader keeps; once with every CPython from 3.9 to 3.13 the machine has. The
// records are decoded by core/import/capture-raw.ts inside a raw stream of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeCapture, RECORD, type RawCapture } from '../../core/import/capture-raw';
import { captureCheck, captureCheckSkip } from '../helpers/capture-check';
import { repoPath } from '../helpers/paths';
import { interpreters } from '../helpers/pythons';

const PROBE = repoPath('test', 'runner', 'python-stack', 'probe.py');
const skip = captureCheckSkip('python_stack_check');

/** The reader's records inside a raw stream of no threads and no calls: a header, them, an end record. */
function asRawStream(records: Uint8Array): Uint8Array {
  const out = new Uint8Array(40 + records.length + 8 + 32);
  const v = new DataView(out.buffer);
  out.set(new TextEncoder().encode('SYNCCAP1'));
  v.setUint32(8, 1, true);
  v.setUint32(12, 40, true);
  out.set(records, 40);
  v.setUint16(40 + records.length, RECORD.end, true);
  v.setUint32(40 + records.length + 4, 32, true);
  return out;
}

interface Probe {
  raw: RawCapture;
  seen: Record<string, number>;
}

function runProbe(python: string, dir: string): Probe {
  const out = join(dir, `records-${Math.random().toString(36).slice(2)}.bin`);
  const r = spawnSync(python, [PROBE, captureCheck('python_stack_check'), out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { raw: decodeCapture(asRawStream(new Uint8Array(readFileSync(out)))), seen: JSON.parse(r.stdout) };
}

/** A stack's frames in the probe as `line function`, innermost first; other files' frames as `file`. */
function probeFrames(p: Probe, label: string, count: number): string[] {
  const stack = p.raw.pyStacks.get(p.seen[label]);
  assert.ok(stack, `${label}: stack ${p.seen[label]} is in the records`);
  return stack.frames.slice(0, count).map((id) => {
    const f = p.raw.pyFrames.get(id);
    assert.ok(f, `frame ${id}`);
    return f.file === PROBE ? `${f.line} ${f.function}` : f.file.slice(f.file.lastIndexOf('/') + 1);
  });
}

test('the Python stack reader reads each CPython from 3.10 to 3.13 at the lines of the probe', { skip }, (t) => {
  const found = interpreters();
  const supported = [10, 11, 12, 13].filter((m) => found.has(m));
  if (supported.length === 0) return t.skip('no CPython 3.10 to 3.13 on this machine');
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-pystack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const minor of supported) {
    const p = runProbe(found.get(minor)!, dir);
    const at = `CPython 3.${minor}`;
    assert.equal(p.raw.python?.status, 'reading', at);
    assert.match(p.raw.python?.text ?? '', new RegExp(`^CPython 3\\.${minor}\\.\\d+$`), at);
    assert.equal((p.raw.python!.hexVersion >>> 16) & 0xff, minor, at);
    assert.equal(p.raw.python?.unreadable, 0, at);
    // 3.10 names a function by co_name, later versions by co_qualname.
    const method = minor === 10 ? 'forward' : 'Model.forward';
    assert.deepEqual(probeFrames(p, 'module', 9), ['46 <module>'], at);
    assert.deepEqual(probeFrames(p, 'first caller', 9), ['19 sync_helper', '47 <module>'], at);
    assert.deepEqual(probeFrames(p, 'second caller', 9), ['19 sync_helper', '48 <module>'], at);
    assert.deepEqual(probeFrames(p, 'method, GIL held', 9), [`24 ${method}`, '49 <module>'], at);
    assert.deepEqual(probeFrames(p, 'non-ASCII function', 9), ['28 größe', '50 <module>'], at);
    assert.deepEqual(probeFrames(p, 'thread', 2), ['19 sync_helper', '39 in_thread'], at);
    assert.ok(
      probeFrames(p, 'thread', 9).every((f) => !f.endsWith('<module>')),
      `${at}: a thread's own stack`,
    );
    // 3.12 inlines comprehensions into their function (PEP 709).
    assert.deepEqual(
      probeFrames(p, 'comprehension', 9),
      minor === 10
        ? ['43 <listcomp>', '43 values', '55 <module>']
        : minor === 11
          ? ['43 values.<locals>.<listcomp>', '43 values', '55 <module>']
          : ['43 values', '55 <module>'],
      at,
    );
    const deep = p.raw.pyStacks.get(p.seen.deep)!;
    assert.equal(deep.truncated, true, `${at}: 200 calls deep is cut`);
    assert.equal(deep.frames.length, 128, `${at}: the innermost 128 frames are kept`);
    assert.deepEqual(probeFrames(p, 'deep', 3), ['33 deep', '35 deep', '35 deep'], at);
    assert.equal(p.seen['switched off'], 0, `${at}: no stack while switched off`);
    assert.equal(p.seen['loop 0'], p.seen['loop 2'], `${at}: one stack from one line, interned once`);
    assert.deepEqual(probeFrames(p, 'loop 1', 9), ['60 <module>'], at);
    // Code made and freed in turn, each at the address the one before had: each keeps its own lines.
    for (const n of [0, 1, 2]) {
      const [inner] = p.raw.pyStacks.get(p.seen[`dynamic ${n}`])!.frames;
      const f = p.raw.pyFrames.get(inner);
      assert.deepEqual([f?.file, f?.line, f?.function], ['<dynamic>', n + 2, 'dynamic'], `${at}: dynamic ${n}`);
    }
    assert.equal(new Set(Object.values(p.seen).filter((id) => id > 0)).size, p.raw.pyStacks.size, at);
  }
});

test('a CPython the reader does not know gives no stack and says why', { skip }, (t) => {
  const python = interpreters().get(9);
  if (!python) return t.skip('no CPython 3.9 on this machine');
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-pystack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const p = runProbe(python, dir);
  assert.equal(p.raw.python?.status, 'unsupported');
  assert.match(p.raw.python?.text ?? '', /^CPython 3\.9\.\d+: stacks are read from CPython 3\.10 to 3\.13$/);
  assert.ok(Object.values(p.seen).every((id) => id === 0));
  assert.equal(p.raw.pyStacks.size, 0);
});
