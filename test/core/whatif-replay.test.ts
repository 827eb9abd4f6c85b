// Trace -> scenario -> simulated trace: the generated text read by hand on a small trace, and the
// repository's examples replayed with the same waits and releasing ops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { compileScenario } from '../../core/scenario/parse';
import { h200, simulate } from '../../core/simulate';
import { TraceBuilder } from '../../core/trace/model';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { replay } from '../../core/whatif/replay';
import { repoPath } from '../helpers/paths';

function small() {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'side', device: 0, nonBlocking: true, handle: 7 });
  const l = b.call({ lane: host, kind: 'launch', begin: 0, end: 10_000, stream: s, name: 'cudaLaunchKernel' });
  b.op({ lane: s, kind: 'kernel', start: 12_000, end: 112_600, call: l, name: 'k' });
  b.call({ lane: host, kind: 'launch', begin: 20_000, end: 25_000, stream: s, name: 'cudaLaunchKernel' }); // no kernel in the trace
  b.call({ lane: host, kind: 'streamSync', begin: 30_000, end: 116_000, stream: s, blockedNs: 84_400, releasedBy: 0 });
  return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
}

test('a small trace as a scenario: the stream with its flag, the kernel less the overhead, host gaps, the launch without a kernel marked', () => {
  const g = scenarioFromTrace(small(), h200);
  assert.match(g.text, /"streams": \{"s7":\{"nonBlocking":true\}\}/);
  const steps = g.threads.get('main')!.map((s) => s.step);
  assert.deepEqual(steps, [
    { launch: 'k', stream: 's7', ns: 100_600 - 2600 },
    // gap 10 us, plus the launch's 10 us less the model's 3.9 us; then the marked launch's 5 us and the next gap
    { hostWork: { ns: 10_000 + 10_000 - 3900 } },
    {},
    { hostWork: { ns: 5000 + 5000 } },
    { streamSync: 's7' },
  ]);
  assert.equal(g.marked, 1);
  assert.match(g.text, /\/\/ left out: cudaLaunchKernel has no kernel in the trace, so no duration/);
  compileScenario(g.text);
});

test('examples: simulated, turned into a scenario and simulated again, every wait keeps its releasing op', () => {
  const dir = repoPath('examples');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.scenario.json'))) {
    const t = simulate(compileScenario(readFileSync(`${dir}/${f}`, 'utf8'), f));
    // Scenarios of more than one GPU are not generated yet (docs/whatif.md).
    if (t.lanes.some((l) => l.device > 0)) continue;
    const r = replay(t, h200);
    for (const w of r.waits) assert.ok(w.sameReleaser, `${f}: call ${w.call} ${w.measuredBy} -> ${w.replayedBy}`);
  }
});
