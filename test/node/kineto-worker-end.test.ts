// A worker thread ended while the native reader reads (the editor terminates its worker when a
// trace's editor closes, or a request runs out of time) ends the worker alone. The process that
// started it lives on: VS Code's extension host holds every extension. The read is run in a child
// process, so that a process that aborts fails this test rather than ending the test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { KINETO_VOCABULARY } from '../../core/import/pytorch-columns';
import { kinetoAddon, kinetoAddonPath } from '../../node/native-kineto';
import { generateKineto } from '../../bench/import.generate';

const built = kinetoAddon();
const skip = built.addon || process.env.CI === 'true' ? false : `${built.reason}; run npm run build:native`;

/** The parent: starts the worker, ends it at the read's first progress, then says it is still there. */
const parent = `
const { Worker } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const [addon, trace, vocabulary] = process.argv.slice(2);
const worker = new Worker(${JSON.stringify(`
  const { parentPort, workerData } = require('node:worker_threads');
  const { addon, bytes, vocabulary } = workerData;
  require(addon).readKineto(bytes, {
    ...vocabulary, gzip: true, limit: 2 ** 32, stop: new Float64Array(1),
    progress: (n) => parentPort.postMessage(n),
  });
`)}, { eval: true, workerData: { addon, bytes: readFileSync(trace), vocabulary: JSON.parse(vocabulary) } });
let ended = false;
worker.on('message', () => {
  if (ended) return;
  ended = true;
  worker.terminate().then(() => setTimeout(() => console.log('still here'), 500));
});
`;

/**
 * The parent: ends, 20 times over, a worker that calls the reader's synchronous part (its arguments
 * checked, a bad source refused) without pause, so that the end comes inside that call.
 */
const busyParent = `
const { Worker } = require('node:worker_threads');
const [addon, vocabulary] = process.argv.slice(2);
const code = ${JSON.stringify(`
  const { parentPort, workerData } = require('node:worker_threads');
  const reader = require(workerData.addon);
  parentPort.postMessage('started');
  for (;;) {
    try {
      reader.readKineto(0, workerData.vocabulary);
    } catch {}
  }
`)};
(async () => {
  for (let i = 0; i < 20; i++) {
    const worker = new Worker(code, { eval: true, workerData: { addon, vocabulary: JSON.parse(vocabulary) } });
    await new Promise((r) => worker.once('message', r));
    await new Promise((r) => setTimeout(r, 20 + i * 5));
    await worker.terminate();
  }
  console.log('still here');
})();
`;

/** Runs `script` in a child process with `args`; fails unless it ends by itself, saying it is still there. */
function runsToItsEnd(dir: string, script: string, args: string[]): void {
  const file = join(dir, 'parent.js');
  writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.signal, null, `the process was ended by ${r.signal}: ${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'still here');
}

test('ending a worker while the native reader reads leaves its process running', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-worker-end-'));
  try {
    // About 20 MB of text: many blocks, so that the read goes on after the worker is ended.
    const text = [...generateKineto({ steps: 26_000, streams: 4, syncEvery: 10 })].join('');
    const trace = join(dir, 'trace.json.gz');
    writeFileSync(trace, gzipSync(text, { level: 1 }));
    runsToItsEnd(dir, parent, [kinetoAddonPath(), trace, JSON.stringify(KINETO_VOCABULARY)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ending a worker inside a synchronous call of the native reader leaves its process running', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-worker-end-'));
  try {
    runsToItsEnd(dir, busyParent, [kinetoAddonPath(), JSON.stringify(KINETO_VOCABULARY)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
