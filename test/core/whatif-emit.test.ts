// The generated scenario compiled from its values is the program its printed text compiles to, and
// identical iterations fold into a `repeat` only where that is exact: read by hand on a small loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { compileScenario, compileTree } from '../../core/scenario/parse';
import { h200, simulate } from '../../core/simulate';
import { TraceBuilder, type Trace } from '../../core/trace/model';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { compileGenerated, GENERATED_FILE, replay } from '../../core/whatif/replay';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const finish = (b: TraceBuilder) => b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });

/**
 * A copy, then five iterations of: launch "k" on stream s7, synchronize s7. The first iteration's
 * kernel is a warm-up (150 us); the other four are alike to the nanosecond (100 us each).
 */
function loop(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'side', device: 0, nonBlocking: true, handle: 7 });
  const c = b.call({
    lane: host,
    kind: 'memcpy',
    begin: 0,
    end: 50_000,
    stream: s,
    name: 'cudaMemcpy',
    blockedNs: 40_000,
    releasedBy: 0,
  });
  b.op({ lane: s, kind: 'memcpy', start: 5000, end: 45_000, call: c, copy: 'HtoD', bytes: 4096, hostMemory: 'pinned' });
  for (let j = 0; j < 5; j++) {
    const base = 100_000 + j * 300_000;
    const kernel = j === 0 ? 150_000 : 100_000;
    const l = b.call({
      lane: host,
      kind: 'launch',
      begin: base,
      end: base + 5000,
      stream: s,
      name: 'cudaLaunchKernel',
    });
    const op = b.op({ lane: s, kind: 'kernel', start: base + 10_000, end: base + 10_000 + kernel, call: l, name: 'k' });
    b.call({
      lane: host,
      kind: 'streamSync',
      begin: base + 20_000,
      end: base + 12_000 + kernel,
      stream: s,
      name: 'cudaStreamSynchronize',
      blockedNs: kernel - 10_000,
      releasedBy: op,
    });
  }
  return finish(b);
}

/** Two host threads at work at once, each on its own stream, with an event between them. */
function twoThreads(): Trace {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const other = b.lane({ kind: 'thread', name: 'loader', device: 0 });
  const s1 = b.lane({ kind: 'stream', name: 'a', device: 0, handle: 1 });
  const s2 = b.lane({ kind: 'stream', name: 'b', device: 0, nonBlocking: true, priority: -1, handle: 2 });
  for (let j = 0; j < 4; j++) {
    const base = j * 200_000;
    const l = b.call({
      lane: main,
      kind: 'launch',
      begin: base,
      end: base + 5000,
      stream: s1,
      name: 'cudaLaunchKernel',
    });
    b.op({ lane: s1, kind: 'kernel', start: base + 6000, end: base + 56_000, call: l, name: 'fwd' });
    const m = b.call({
      lane: other,
      kind: 'launch',
      begin: base + 1000,
      end: base + 9000,
      stream: s2,
      name: 'cudaLaunchKernel',
    });
    b.op({ lane: s2, kind: 'kernel', start: base + 10_000, end: base + 30_000, call: m, name: 'load' });
  }
  return finish(b);
}

async function traces(): Promise<[string, Trace][]> {
  const out: [string, Trace][] = [
    ['loop', loop()],
    ['two threads', twoThreads()],
  ];
  const examples = repoPath('examples');
  for (const f of readdirSync(examples).filter((n) => n.endsWith('.scenario.json'))) {
    const t = simulate(compileScenario(readFileSync(`${examples}/${f}`, 'utf8'), f));
    if (!t.lanes.some((l) => l.device > 0)) out.push([f, t]);
  }
  const captures = 'test/fixtures/capture/programs';
  for (const f of ['train_step.plain', 'side_stream_sync.plain'])
    out.push([f, await loadTraceFile(repoPath(captures, `${f}.syncscope.json.gz`))]);
  return out;
}

test('a generated scenario compiles from its values to the program its text compiles to, steps and declarations at the same lines and columns', async () => {
  for (const [name, t] of await traces()) {
    const g = scenarioFromTrace(t, h200);
    assert.deepEqual(compileGenerated(g), compileScenario(g.text, GENERATED_FILE), name);
    const unrolled = { repeat: false };
    assert.deepEqual(
      compileTree(g.tree(g.threads, unrolled), GENERATED_FILE).program,
      compileScenario(g.render(g.threads, unrolled), GENERATED_FILE),
      `${name}, unrolled`,
    );
  }
});

test('the two-thread scenario declares both streams with their flags, and the tree places each where the text does', () => {
  const g = scenarioFromTrace(twoThreads(), h200);
  assert.match(g.text, /^ {2}"streams": \{"s1":\{\},"s2":\{"nonBlocking":true,"priority":-1\}\},$/m);
  const p = compileGenerated(g);
  // Line 4 is the streams line: "s1" begins at column 15, "s2" after `"s1":{},`.
  assert.deepEqual(
    p.streams.filter((s) => !s.legacyDefault).map((s) => [s.name, s.pos.line, s.pos.column]),
    [
      ['s1', 4, 15],
      ['s2', 4, 23],
    ],
  );
  assert.deepEqual(
    p.threads.map((th) => th.name),
    ['main', 't1'],
  );
});

test('identical iterations of a small loop fold into one repeat; the warm-up iteration and the last, shorter one stay unrolled', () => {
  const g = scenarioFromTrace(loop(), h200);
  const steps = g.text.split('\n').slice(g.text.split('\n').indexOf('  "steps": [') + 1, -3);
  // The copy as measured (40 us); after it the gap to the first launch plus what its call took before
  // its op started on a free stream, beyond the model's 2 us (50 + 5 - 2 = 53 us): the simulator holds
  // the call for the copy itself. Each launch finds its stream idle and costs the model's 5 us, all of
  // its call; its kernel started 10 us after the call began, 4 us after the launch and the 1 us submit
  // allow: the kernel is that 4 us and its own time less the profile's 2.6 us overhead. A launch's host
  // work is the gap to the next call (15 us); after a synchronize, the gap to the next launch plus what
  // the sync took unblocked beyond its 1.6 us (2 - 1.6 = 0.4 us).
  assert.deepEqual(steps, [
    '    {"copy":"h_pinned_4096","to":"d_4096","bytes":4096,"ns":40000},',
    '    {"hostWork":{"ns":53000}},',
    '    {"launch":"k","stream":"s7","ns":151400}, // k',
    '    {"hostWork":{"ns":15000}},',
    '    {"streamSync":"s7"},',
    '    {"hostWork":{"ns":138400}},',
    '    { "repeat": 3, "steps": [ // 3 identical iterations',
    '      {"launch":"k","stream":"s7","ns":101400}, // k',
    '      {"hostWork":{"ns":15000}},',
    '      {"streamSync":"s7"},',
    '      {"hostWork":{"ns":188400}},',
    '    ] },',
    '    {"launch":"k","stream":"s7","ns":101400}, // k',
    '    {"hostWork":{"ns":15000}},',
    '    {"streamSync":"s7"},',
  ]);
});

/** A simulated trace without the scenario lines and columns its calls point at (a repeat's steps share theirs). */
function withoutPositions(t: Trace): unknown {
  const calls = Object.fromEntries(Object.entries(t.calls).filter(([k]) => k !== 'line' && k !== 'column'));
  return { ...t, calls };
}

test('a repeat changes nothing the replay simulates: the same simulated trace, spans and waits as unrolled', () => {
  const t = loop();
  const g = scenarioFromTrace(t, h200);
  assert.match(g.text, /"repeat": 3/);
  const folded = simulate(compileGenerated(g), h200);
  const unrolled = simulate(compileTree(g.tree(g.threads, { repeat: false }), GENERATED_FILE).program!, h200);
  assert.deepEqual(withoutPositions(folded), withoutPositions(unrolled));
  // The repeat's steps point at the repeat body's lines, once for every iteration.
  assert.equal(folded.calls.count, unrolled.calls.count);
  const r = replay(t, h200);
  assert.equal(r.simulated.calls.count, unrolled.calls.count);
  // The synchronous copy and the five synchronizes.
  assert.equal(r.waits.length, 6);
  for (const w of r.waits) assert.ok(w.sameReleaser, `call ${w.call}`);
});

test('steps that differ by a nanosecond, or only in their comment, stay unrolled', () => {
  const t = loop();
  const g = scenarioFromTrace(t, h200);
  const main = g.threads.get('main')!;
  const again = (edit: (steps: typeof main) => void): string => {
    const th = new Map([['main', main.map((s) => ({ ...s, step: structuredClone(s.step) }))]]);
    edit(th.get('main')!);
    return g.render(th);
  };
  // The second steady iteration's trailing host work one ns longer: no two iterations next to each other are alike.
  const longer = again((steps) => {
    (steps[13].step.hostWork as { ns: number }).ns += 1;
  });
  assert.doesNotMatch(longer, /"repeat"/);
  const noted = again((steps) => {
    steps[10].note = 'train.py:12';
  });
  // The noted launch stays a step of its own; what folds around it (a rotation of the loop) leaves it out.
  assert.doesNotMatch(noted, /"repeat": 3/);
  assert.match(noted, /^ {4}\{"launch":"k","stream":"s7","ns":101400\}, \/\/ train\.py:12$/m);
});

test('a step the compiler rejects is reported as a bug in Syncscope, with no position in a file that does not exist', () => {
  const g = scenarioFromTrace(loop(), h200);
  const th = new Map([['main', g.threads.get('main')!.map((s) => ({ ...s, step: structuredClone(s.step) }))]]);
  delete th.get('main')![2].step.ns;
  assert.throws(
    () => compileGenerated(g, th),
    (e: Error) =>
      /^the scenario made from the trace does not compile, which is a bug in Syncscope: a launch needs its work/.test(
        e.message,
      ) && !/:\d+:\d+/.test(e.message),
  );
});
