import { test } from 'node:test';
import assert from 'node:assert/strict';
import { happensBefore, type Hazard } from '../../core/analyze';
import type { Finding } from '../../core/trace/model';
import { lineOf, opNamed, run, scenarioText, type ScenarioSpec } from './analyze-scenario';

const races = (a: { findings: Finding[] }) => a.findings.filter((f) => f.kind === 'race');

const racy: ScenarioSpec = {
  streams: { side: { nonBlocking: true } },
  buffers: { x: { bytes: 4096 } },
  steps: [
    { launch: 'produce', stream: 'side', us: 200, writes: ['x'] },
    { launch: 'consume', us: 50, reads: ['x'] },
  ],
};

/** Inserts the hazard's fix into the scenario: a record after the first access's step, a wait before the second's. */
function applyFix(spec: ScenarioSpec, text: string, h: Hazard, event: string): ScenarioSpec {
  const steps = [...(spec.steps ?? [])];
  const indexAt = (line: number) => steps.findIndex((s) => lineOf(text, JSON.stringify(s)) === line);
  const after = indexAt(h.first.source!.line);
  const before = indexAt(h.second.source!.line);
  assert.ok(after >= 0 && before > after, 'both accesses point at steps of the scenario');
  steps.splice(before, 0, { wait: event, stream: h.fix.waitIn });
  steps.splice(after + 1, 0, { record: event, stream: h.fix.recordOn });
  return { ...spec, events: { ...spec.events, [event]: {} }, steps };
}

test('S2 race: a write and a read of one buffer on two unordered streams, with both accesses and the fix', () => {
  const { analysis, text } = run(racy);
  assert.equal(races(analysis).length, 1);
  const f = races(analysis)[0];
  assert.equal(f.severity, 'error');
  assert.equal(f.rule, 'S2');
  const [h] = analysis.hazards;
  assert.equal(h.buffer, 'x');
  assert.deepEqual([h.first.name, h.first.stream, h.first.write], ['produce', 'side', true]);
  assert.deepEqual([h.second.name, h.second.stream, h.second.write], ['consume', 'default', false]);
  assert.equal(h.first.source?.line, lineOf(text, '"produce"'));
  assert.equal(h.second.source?.line, lineOf(text, '"consume"'));
  assert.deepEqual(f.source, h.second.source);
  assert.match(
    f.fix!,
    new RegExp(
      `record an event on stream side after "produce" \\(line ${h.first.source!.line}\\), and wait on it in stream default before "consume" \\(line ${h.second.source!.line}\\)`,
    ),
  );
});

test('S2 race: applying the suggested fix to the scenario removes the finding', () => {
  const first = run(racy);
  const fixed = applyFix(racy, first.text, first.analysis.hazards[0], 'fix_x');
  const again = run(fixed);
  assert.deepEqual(races(again.analysis), []);
  assert.deepEqual(again.analysis.hazards, []);
  const hb = happensBefore(again.trace);
  assert.equal(
    hb.before({ kind: 'op', id: opNamed(again.trace, 'produce') }, { kind: 'op', id: opNamed(again.trace, 'consume') }),
    true,
  );
});

test('S2 race: a read followed by an unordered write (write after read) is a race too, and its fix works', () => {
  const spec: ScenarioSpec = {
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    buffers: { x: { bytes: 4096 } },
    steps: [
      { launch: 'reader', stream: 'a', us: 100, reads: ['x'] },
      { launch: 'writer', stream: 'b', us: 10, writes: ['x'] },
    ],
  };
  const { analysis, text } = run(spec);
  const [h] = analysis.hazards;
  assert.deepEqual([h.first.name, h.first.write, h.second.name, h.second.write], ['reader', false, 'writer', true]);
  assert.deepEqual(races(run(applyFix(spec, text, h, 'done_reading')).analysis), []);
});

test('S2 race: near misses are not races (ordered by an event, by a host wait, by stream order, or only reads)', () => {
  const twins: [string, ScenarioSpec][] = [
    [
      'event',
      {
        ...racy,
        events: { e: {} },
        steps: [racy.steps![0], { record: 'e', stream: 'side' }, { wait: 'e' }, racy.steps![1]],
      },
    ],
    ['streamSync', { ...racy, steps: [racy.steps![0], { streamSync: 'side' }, racy.steps![1]] }],
    ['same stream', { ...racy, steps: [racy.steps![0], { launch: 'consume', stream: 'side', us: 50, reads: ['x'] }] }],
    ['reads only', { ...racy, steps: [{ launch: 'produce', stream: 'side', us: 200, reads: ['x'] }, racy.steps![1]] }],
    ['legacy stream (S3)', { ...racy, streams: { side: {} } }],
    [
      'other buffer',
      {
        ...racy,
        buffers: { x: { bytes: 4096 }, y: { bytes: 4096 } },
        steps: [racy.steps![0], { launch: 'consume', us: 50, reads: ['y'] }],
      },
    ],
  ];
  for (const [name, spec] of twins) assert.deepEqual(races(run(spec).analysis), [], name);
});

test('S2 race: a write clears the reads before it, so a read racing two writes of one stream is one race, with the first', () => {
  // "reader" on a runs from about 6 to 109 µs; "writer" and then "rewrite" on b both run inside it.
  // The fix for reader/writer (record on a after reader, wait in b before writer) orders rewrite too.
  const spec: ScenarioSpec = {
    streams: { a: { nonBlocking: true }, b: { nonBlocking: true } },
    buffers: { x: { bytes: 4096 } },
    steps: [
      { launch: 'reader', stream: 'a', us: 100, reads: ['x'] },
      { launch: 'writer', stream: 'b', us: 10, writes: ['x'] },
      { launch: 'rewrite', stream: 'b', us: 10, writes: ['x'] },
    ],
  };
  const { analysis, text } = run(spec);
  assert.deepEqual(
    analysis.hazards.map((h) => [h.first.name, h.first.write, h.second.name, h.second.write, h.count]),
    [['reader', false, 'writer', true, 1]],
  );
  assert.equal(races(analysis).length, 1);
  assert.deepEqual(races(run(applyFix(spec, text, analysis.hazards[0], 'read_done')).analysis), []);
});

test('S2 race: a race inside a repeat is one finding per pair of places, counting its occurrences', () => {
  const { analysis } = run({ ...racy, steps: [{ repeat: 40, steps: racy.steps }] });
  // Write then read in each iteration, and the next iteration's write after this one's read.
  const pairs = analysis.hazards.map((h) => `${h.first.name}>${h.second.name}`).sort();
  assert.deepEqual(pairs, ['consume>produce', 'produce>consume']);
  assert.equal(races(analysis).length, 2);
  for (const f of races(analysis)) assert.match(f.message, /\(\d+ times\)$/);
  assert.equal(analysis.hazards.find((h) => h.first.name === 'produce')!.count, 40);
});

test('S2 race: work issued by two host threads to two streams races unless an event orders it', () => {
  const spec = (ordered: boolean): ScenarioSpec => ({
    streams: { s1: { nonBlocking: true }, s2: { nonBlocking: true } },
    events: { e: {} },
    buffers: { x: { bytes: 1024 } },
    threads: {
      producer: [
        { launch: 'produce', stream: 's1', us: 100, writes: ['x'] },
        { record: 'e', stream: 's1' },
      ],
      consumer: [
        { hostWork: { us: 30 } },
        ...(ordered ? [{ wait: 'e', stream: 's2' }] : []),
        { launch: 'consume', stream: 's2', us: 10, reads: ['x'] },
      ],
    },
  });
  assert.equal(races(run(spec(false)).analysis).length, 1);
  assert.deepEqual(races(run(spec(true)).analysis), []);
});

test('scenario text helper keeps one step per line', () => {
  const text = scenarioText(racy);
  assert.equal(lineOf(text, '"consume"'), lineOf(text, '"produce"') + 1);
});
