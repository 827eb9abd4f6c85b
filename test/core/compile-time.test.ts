// torch.compile's compilation in a trace (core/analyze/compile-time.ts): the calls it makes while it
// compiles run once, inside the compiled function's first call, and are none of the program's loop.
// compiled_graphs.py (H200 capture) compiles block() with mode="reduce-overhead" and calls it 12
// times at line 19, reading norm.item() at line 20 after each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { madeCompiling } from '../../core/analyze/compile-time';
import { recordedWindow } from '../../core/overview/window';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const CAPTURE = 'test/fixtures/python/compiled_graphs.capture.syncscope.json.gz';

test("a call under TorchDynamo's frame conversion is compilation; the compiled code's replay is not", async () => {
  const t = await loadTraceFile(repoPath(CAPTURE));
  // Read by hand: call 5 copies a pattern's sample tensor for Inductor's attention pass, under
  // ConvertFrame.__call__ > ... > _compile; call 3069 is the .item() copy at line 20, whose stack is
  // the script's line alone; call 3072 launches the recorded graph.
  assert.equal(madeCompiling(t, 5), true);
  assert.equal(madeCompiling(t, 6), true);
  assert.equal(madeCompiling(t, 3069), false);
  assert.equal(madeCompiling(t, 3072), false);
});

test("the recorded window is the loop of graph replays, not the compilation's repeated copies", async () => {
  const t = await loadTraceFile(repoPath(CAPTURE));
  const rw = recordedWindow(t);
  // Read by hand: steps 3 to 12 each run one copy of the norm to the host and its synchronize
  // (line 20), then a kernel and the graph's launch (line 19), from call 3065 to call 3104; the
  // compilation's 24 copies, 13 repeats of one sequence, come 5 s before.
  assert.equal(rw.summary.text, '10 iterations, iteration 1 to iteration 10, from a run of calls that repeats');
  assert.equal(rw.spans[0].beginNs, t.calls.begin[3065]);
  assert.equal(rw.spans[9].beginNs, t.calls.begin[3101]);
});

test("torch.compile's own copies are one finding apart, said to be compilation's, with no fix to simulate", async () => {
  const t = await loadTraceFile(repoPath(CAPTURE));
  const findings = analyze(t).findings;
  const copies = findings.filter((f) => f.kind === 'pageable-async-copy');
  assert.equal(copies.length, 1);
  assert.equal(copies[0].severity, 'info');
  assert.equal(copies[0].fix, undefined);
  assert.match(copies[0].message, /torch\.compile made it while it compiled .* \(24 times\)$/);
  // The .item() at line 20 is the loop's finding.
  assert.equal(findings.filter((f) => f.kind === 'hidden-sync').length, 1);
});
