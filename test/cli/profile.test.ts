// `syncscope profile` with a fake torch (test/fixtures/fake-torch): the report of the imported trace, the trace's path, one-line errors.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';

const dir = mkdtempSync(join(tmpdir(), 'syncscope-cli-profile-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const scripts = repoPath('test/fixtures/fake-torch/scripts');

async function withFakeTorch<T>(f: () => Promise<T>): Promise<T> {
  const before = process.env.PYTHONPATH;
  process.env.PYTHONPATH = repoPath('test/fixtures/fake-torch/site-packages');
  try {
    return await f();
  } finally {
    if (before === undefined) delete process.env.PYTHONPATH;
    else process.env.PYTHONPATH = before;
  }
}

test('profile prints the report of the imported trace and where the trace is', async () => {
  const out = join(dir, 'sites.json.gz');
  const r = await withFakeTorch(() =>
    runCli(['profile', '--json', '-o', out, '--', 'python3', join(scripts, 'sites.py')]),
  );
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { source: string; waits: unknown[] };
  assert.equal(report.source, 'pytorch');
  // sites.py's 15, and the profiler's own device sync as it stops.
  assert.equal(report.waits.length, 16);
  assert.ok(r.stderr.includes(`profiler trace written to ${out}\n`), r.stderr);
});

test('a failing script: the report of what was recorded, then one line, exit 1', async () => {
  const r = await withFakeTorch(() =>
    runCli(['profile', '-o', join(dir, 'crash.json.gz'), '--', 'python3', join(scripts, 'crash.py')]),
  );
  assert.equal(r.code, 1);
  // The script's one, and the profiler's own device sync as it stops.
  assert.match(r.stdout, /Host waits \(2\)/);
  assert.match(r.stderr, /\nsyncscope profile: .*crash\.py: the script raised ValueError: boom; the trace keeps/);
});

test('usage and interpreter errors are one line', async () => {
  const usage = await runCli(['profile', '--', 'python3']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^syncscope profile: expected the interpreter and the script after --/);
  const steps = await runCli(['profile', '--steps', '0', '--', 'python3', 'x.py']);
  assert.match(steps.stderr, /^syncscope profile: --steps takes a whole number above 0, not "0"/);
  const missing = await runCli(['profile', '--', 'no-such-python3', join(scripts, 'sites.py')]);
  assert.equal(missing.code, 2);
  assert.equal(
    missing.stderr,
    'syncscope profile: no-such-python3: Python interpreter not found; install Python or name one that exists\n',
  );
});
