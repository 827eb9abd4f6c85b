// The fuzz suite's short run, in every `npm test`: a few hundred hostile scenarios, PyTorch traces
// and saved traces through the built CLI. Each must end in exit 0/1 with a report that meets its
// schema, or exit 2 with a positioned message, within 20 s and a 4 GiB address space. The long run
// is `npm run fuzz`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureLines, fuzz, table } from './runner';

/** Inputs in the short run, and their seed: the same inputs every run. */
const COUNT = 300;
const SEED = 1;
/** Small enough for the CI budget; the hostile shapes (10^5-deep nesting, 1 MB names) still fit. */
const MAX_BYTES = 1 << 20;

test(`fuzz: ${COUNT} hostile inputs end cleanly within their time and memory budgets`, async (t) => {
  const results = await fuzz({ seed: SEED, count: COUNT, maxBytes: MAX_BYTES, short: true });
  const failing = failureLines(results);
  if (failing.length) t.diagnostic(`\n${table(results)}\n${failureLines(results, 40).join('\n')}`);
  assert.equal(failing.length, 0, `${failing.length} of ${COUNT} inputs failed (first: ${failing[0]})`);
});
