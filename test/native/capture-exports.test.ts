// The shipped capture library exports its injection entry and nothing of the capture benchmark's:
// syncscope_capture_switch leaves parts of a run unrecorded, so only the benchmark's build
// (libsyncscope_capture_measure.so, SYNCSCOPE_CAPTURE_MEASURE) may have it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { repoPath } from '../helpers/paths';

const shipped = repoPath('build', 'Release', 'libsyncscope_capture.so');
const measuring = repoPath('build', 'Release', 'libsyncscope_capture_measure.so');
const noNm = spawnSync('nm', ['--version'], { stdio: 'ignore' }).status === 0 ? undefined : 'nm (binutils) not found';

/** The names a shared library exports: its defined dynamic symbols. */
function exported(library: string): string[] {
  const r = spawnSync('nm', ['-D', '--defined-only', library], { encoding: 'utf8' });
  assert.equal(r.status, 0, `nm -D ${library}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[2])
    .filter((name): name is string => !!name);
}

const skipFor = (library: string, why: string) => noNm ?? (existsSync(library) ? undefined : why);

test(
  'the shipped capture library exports InitializeInjection and no measurement switch',
  {
    skip: skipFor(shipped, 'the capture library was not built here (no CUPTI)'),
  },
  () => {
    const names = exported(shipped);
    assert.ok(names.includes('InitializeInjection'), `exports: ${names.join(', ')}`);
    assert.ok(!names.includes('syncscope_capture_switch'), 'the shipped library exports syncscope_capture_switch');
    assert.deepEqual(
      names.filter((n) => n.startsWith('syncscope_')),
      [],
    );
  },
);

test(
  "the capture benchmark's build of the library exports syncscope_capture_switch",
  {
    skip: skipFor(measuring, "the benchmark's build was not made here (node scripts/build-capture.mjs --measure)"),
  },
  () => {
    assert.ok(exported(measuring).includes('syncscope_capture_switch'));
  },
);
