// The worker's time limits (extension/logic/engineOps.ts, docs/extension.md): a large trace's import
// and the work on it afterwards get longer than a scenario's check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WORKER_LIMITS } from '../../extension/logic/engineOps';

test("work on a trace already read gets 20 s plus a second per 100,000 calls and ops: a 2 GB trace's 8.9 million, 110 s", () => {
  // The 2 GB generated trace of bench/results/import.md: 6052629 calls and 2894736 ops.
  assert.equal(WORKER_LIMITS.traceWorkTimeoutMs(6052629 + 2894736), 20_000 + 90_000);
  assert.equal(WORKER_LIMITS.traceWorkTimeoutMs(0), 20_000);
  assert.equal(WORKER_LIMITS.traceWorkTimeoutMs(1, 5000), 6000);
  // The import: a second per 10 MB of file.
  assert.equal(WORKER_LIMITS.traceTimeoutMs(122_278_807), 20_000 + 13_000);
});
