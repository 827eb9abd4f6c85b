import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { isAsyncCall, programStep } from '../../core/analyze/describe';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { scenarioText } from './analyze-scenario';

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

/** How many of the scenario's copy calls the analysis reads as asynchronous, and how many as synchronous. */
function asyncCopies(text: string): { async: number; sync: number } {
  const program = compileScenario(text, 'loop');
  const t = simulate(program);
  let [async, sync] = [0, 0];
  for (let c = 0; c < t.calls.step.length; c++) {
    if (programStep(t, c, program)?.op !== 'copy') continue;
    if (isAsyncCall(t, c, program)) async++;
    else sync++;
  }
  return { async, sync };
}

test('the analysis finds each call of a loop its own step, in every repetition and thread', () => {
  // Each repetition has one async and one synchronous copy: 7 of each, then 3 + 5 over two threads.
  assert.deepEqual(asyncCopies(scenarioText({ ...spec, steps: [{ repeat: 7, steps: loop }, { deviceSync: true }] })), {
    async: 7,
    sync: 7,
  });
  assert.deepEqual(
    asyncCopies(
      scenarioText({ ...spec, threads: { main: [{ repeat: 3, steps: loop }], other: [{ repeat: 5, steps: loop }] } }),
    ),
    { async: 8, sync: 8 },
  );
});

test("a query's expectation inside a loop reaches the finding", () => {
  const program = compileScenario(scenarioText({ ...spec, steps: [{ repeat: 7, steps: loop }] }), 'loop');
  const { findings } = analyze(simulate(program), { program });
  // The query's expectation is only in the program: the finding shows it was read.
  assert.ok(findings.some((f) => f.message.includes('(the scenario expected notReady)')));
});
