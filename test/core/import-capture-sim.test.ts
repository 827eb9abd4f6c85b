// The converter against the simulator: a raw capture of what the simulator did, for every example,
// converts back to the same releasing ops and the same ordering edges. So the capture path and the
// simulator follow the same rules (S1..S20) wherever a real program can show them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { importCapture } from '../../core/import/capture-convert';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { repoPath } from '../helpers/paths';
import { rawFromTrace } from '../helpers/raw-from-trace';
import { causalityViolations, structureOf } from '../gpu/capture/structure';
import { rulesScenario } from '../gpu/capture/scenarios';

const examples = readdirSync(repoPath('examples'))
  .filter((f) => f.endsWith('.scenario.json'))
  .sort();
const cases: [string, string][] = [
  ...examples.map((f): [string, string] => [f, readFileSync(repoPath('examples', f), 'utf8')]),
  ['capture rules scenario', JSON.stringify(rulesScenario)],
];

for (const [name, text] of cases) {
  test(`${name}: a capture of the simulated run has the simulator's releasing ops and edges`, () => {
    const sim = simulate(compileScenario(text, 'x.scenario.json'));
    const captured = importCapture(rawFromTrace(sim));
    const a = structureOf(captured);
    const b = structureOf(sim);
    assert.deepEqual(a.calls, b.calls);
    const mismatches = [...b.releasedBy]
      .filter(([c, by]) => (b.blockedNs.get(c) ?? 0) > 0 && a.releasedBy.get(c) !== by)
      .map(([c, by]) => `${c}: captured ${a.releasedBy.get(c) || 'none'}, simulated ${by || 'none'}`);
    assert.deepEqual(mismatches, []);
    assert.deepEqual([...a.edges].sort(), [...b.edges].sort());
    assert.deepEqual(causalityViolations(captured), []);
  });
}
