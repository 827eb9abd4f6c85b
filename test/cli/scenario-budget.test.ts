// The CLI's scenario budget is a parameter: `--max-steps`, else sized by the memory the CLI may use
// (test/core/memory.test.ts works that out); the editor keeps the tight budget for hostile input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioBudget } from '../../cli/input';
import { memoryBudget, stepBudget } from '../../core/memory';
import { HOSTILE_BUDGET } from '../../core/scenario/kinds';
import { processMemoryBudget, processMemoryLimits } from '../../node/memory-limits';
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
  const memory = processMemoryBudget();
  assert.deepEqual(scenarioBudget('5', memory), { steps: 5, work: 10, raise: 'raise it with --max-steps' });
  for (const bad of ['0', '-3', '1.5', 'many'])
    assert.throws(() => scenarioBudget(bad, memory), /--max-steps takes a whole number/);
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-budget-'));
  writeFileSync(join(dir, 'ten.scenario.json'), repeated(10));
  const tight = await runCli(['check', 'ten.scenario.json', '--max-steps', '9'], dir);
  assert.equal(tight.code, 2);
  assert.match(tight.stderr, /ten\.scenario\.json:1:\d+: .*over the limit of 9; raise it with --max-steps\n/);
  const roomy = await runCli(['check', 'ten.scenario.json', '--max-steps', '10'], dir);
  assert.equal(roomy.code, 0, roomy.stderr);
});

test('without --max-steps the CLI budget is what the memory it may use holds', () => {
  const limits = { heapLimit: 2 ** 32, heapUsed: 0, mapped: 0, resident: 0, physical: 2 ** 36 };
  assert.deepEqual(scenarioBudget(undefined, memoryBudget(limits)), stepBudget(memoryBudget(limits)));
  // A 4 GB heap (Node's default on a host of 16 GB or more) admits a 10^7-op scenario where no
  // address-space or cgroup limit holds it: 4 GB / 400 bytes of heap a step.
  const l = processMemoryLimits();
  const b = scenarioBudget(undefined, processMemoryBudget());
  if (
    l.heapLimit - l.heapUsed >= 4e9 &&
    l.physical >= 16 * 2 ** 30 &&
    l.addressSpace === undefined &&
    l.cgroup === undefined
  )
    assert.ok(b.steps >= 10_000_000, `${b.steps} steps`);
});

test('the editor and a bare parse keep the tight budget', () => {
  assert.equal(WORKER_LIMITS.scenario, HOSTILE_BUDGET);
  const over = parseScenario(repeated(HOSTILE_BUDGET.steps / 4 + 1, 4), 'x.scenario.json');
  assert.match(over.errors[0]?.message ?? '', new RegExp(`over the limit of ${HOSTILE_BUDGET.steps}`));
});
