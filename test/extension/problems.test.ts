import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseScenario } from '../../core/scenario/parse';
import type { Finding } from '../../core/trace/model';
import { scenarioLensLine, scenarioProblems } from '../../extension/logic/problems';

const scenario = `// leading comment
{
  "name": "typo",
  "events": { "ready": {} },
  "steps": [
    { "launch": "k", "us": 10 },
    { "eventSync": "raedy" }
  ]
}
`;
const lines = scenario.split('\n');

test('a parse error lands on the line and columns of the offending value', () => {
  const { errors } = parseScenario(scenario, 'typo.scenario.json');
  assert.ok(errors.length >= 1);
  const [p] = scenarioProblems(scenario, errors, []);
  assert.equal(p.severity, 'error');
  assert.equal(p.start.line, 6, 'line 7 of the file, 0-based');
  const underlined = lines[6].slice(p.start.character, p.end.character);
  assert.ok(underlined.includes('raedy'), `underlined ${JSON.stringify(underlined)}`);
  assert.equal(p.message, errors[0].detail);
});

test("a finding at a step's opening brace underlines the step's kind property", () => {
  const col = lines[6].indexOf('{') + 1;
  const finding: Finding = {
    rule: 'S9',
    kind: 'no-op-wait',
    severity: 'error',
    message: 'never recorded',
    calls: [1],
    ops: [],
    source: { line: 7, column: col },
    fix: 'record it first',
  };
  const [p] = scenarioProblems(scenario, [], [finding]);
  assert.deepEqual(p.start, { line: 6, character: lines[6].indexOf('"eventSync"') });
  assert.equal(lines[6].slice(p.start.character, p.end.character), '"eventSync": "raedy"');
  assert.equal(p.rule, 'S9');
  assert.equal(p.message, 'never recorded. Fix: record it first');
});

test('a finding without a source position is pinned to the first line', () => {
  const finding: Finding = {
    rule: 'S3',
    kind: 'implicit-serialization',
    severity: 'warning',
    message: 'm',
    calls: [],
    ops: [],
  };
  const [p] = scenarioProblems(scenario, [], [finding]);
  assert.deepEqual([p.start, p.end, p.severity], [{ line: 0, character: 0 }, { line: 0, character: 1 }, 'warning']);
});

test('an error with a length underlines exactly that many characters', () => {
  const [p] = scenarioProblems(scenario, [{ line: 3, column: 3, detail: 'd', length: 6 }], []);
  assert.equal(lines[2].slice(p.start.character, p.end.character), '"name"');
});

test('the lens sits on the root object line, after leading comments', () => {
  assert.equal(scenarioLensLine(scenario), 1);
  assert.equal(scenarioLensLine('{"name": "x"}'), 0);
});
