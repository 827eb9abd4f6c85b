import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { analyze } from '../../core/analyze';
import { analysisProgram } from '../../core/analyze/describe';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { repoPath } from '../helpers/paths';
import { scenarioText } from './analyze-scenario';

/** The analysis with the full program and with only the steps it reads gives the same answer. */
function assertSameAnalysis(text: string, name: string): ReturnType<typeof analyze> {
  const program = compileScenario(text, name);
  const trace = simulate(program);
  const slim = analysisProgram(program);
  assert.ok(slim.threads.every((th, i) => th.steps.length <= program.threads[i].steps.length));
  const full = analyze(trace, { program });
  assert.deepEqual(analyze(trace, { program: slim }), full, name);
  return full;
}

test('the analysis program gives every example the same analysis as the full program', () => {
  const examples = readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json'));
  for (const f of examples) assertSameAnalysis(readFileSync(repoPath('examples', f), 'utf8'), f);
});

test('the analysis program finds async copies, memsets and query expectations inside loops and threads', () => {
  const loop = [
    { launch: 'k', stream: 's', us: 5 },
    { copy: 'd', to: 'h', async: true, stream: 's' },
    { memset: 'd', async: true, stream: 's' },
    { query: 'e', expect: 'notReady' },
    { copy: 'h', to: 'd' },
    { record: 'e', stream: 's' },
  ];
  const spec = {
    streams: { s: { nonBlocking: true } },
    events: { e: {} },
    buffers: { d: { bytes: 1 << 20 }, h: { bytes: 1 << 20, host: 'pinned' } },
  };
  const { findings } = assertSameAnalysis(
    scenarioText({ ...spec, steps: [{ repeat: 7, steps: loop }, { deviceSync: true }] }),
    'loop',
  );
  // The query's expectation is only in the program: the finding shows it was read.
  assert.ok(findings.some((f) => f.message.includes('(the scenario expected notReady)')));
  assertSameAnalysis(
    scenarioText({ ...spec, threads: { main: [{ repeat: 3, steps: loop }], other: [{ repeat: 5, steps: loop }] } }),
    'threads',
  );
});
