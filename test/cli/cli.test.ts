import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { validate } from '../helpers/json-schema';
import { repoPath } from '../helpers/paths';
import { parseTrace } from '../../core/trace/json';

const DEFAULT = 'examples/seed-side-stream-event-sync.scenario.json';
const reportSchema = () => JSON.parse(readFileSync(repoPath('media/schema/report.schema.json'), 'utf8'));

test('report --json on the default example names the op that released the event wait', async () => {
  const r = await runCli(['report', DEFAULT, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.deepEqual(validate(report, reportSchema()), []);
  assert.equal(report.source, 'simulator');
  const sync = report.waits.find((w: { kind: string }) => w.kind === 'eventSync');
  assert.ok(sync, 'an eventSync wait');
  assert.equal(sync.releasedBy.length, 1);
  assert.match(sync.releasedBy[0].name, /add|t1 \+ t2/);
  assert.ok(sync.unblockLatencyNs > 0 && sync.unblockLatencyNs < 10_000, `spin wake-up, got ${sync.unblockLatencyNs}`);
  assert.ok(sync.blockedNs > 0);
});

test('every example report validates against the shipped report schema', async () => {
  const { readdirSync } = await import('node:fs');
  const schema = reportSchema();
  const files = readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json'));
  assert.ok(files.length >= 15, `expected the seed and teaching examples, found ${files.length}`);
  for (const f of files) {
    const r = await runCli(['report', 'examples/' + f, '--json']);
    assert.equal(r.code, 0, `${f}: ${r.stderr}`);
    assert.deepEqual(validate(JSON.parse(r.stdout), schema), [], f);
  }
});

test('simulate writes a trace that loads back and an HTML timeline with no remote loads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-cli-'));
  const r = await runCli(
    ['simulate', repoPath(DEFAULT), '--out', join(dir, 't.syncscope.json'), '--html', join(dir, 't.html')],
    dir,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Host waits \(\d+\):/);
  const trace = parseTrace(readFileSync(join(dir, 't.syncscope.json'), 'utf8'));
  assert.equal(trace.meta.source, 'simulator');
  assert.ok(trace.ops.count > 0);
  const html = readFileSync(join(dir, 't.html'), 'utf8');
  assert.match(html, /Content-Security-Policy/);
  assert.doesNotMatch(html, /<script[^>]+src=["']https?:/);
  assert.doesNotMatch(html, /unsafe-inline'[^"]*script/);
});

test('check exits 1 on a buggy example and 0 on its fixed twin', async () => {
  const buggy = await runCli(['check', 'examples/wait-before-record-buggy.scenario.json']);
  assert.equal(buggy.code, 1, buggy.stdout + buggy.stderr);
  assert.match(buggy.stdout, /error S9 no-op-wait/);
  const fixed = await runCli(['check', 'examples/wait-before-record-fixed.scenario.json']);
  assert.equal(fixed.code, 0, fixed.stdout);
  assert.match(fixed.stdout, /0 error\(s\)/);
});

test('bad input exits 2 with one clear line first', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-cli-'));
  writeFileSync(join(dir, 'bad.scenario.json'), '{ "name": "x", "steps": [ { "lanch": "k", "us": 5 } ] }');
  const r = await runCli(['simulate', 'bad.scenario.json'], dir);
  assert.equal(r.code, 2);
  assert.match(r.stderr.split('\n')[0], /^syncscope simulate: bad\.scenario\.json:1:\d+: .*did you mean "launch"/);

  const missing = await runCli(['report', 'nope.syncscope.json'], dir);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr.split('\n')[0], /nope\.syncscope\.json/);

  const unknown = await runCli(['simulat']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^syncscope: unknown command "simulat"/);

  const flag = await runCli(['report', DEFAULT, '--jsn']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /unknown option --jsn/);
});
