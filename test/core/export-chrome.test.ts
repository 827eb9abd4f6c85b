import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chromeTraceChunks, traceToChrome } from '../../core/export/chrome';
import { createChromeImporter, importChrome, importPytorch, sniffFormat } from '../../core/import';
import { RELEASED_UNKNOWN, Trace, TraceBuilder, edgeKind } from '../../core/trace/model';
import { traceToJson } from '../../core/trace/json';
import { repoPath } from '../helpers/paths';

type Ev = {
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  id?: number;
  cat?: string;
  name: string;
  bp?: string;
  s?: string;
  args?: Record<string, unknown>;
};

function sample(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const side = b.lane({ kind: 'stream', name: 'side', device: 0, nonBlocking: true, priority: -2, handle: 13 });
  const dflt = b.lane({ kind: 'stream', name: 'default', device: 0, legacyDefault: true });
  const ctx = b.call({ lane: host, kind: 'context', name: 'aten::item', begin: 0, end: 300000, depth: 0 });
  const launch = b.call({
    lane: host,
    kind: 'launch',
    name: 'cudaLaunchKernel',
    begin: 100,
    end: 3600,
    stream: side,
    line: 4,
    column: 5,
    step: 0,
    context: 'aten::item',
  });
  const rec = b.call({ lane: host, kind: 'record', begin: 3700, end: 3900, stream: side, event: 'ready' });
  const k = b.op({
    lane: side,
    kind: 'kernel',
    name: '<b>produce</b> "q" \\',
    start: 5000,
    end: 205000,
    call: launch,
    grid: 132,
    block: 256,
    truthStart: 5100,
    truthEnd: 204900,
  });
  const r = b.op({ lane: side, kind: 'eventRecord', start: 205000, end: 205000, call: rec, event: 'ready' });
  const w = b.op({ lane: dflt, kind: 'waitEvent', start: 205000, end: 205000, event: 'ready' });
  const c = b.op({
    lane: dflt,
    kind: 'memcpy',
    name: 'copy',
    start: 206000,
    end: 210000,
    bytes: 4096,
    copy: 'DtoH',
    hostMemory: 'pageable',
  });
  b.access(k, 'x', true);
  b.access(c, 'x', false);
  const sync = b.call({
    lane: host,
    kind: 'streamSync',
    name: 'cudaStreamSynchronize',
    begin: 4000,
    end: 208500,
    stream: side,
    blockedNs: 204500,
    releasedBy: k,
    unblockNs: 3500,
  });
  b.call({ lane: host, kind: 'eventSync', begin: 209000, end: 209100, event: 'ready', releasedBy: RELEASED_UNKNOWN });
  b.call({
    lane: host,
    kind: 'query',
    name: 'cudaEventQuery',
    begin: 209200,
    end: 209300,
    event: 'ready',
    answer: 'error',
    status: 'cudaErrorNotReady',
  });
  b.call({
    lane: host,
    kind: 'elapsed',
    name: 'cudaEventElapsedTime',
    begin: 209400,
    end: 209500,
    event: 'a',
    event2: 'b',
    value: 0.125,
  });
  b.edge('launch', launch, k);
  b.edge('stream', k, r);
  b.edge('event', r, w);
  b.edge('stream', w, c);
  b.edge('release', k, sync);
  b.findings.push({
    rule: 'S9',
    kind: 'no-op-wait',
    severity: 'warning',
    message: 'waits on <nothing>',
    calls: [sync],
    ops: [],
    source: { line: 3, column: 1 },
  });
  b.findings.push({ rule: 'S2', kind: 'overlap', severity: 'info', message: 'global', calls: [], ops: [] });
  void ctx;
  return b.finish({
    source: 'simulator',
    clock: 'simulated',
    alignmentErrorNs: 0,
    scenario: { name: 'sample' },
    notes: ['n'],
  });
}

test('import(export(t)) gives back the same trace: calls, ops, edges, accesses, findings and meta', () => {
  const t = sample();
  assert.equal(traceToJson(importChrome(traceToChrome(t))), traceToJson(t));
});

test('a PyTorch trace survives the round trip through the Chrome export', () => {
  const t = importPytorch(readFileSync(repoPath('test/fixtures/torch/sync_overlap.json')));
  const text = traceToChrome(t);
  const back = createChromeImporter();
  for (let at = 0; at < text.length; at += 4093) back.push(text.slice(at, at + 4093));
  assert.equal(traceToJson(back.finish()), traceToJson(t));
});

function checkStructure(t: Trace, text: string): Ev[] {
  const root = JSON.parse(text) as { traceEvents: Ev[]; displayTimeUnit: string };
  assert.equal(root.displayTimeUnit, 'ns');
  const ev = root.traceEvents;
  const threads = new Map<number, number>(); // tid -> pid, from thread_name metadata
  const slices = new Map<string, Ev[]>();
  for (const e of ev) {
    assert.ok(['M', 'X', 's', 'f', 'i'].includes(e.ph), `phase ${e.ph}`);
    assert.ok(Number.isInteger(e.pid) && Number.isInteger(e.tid), 'integer pid and tid');
    if (e.ph === 'M' && e.name === 'thread_name') {
      assert.ok(!threads.has(e.tid), `tid ${e.tid} named once`);
      threads.set(e.tid, e.pid);
    }
    if (e.ph === 'X') {
      assert.ok(e.dur! >= 0 && typeof e.ts === 'number');
      const key = `${e.pid}/${e.tid}`;
      if (!slices.has(key)) slices.set(key, []);
      slices.get(key)!.push(e);
    }
  }
  for (const e of ev)
    if (e.ph !== 'M' && !(e.ph === 'i' && e.s === 'g'))
      assert.equal(threads.get(e.tid), e.pid, `${e.ph} ${e.name}: pid matches its thread`);
  assert.equal(threads.size, t.lanes.length);
  // Every flow has a start and a finish with the same id, each inside a slice on its thread.
  const starts = ev.filter((e) => e.ph === 's');
  const finishes = ev.filter((e) => e.ph === 'f');
  assert.equal(starts.length, t.edges.count);
  assert.deepEqual(starts.map((e) => e.id).sort(), finishes.map((e) => e.id).sort());
  for (const e of [...starts, ...finishes]) {
    assert.equal(e.bp, 'e');
    const inside = (slices.get(`${e.pid}/${e.tid}`) ?? []).some((s) => s.ts <= e.ts && e.ts <= s.ts + s.dur!);
    assert.ok(inside, `flow ${e.id} (${e.ph}) is inside a slice`);
  }
  return ev;
}

test('the export is valid trace-event JSON: phases, thread names, both ends of every flow', () => {
  const t = sample();
  const ev = checkStructure(t, traceToChrome(t));
  assert.deepEqual(ev.filter((e) => e.ph === 'X').length, t.calls.count + t.ops.count);
  const flows = ev.filter((e) => e.ph === 's').map((e) => e.name);
  assert.deepEqual(
    flows,
    [...Array(t.edges.count).keys()].map((i) => edgeKind(t, i)),
  );
  const findings = ev.filter((e) => e.ph === 'i');
  assert.deepEqual(
    findings.map((e) => [e.name, e.s, e.cat]),
    [
      ['S9 no-op-wait', 't', 'finding,warning'],
      ['S2 overlap', 'g', 'finding,info'],
    ],
  );
  // The slice names keep HTML-looking text as it is; JSON escaping is the only change.
  assert.ok(ev.some((e) => e.name === '<b>produce</b> "q" \\'));
  checkStructure(
    importPytorch(readFileSync(repoPath('test/fixtures/torch/sync_seeds.json'))),
    traceToChrome(importPytorch(readFileSync(repoPath('test/fixtures/torch/sync_seeds.json')))),
  );
});

test('exports stream in chunks: 100k ops never become one string on the way', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  for (let i = 0; i < 100_000; i++) {
    const c = b.call({ lane: host, kind: 'launch', name: 'cudaLaunchKernel', begin: i * 10, end: i * 10 + 5 });
    const o = b.op({ lane: s, kind: 'kernel', name: 'k', start: i * 10 + 6, end: i * 10 + 9, call: c });
    b.edge('launch', c, o);
  }
  const t = b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 });
  let chunks = 0;
  let longest = 0;
  const imp = createChromeImporter();
  for (const chunk of chromeTraceChunks(t)) {
    chunks++;
    longest = Math.max(longest, chunk.length);
    imp.push(chunk);
  }
  assert.ok(chunks >= 300, `${chunks} chunks`);
  assert.ok(longest < 400_000, `longest chunk ${longest}`);
  const back = imp.finish();
  assert.deepEqual([back.calls.count, back.ops.count, back.edges.count], [100_000, 100_000, 100_000]);
  assert.deepEqual([back.ops.start[99_999], back.ops.call[99_999]], [999_996, 99_999]);
});

test('sniffing tells our trace, our Chrome export and a PyTorch trace apart', () => {
  const t = sample();
  assert.equal(sniffFormat(traceToJson(t)), 'syncscope');
  assert.equal(sniffFormat(traceToChrome(t)), 'chrome');
  assert.equal(sniffFormat(readFileSync(repoPath('test/fixtures/torch/seed_synchronize.json'))), 'pytorch');
  assert.equal(sniffFormat('[{"ph":"X"}]'), 'pytorch');
  assert.equal(sniffFormat('{"name":"a scenario"}'), undefined);
});

test('an export of another version is refused with its version, not misread', () => {
  const doc = JSON.parse(traceToChrome(sample()));
  doc.syncscope.version = 1;
  assert.throws(() => importChrome(JSON.stringify(doc)), /version 1; this build reads version 2/);
});

test('slices are in microseconds read off the trace: ts is the begin, dur the length', () => {
  const ev = (JSON.parse(traceToChrome(sample())) as { traceEvents: Ev[] }).traceEvents;
  const slice = (name: string) => {
    const found = ev.filter((e) => e.ph === 'X' && e.name === name);
    assert.equal(found.length, 1, name);
    return [found[0].ts, found[0].dur];
  };
  // Calls: the launch ran 100..3600 ns, the stream synchronize 4000..208500 ns.
  assert.deepEqual(slice('cudaLaunchKernel'), [0.1, 3.5]);
  assert.deepEqual(slice('cudaStreamSynchronize'), [4, 204.5]);
  // Ops: the kernel ran 5000..205000 ns, the copy 206000..210000 ns.
  assert.deepEqual(slice('<b>produce</b> "q" \\'), [5, 200]);
  assert.deepEqual(slice('copy'), [206, 4]);
  // A flow end sits in the middle of its slice: the release edge ends in the middle of the sync.
  const release = ev.find((e) => e.ph === 'f' && e.name === 'release');
  assert.equal(release?.ts, 106.25);
});

test('each GPU is its own process, apart from the host', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s0 = b.lane({ kind: 'stream', name: 's0', device: 0 });
  const s1 = b.lane({ kind: 'stream', name: 's1', device: 1 });
  const s1b = b.lane({ kind: 'stream', name: 's1b', device: 1 });
  b.op({ lane: s0, kind: 'kernel', name: 'k0', start: 0, end: 10 });
  b.op({ lane: s1, kind: 'kernel', name: 'k1', start: 0, end: 10 });
  b.op({ lane: s1b, kind: 'kernel', name: 'k2', start: 0, end: 10 });
  b.call({ lane: host, kind: 'deviceSync', begin: 0, end: 20 });
  const t = b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 });
  const ev = checkStructure(t, traceToChrome(t));
  const pid = (name: string) => ev.find((e) => e.name === name)!.pid;
  const names = new Map(ev.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => [e.pid, e.args?.name]));
  assert.deepEqual([...names.values()], ['Host', 'GPU 0', 'GPU 1']);
  assert.notEqual(pid('k0'), pid('k1'));
  assert.equal(pid('k1'), pid('k2'));
  assert.equal(names.get(pid('k0')), 'GPU 0');
  assert.equal(names.get(pid('k1')), 'GPU 1');
  assert.equal(names.get(pid('deviceSync')), 'Host');
});
