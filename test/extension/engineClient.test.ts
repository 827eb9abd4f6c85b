// The extension's worker threads (extension/logic/engineClient.ts): a request gives what the
// in-process engines give; a request past its time or memory limit, or cancelled, costs its worker
// and says why, and the next request gets a fresh worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { buildOverview } from '../../core/overview/build';
import { h200, simulate } from '../../core/simulate';
import { loadTraceFile } from '../../node/trace-file';
import { EngineClient, RequestCancelledError, WorkerLimitError } from '../../extension/logic/engineClient';
import type { EngineOps } from '../../extension/logic/engineOps';
import { repoPath } from '../helpers/paths';

const workerBundle = repoPath('dist', 'worker.js');

// A worker that speaks the same protocol, with requests that misbehave on purpose.
const misbehaving = join(mkdtempSync(join(tmpdir(), 'syncscope-worker-')), 'misbehaving.js');
writeFileSync(
  misbehaving,
  `const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, op, args }) => {
  if (op === 'echo') return parentPort.postMessage({ id, type: 'done', result: { args, threadId: require('node:worker_threads').threadId } });
  if (op === 'throw') return parentPort.postMessage({ id, type: 'failed', message: 'bad.scenario.json:3:5: no such stream' });
  if (op === 'loop') for (;;);
  if (op === 'alloc') { const keep = []; for (;;) keep.push({ a: new Array(1000).fill(keep.length) }); }
});
`,
);

const limits = { memoryMb: 64, concurrency: 2 };
const opts = (subject = 'hostile.scenario.json', timeoutMs = 5000) => ({ subject, timeoutMs });
type Echo = { args: unknown; threadId: number };

test(
  'a request to the worker bundle gives the trace and analysis the engines give in-process',
  {
    skip: !existsSync(workerBundle) && 'npm run build first',
  },
  async () => {
    const client = new EngineClient(workerBundle, { memoryMb: 1024, concurrency: 2 });
    try {
      const file = 'seed-side-stream-event-sync.scenario.json';
      const text = readFileSync(repoPath('examples', file), 'utf8');
      const args: EngineOps['scenario']['args'] = { text, file, profile: 'h200', simulateUpTo: Infinity };
      const got = await client.request<EngineOps['scenario']['result']>('scenario', args, opts(file));
      const program = compileScenario(text, file);
      const trace = simulate(program);
      const analysis = analyze(trace, { program });
      trace.findings = analysis.findings;
      assert.deepEqual(got.errors, []);
      assert.equal(got.stepCount, program.stepCount);
      assert.deepEqual(got.trace, trace);
      assert.deepEqual(got.analysis, analysis);
    } finally {
      client.dispose();
    }
  },
);

test(
  'a trace imported in the worker has its columns in shared memory: the overview of it, asked of another request, is the in-process one',
  {
    skip: !existsSync(workerBundle) && 'npm run build first',
  },
  async () => {
    const client = new EngineClient(workerBundle, { memoryMb: 1024, concurrency: 2 });
    try {
      const path = repoPath('test', 'fixtures', 'torch', 'profile', 'train_step.profile.json.gz');
      const got = await client.request<EngineOps['loadTrace']['result']>(
        'loadTrace',
        { path, name: 'train_step.profile.json.gz' },
        opts('train_step.profile.json.gz', 60_000),
      );
      for (const table of [got.trace.calls, got.trace.ops, got.trace.edges, got.trace.accesses])
        for (const [key, column] of Object.entries(table))
          if (key !== 'count') assert.ok((column as Uint8Array).buffer instanceof SharedArrayBuffer, key);
      const overview = await client.request<EngineOps['overview']['result']>(
        'overview',
        { trace: got.trace, profile: 'h200' },
        opts('train_step.profile.json.gz', 60_000),
      );
      const trace = await loadTraceFile(path);
      const analysis = analyze(trace);
      trace.findings = analysis.findings;
      assert.deepEqual(overview, buildOverview(trace, analysis, h200));
    } finally {
      client.dispose();
    }
  },
);

test(
  'a trace imported in the worker bundle arrives whole, with its analysis and progress',
  {
    skip: !existsSync(workerBundle) && 'npm run build first',
  },
  async () => {
    const client = new EngineClient(workerBundle, { memoryMb: 1024, concurrency: 2 });
    try {
      const path = repoPath('test', 'fixtures', 'torch', 'sync_overlap.json');
      const seen: number[] = [];
      const got = await client.request<EngineOps['loadTrace']['result']>(
        'loadTrace',
        { path, name: 'sync_overlap.json' },
        { ...opts('sync_overlap.json'), onProgress: (bytes) => seen.push(bytes) },
      );
      const trace = await loadTraceFile(path);
      const analysis = analyze(trace);
      trace.findings = analysis.findings;
      assert.deepEqual(got.trace, trace);
      // The findings come on the trace; the waits' explanations stay in the worker.
      assert.ok(trace.findings.length > 0);
      assert.equal('analysis' in got, false);
      assert.ok(seen.length > 0, 'progress reached the caller');
    } finally {
      client.dispose();
    }
  },
);

test(
  "the worker reads a trace with the syncscope.userCode setting: a folder taken out of the user's code gives up its lines",
  {
    skip: !existsSync(workerBundle) && 'npm run build first',
  },
  async () => {
    const client = new EngineClient(workerBundle, { memoryMb: 1024, concurrency: 1 });
    try {
      const path = repoPath('test', 'fixtures', 'torch', 'profile', 'train_step.profile.json.gz');
      const script = '/home/dev/syncscope/test/gpu/torch/programs/train_step.py';
      const atScript = async (userCode?: { add: string[]; remove: string[] }) => {
        const got = await client.request<EngineOps['loadTrace']['result']>(
          'loadTrace',
          { path, name: 'train_step.profile.json.gz', userCode },
          opts('train_step.profile.json.gz', 60_000),
        );
        return got.trace.sites.filter((s) => s.frame.file === script).length;
      };
      assert.ok((await atScript()) > 0, 'the script holds the lines');
      assert.equal(await atScript({ add: [], remove: ['/home/dev/syncscope/test/gpu/torch/programs'] }), 0);
    } finally {
      client.dispose();
    }
  },
);

test(
  "the worker makes a trace's overview as core does in-process: train_step's findings ranked by predicted saving",
  {
    skip: !existsSync(workerBundle) && 'npm run build first',
  },
  async () => {
    const client = new EngineClient(workerBundle, { memoryMb: 1024, concurrency: 1 });
    try {
      const trace = await loadTraceFile(repoPath('test', 'fixtures', 'torch', 'profile', 'train_step.profile.json.gz'));
      const analysis = analyze(trace);
      trace.findings = analysis.findings;
      const got = await client.request<EngineOps['overview']['result']>(
        'overview',
        { trace, profile: 'h200' },
        opts('train_step.profile.json.gz', 60_000),
      );
      assert.deepEqual(got, buildOverview(trace, analysis, h200));
      // test/core/overview.test.ts reads these from `syncscope whatif` over the same window.
      assert.deepEqual(
        got.findings.map((f) => f.id),
        ['F4', 'F3', 'F1', 'F2'],
      );
    } finally {
      client.dispose();
    }
  },
);

test('a request that never ends is terminated at its time limit, and the next one gets a fresh worker', async () => {
  const client = new EngineClient(misbehaving, limits);
  try {
    const before = await client.request<Echo>('echo', 1, opts());
    const started = performance.now();
    await assert.rejects(client.request('loop', null, opts('hostile.scenario.json', 300)), (e: unknown) => {
      assert.ok(e instanceof WorkerLimitError);
      assert.equal(e.limit, 'time');
      assert.match(e.message, /^hostile\.scenario\.json: stopped after 0\.3 s: processing it takes too long/);
      return true;
    });
    assert.ok(performance.now() - started < 3000, 'the limit stops it, not the test');
    const after = await client.request<Echo>('echo', 2, opts());
    assert.deepEqual(after.args, 2);
    assert.notEqual(after.threadId, before.threadId, 'a fresh worker');
  } finally {
    client.dispose();
  }
});

test('a request that allocates without bound stops at the memory limit with a clear message', async () => {
  const client = new EngineClient(misbehaving, limits);
  try {
    await assert.rejects(client.request('alloc', null, opts('huge.json', 60_000)), (e: unknown) => {
      assert.ok(e instanceof WorkerLimitError);
      assert.equal(e.limit, 'memory');
      assert.equal(
        e.message,
        'huge.json: stopped: processing it needs more than 64 MB of memory; a smaller file (fewer steps or events) would open',
      );
      return true;
    });
    assert.deepEqual((await client.request<Echo>('echo', 3, opts())).args, 3);
  } finally {
    client.dispose();
  }
});

test('cancelling a running request terminates its worker; a waiting one never starts', async () => {
  const client = new EngineClient(misbehaving, { memoryMb: 64, concurrency: 1 });
  try {
    const running = new AbortController();
    const first = client.request('loop', null, { ...opts('a.scenario.json'), signal: running.signal });
    const waiting = new AbortController();
    const second = client.request('loop', null, { ...opts('b.scenario.json'), signal: waiting.signal });
    waiting.abort();
    await assert.rejects(second, RequestCancelledError);
    setTimeout(() => running.abort(), 100);
    await assert.rejects(
      first,
      (e: unknown) => e instanceof RequestCancelledError && e.message === 'a.scenario.json: cancelled',
    );
    assert.deepEqual((await client.request<Echo>('echo', 4, opts())).args, 4);
  } finally {
    client.dispose();
  }
});

test('a request the worker refuses keeps its message and its worker', async () => {
  const client = new EngineClient(misbehaving, limits);
  try {
    const before = await client.request<Echo>('echo', 5, opts());
    await assert.rejects(client.request('throw', null, opts()), { message: 'bad.scenario.json:3:5: no such stream' });
    assert.equal((await client.request<Echo>('echo', 6, opts())).threadId, before.threadId);
    assert.equal(client.workers, 1);
  } finally {
    client.dispose();
  }
});
