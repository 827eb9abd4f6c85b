// The CLI's scenario budget is a parameter: `--max-steps`, else sized by the memory the CLI may use;
// the editor keeps the tight budget for hostile input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { scenarioBudget } from '../../cli/input';
import { HOSTILE_BUDGET } from '../../core/scenario/kinds';
import { parseScenario } from '../../core/scenario/parse';
import { WORKER_LIMITS } from '../../extension/logic/engineOps';
import { runCli } from '../helpers/cli';

/** `n` repetitions of a body of `body` launches. */
const repeated = (n: number, body = 1) =>
  JSON.stringify({
    name: 'big',
    streams: { s: {} },
    steps: [{ repeat: n, steps: Array.from({ length: body }, () => ({ launch: 'k', stream: 's', us: 1 })) }],
  });

test('--max-steps sets the budget, work twice the steps, and refuses what is not a whole number', async () => {
  assert.deepEqual(scenarioBudget('5'), { steps: 5, work: 10 });
  for (const bad of ['0', '-3', '1.5', 'many'])
    assert.throws(() => scenarioBudget(bad), /--max-steps takes a whole number/);
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-budget-'));
  writeFileSync(join(dir, 'ten.scenario.json'), repeated(10));
  const tight = await runCli(['check', 'ten.scenario.json', '--max-steps', '9'], dir);
  assert.equal(tight.code, 2);
  assert.match(tight.stderr, /ten\.scenario\.json:1:\d+: .*over the limit of 9/);
  const roomy = await runCli(['check', 'ten.scenario.json', '--max-steps', '10'], dir);
  assert.equal(roomy.code, 0, roomy.stderr);
});

test('without --max-steps the CLI budget grows with the heap, never below the editor budget', () => {
  const b = scenarioBudget();
  assert.ok(b.steps >= HOSTILE_BUDGET.steps && b.work >= HOSTILE_BUDGET.work);
  // A 4 GB heap (Node's default on a large host) admits a 10^7-op scenario.
  if (getHeapStatistics().heap_size_limit >= 4e9) assert.ok(b.steps >= 10_000_000, `${b.steps} steps`);
});

test('the editor and a bare parse keep the tight budget', () => {
  assert.equal(WORKER_LIMITS.scenario, HOSTILE_BUDGET);
  const over = parseScenario(repeated(HOSTILE_BUDGET.steps / 4 + 1, 4), 'x.scenario.json');
  assert.match(over.errors[0]?.message ?? '', new RegExp(`over the limit of ${HOSTILE_BUDGET.steps}`));
});
