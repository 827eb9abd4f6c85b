import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeControls, escapeControlsKeepLines } from '../../core/terminal';
import { runCli } from '../helpers/cli';

const RED = '\u001b[31m';
// Anything a terminal would act on: C0 controls, DEL, C1 controls.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

test('control characters are escaped; line breaks stay only where the text is several lines', () => {
  assert.equal(escapeControls(`${RED}k\r\n\t\u0000\u007f\u009b`), '\\x1b[31mk\\r\\n\\t\\x00\\x7f\\x9b');
  assert.equal(escapeControlsKeepLines(`a${RED}\nb\t\r`), 'a\\x1b[31m\nb\t\\r');
  assert.equal(escapeControls('plain ünïcode 名前 C:\\dir'), 'plain ünïcode 名前 C:\\dir');
});

function hostileScenario(): string {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-term-'));
  writeFileSync(
    join(dir, 'esc.scenario.json'),
    JSON.stringify({
      name: `${RED}red\rname`,
      streams: { [`s${RED}`]: { nonBlocking: true } },
      steps: [{ launch: `k${RED}\u009b2J`, stream: `s${RED}`, us: 5 }, { streamSync: `s${RED}` }],
    }),
  );
  return dir;
}

test('the text report shows names from a scenario and from a saved trace escaped', async () => {
  const dir = hostileScenario();
  const sim = await runCli(['simulate', 'esc.scenario.json', '--out', 'esc.syncscope.json'], dir);
  assert.equal(sim.code, 0, sim.stderr);
  for (const file of ['esc.scenario.json', 'esc.syncscope.json']) {
    const r = await runCli(['report', file, '--group', 'kind'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, RAW_CONTROL, file);
    assert.match(r.stdout, /\\x1b\[31mred\\rname/, file);
    assert.match(r.stdout, /s\\x1b\[31m/, file);
  }
});

test('report --json keeps JSON escaping, and the names read back whole', async () => {
  const dir = hostileScenario();
  const r = await runCli(['report', 'esc.scenario.json', '--json'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /\\x1b/);
  assert.equal(JSON.parse(r.stdout).name, `${RED}red\rname`);
});

test('errors quoting a name or a file show control characters escaped', async () => {
  const dir = hostileScenario();
  writeFileSync(
    join(dir, 'bad.scenario.json'),
    JSON.stringify({ name: 'bad', steps: [{ launch: 'k', stream: `x${RED}`, us: 1 }] }),
  );
  const cases = [
    ['report', 'bad.scenario.json'],
    ['simulate', 'esc.scenario.json', '--out', `no${RED}dir/out.syncscope.json`],
    ['report', `missing${RED}.syncscope.json`],
    [`${RED}bogus`],
  ];
  for (const argv of cases) {
    const r = await runCli(argv, dir);
    assert.equal(r.code, 2, argv.join(' '));
    assert.doesNotMatch(r.stderr, RAW_CONTROL, argv.join(' '));
    assert.match(r.stderr, /\\x1b\[31m/, argv.join(' '));
  }
});
