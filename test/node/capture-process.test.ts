// Ending a capture ends the whole program, whatever it started: a shell line's pipeline or
// background jobs run in the program's process group, which gets the signal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureEnv, captureProgram, captureTrace } from '../../node/capture-process';
import { repoPath } from '../helpers/paths';

const library = { ok: true as const, path: '/nonexistent/libsyncscope_capture.so', cuptiDir: '/opt/cuda/lib64' };

/** The processes running exactly `command` (not the shell whose line contains it). */
function running(command: string): string[] {
  const out = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.trim() === command);
}

test(
  'aborting a capture ends every process of a compound command line, not only the shell',
  { timeout: 20_000 },
  async () => {
    const marker = `${2000 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    const stop = new AbortController();
    const ended = captureProgram({
      library,
      command: ['/bin/sh', '-c', `sleep ${marker} & sleep ${marker}; wait`],
      cwd: process.cwd(),
      stdio: 'pipe',
      signal: stop.signal,
    });
    let started: number;
    try {
      for (let i = 0; i < 100 && running(`sleep ${marker}`).length < 2; i++)
        await new Promise((r) => setTimeout(r, 50));
      started = running(`sleep ${marker}`).length;
    } finally {
      stop.abort();
    }
    const outcome = await ended;
    assert.equal(started, 2, 'both sleeps had started');
    assert.equal(outcome.signal, 'SIGTERM');
    assert.deepEqual(running(`sleep ${marker}`), []);
    assert.deepEqual(outcome.raws, []);
  },
);

test('the captured program keeps its own library path first and does not inherit ELECTRON_RUN_AS_NODE', () => {
  const env = captureEnv(library, '/tmp/c-%p.raw', {
    LD_LIBRARY_PATH: '/home/me/lib',
    ELECTRON_RUN_AS_NODE: '1',
    PATH: '/usr/bin',
  });
  assert.equal(env.LD_LIBRARY_PATH, '/home/me/lib:/opt/cuda/lib64');
  assert.equal(env.ELECTRON_RUN_AS_NODE, undefined);
  assert.equal(env.CUDA_INJECTION64_PATH, library.path);
  assert.equal(env.SYNCSCOPE_CAPTURE_OUT, '/tmp/c-%p.raw');
});

test('a cancel during the plain run begins no capture: the program never runs under the library', async () => {
  // The script would write its raw stream if it ran under the capture; the fake torch ends its steps.
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-plain-cancel-'));
  try {
    const script = join(dir, 'loop.py');
    writeFileSync(
      script,
      [
        'import os, time, torch',
        'if os.environ.get("SYNCSCOPE_CAPTURE_OUT"):',
        '    open(os.path.join(os.path.dirname(__file__), "captured"), "w").close()',
        'opt = torch.optim.SGD([], lr=0.1)',
        'while True:',
        '    time.sleep(0.01)',
        '    opt.step()',
        '',
      ].join('\n'),
    );
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const result = await captureTrace({
      library,
      command: ['python3', script],
      cwd: dir,
      env: { ...process.env, PYTHONPATH: repoPath('test/fixtures/fake-torch/site-packages') },
      stdio: 'pipe',
      signal: stop.signal,
      // 2 + 1000 steps of 10 ms: still timing when the cancel comes.
      plain: { steps: 1000, onOutput: () => undefined },
    });
    assert.deepEqual(result, { ok: false, reason: 'cancelled during the plain steps; nothing was captured' });
    assert.equal(existsSync(join(dir, 'captured')), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
