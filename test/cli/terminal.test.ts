import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeControls, escapeControlsKeepLines } from '../../core/terminal';
import { traceToJson } from '../../core/trace/json';
import { TraceBuilder } from '../../core/trace/model';
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

// Format characters (Unicode category Cf) that reorder or hide text: a bidi override, marks, isolates, a BOM, a tag.
const RLO = '\u202e';
const RAW_FORMAT = /\p{Cf}/u;

test('format characters are escaped as control characters are: bidi overrides, marks, isolates, BOM, tags', () => {
  assert.equal(
    escapeControls(`a${RLO}b\u200e\u200f\u2066\u2067\u2068\u2069\ufeff\u00ad\u{e0041}c`),
    'a\\u202eb\\u200e\\u200f\\u2066\\u2067\\u2068\\u2069\\ufeff\\xad\\u{e0041}c',
  );
  assert.equal(escapeControlsKeepLines(`${RLO}\n\t`), '\\u202e\n\t');
});

test("a file name with U+202E reads as written: in a wait's site, in replay, and in an error", async () => {
  // Shown raw, "/home/me/<RLO>yp.niart" reads as "/home/me/train.py": another file's name.
  const file = `/home/me/${RLO}yp.niart`;
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0, handle: 7 });
  const l = b.call({ lane: host, kind: 'launch', begin: 0, end: 10, stream: s, name: `cudaLaunch${RLO}Kernel` });
  b.op({ lane: s, kind: 'kernel', start: 20, end: 100_000, call: l, name: `k${RLO}` });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 20,
    end: 100_010,
    stream: s,
    blockedNs: 99_990,
    releasedBy: 0,
    site: 0,
    name: `cudaStream${RLO}Synchronize`,
  });
  b.sites.push({ frame: { file, line: 12, function: 'loop' }, precision: 'line', stack: [] });
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bidi-'));
  writeFileSync(
    join(dir, 'bidi.syncscope.json'),
    traceToJson(b.finish({ source: 'pytorch', clock: 'test', alignmentErrorNs: 0 })),
  );
  const report = await runCli(['report', 'bidi.syncscope.json'], dir);
  assert.equal(report.code, 0, report.stderr);
  assert.doesNotMatch(report.stdout, RAW_FORMAT);
  assert.match(report.stdout, /at \/home\/me\/\\u202eyp\.niart:12 in loop\(\)/);
  const replay = await runCli(['replay', 'bidi.syncscope.json'], dir);
  assert.equal(replay.code, 0, replay.stderr);
  assert.doesNotMatch(replay.stdout, RAW_FORMAT);
  assert.match(replay.stdout, /call 1 cudaStream\\u202eSynchronize: blocked/);
  const missing = await runCli(['report', `${RLO}gpj.syncscope.json`], dir);
  assert.equal(missing.code, 2);
  assert.doesNotMatch(missing.stderr, RAW_FORMAT);
  assert.match(missing.stderr, /\\u202egpj\.syncscope\.json/);
  // JSON keeps the name whole: it is data, and JSON readers do not act on it.
  const json = await runCli(['report', 'bidi.syncscope.json', '--json'], dir);
  assert.equal(JSON.parse(json.stdout).waits[0].source.file, file);
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
