// Kill and concurrency tests of the CLI's output: a killed or racing writer leaves the old file or
// a complete new one under the target's name, never a torn one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTrace } from '../../core/trace/json';
import { repoPath } from '../helpers/paths';

const OPS = 150_000;
const OLD = '{"old": true}\n';

function bigScenario(dir: string, kernel: string): string {
  const file = join(dir, `${kernel}.scenario.json`);
  const steps = [{ repeat: OPS, steps: [{ launch: kernel, us: 1 }] }, { deviceSync: true }];
  writeFileSync(file, JSON.stringify({ name: kernel, steps }));
  return file;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function startCli(args: string[], cwd: string) {
  const child = spawn(process.execPath, [repoPath('dist/cli.js'), ...args], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  return { child, exit };
}

const temps = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

/** The target changed from the old text: only a write in place would show that before the end. */
const writing = (file: string) => statSync(file, { throwIfNoEntry: false })?.size !== OLD.length;

/** Kills the writer as soon as its temp file (or a change to the target) appears: in the middle of the write. */
async function killMidWrite(signal: NodeJS.Signals, out: string) {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-kill-'));
  const scenario = bigScenario(dir, 'k');
  writeFileSync(join(dir, out), OLD);
  const run = startCli(['simulate', scenario, '--out', out], dir);
  let killed = false;
  const poll = setInterval(() => {
    if (!killed && (temps(dir).length || writing(join(dir, out)))) killed = run.child.kill(signal);
  }, 2);
  const exit = await run.exit;
  clearInterval(poll);
  return { dir, exit, killed, text: readFileSync(join(dir, out), 'utf8') };
}

/** The target holds the old text or a complete trace of the scenario, nothing in between. */
function assertOldOrComplete(text: string): void {
  if (text === OLD) return;
  const trace = parseTrace(text);
  assert.equal(trace.meta.scenario?.name, 'k');
  assert.equal(trace.ops.count, OPS);
}

test('SIGTERM in the middle of --out leaves the old file or the whole new one, and no temp file', async () => {
  const { dir, exit, killed, text } = await killMidWrite('SIGTERM', 'x.syncscope.json');
  assert.ok(killed, `the temp file never appeared: ${exit.stderr}`);
  assertOldOrComplete(text);
  if (exit.signal) assert.equal(text, OLD, 'a write killed before its rename leaves the old file');
  assert.deepEqual(temps(dir), []);
});

test('SIGKILL in the middle of --out leaves the old file or the whole new one under the target name', async () => {
  const { exit, killed, text } = await killMidWrite('SIGKILL', 'x.syncscope.json');
  assert.ok(killed, `the temp file never appeared: ${exit.stderr}`);
  assertOldOrComplete(text);
});

test('two writers of one --out leave one complete trace and both succeed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-race-'));
  // Names of different lengths: torn writes of the two would not read as either.
  const runs = ['a', 'bbbbbbbbbbbb'].map((k) =>
    startCli(['simulate', bigScenario(dir, k), '--out', 'same.syncscope.json'], dir),
  );
  const exits = await Promise.all(runs.map((r) => r.exit));
  for (const e of exits) assert.equal(e.code, 0, e.stderr);
  const trace = parseTrace(readFileSync(join(dir, 'same.syncscope.json'), 'utf8'));
  assert.ok(['a', 'bbbbbbbbbbbb'].includes(trace.meta.scenario?.name ?? ''), trace.meta.scenario?.name);
  assert.equal(trace.ops.count, OPS);
  assert.deepEqual(temps(dir), []);
});
