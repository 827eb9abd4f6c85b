import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { traceExtent, type Trace } from '../../core/trace/model';
import { buildRows } from '../../webview/rows';
import { repoPath } from '../helpers/paths';
import { sampleTrace } from './sample';

function exampleTrace(name: string): Trace {
  const program = compileScenario(readFileSync(repoPath('examples', name), 'utf8'), name);
  const trace = simulate(program);
  trace.findings = analyze(trace, { program }).findings;
  return trace;
}

const traces = (): [string, Trace][] => [
  ['sample', sampleTrace()],
  ...['pipeline-buggy.scenario.json', 'multi-gpu-pipeline.scenario.json', 'launch-queue-full.scenario.json'].map(
    (n): [string, Trace] => [n, exampleTrace(n)],
  ),
];

test('every call and op is on the track it is said to be on, once, in time order', () => {
  for (const [name, trace] of traces()) {
    const rows = buildRows(trace, new Set());
    for (const [table, track, count, start] of [
      ['calls', rows.callTrack, trace.calls.count, trace.calls.begin],
      ['ops', rows.opTrack, trace.ops.count, trace.ops.start],
    ] as const) {
      const seen = new Uint8Array(count);
      for (const [t, tr] of rows.tracks.entries()) {
        if (tr.table !== table) continue;
        for (const [k, i] of tr.ids.entries()) {
          assert.equal(track(i), t, `${name}: ${table} ${i} on track ${t}`);
          if (k) assert.ok(start[tr.ids[k - 1]] <= start[i], `${name}: track ${t} in time order`);
          seen[i]++;
        }
      }
      assert.ok(
        seen.every((c) => c === 1),
        `${name}: every one of the ${table} on one track`,
      );
    }
  }
});

test("the rows' time span is the trace's", () => {
  for (const [name, trace] of traces()) assert.deepEqual(buildRows(trace, new Set()).extent, traceExtent(trace), name);
});
