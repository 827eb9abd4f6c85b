// The report streamed in chunks reads exactly as the whole report written at once, and `simulate`
// summarizes a run of many waits unless asked for all of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../core/analyze';
import {
  buildReport,
  formatReport,
  reportJsonChunks,
  reportTextChunks,
  SUMMARY_WAITS,
  waitLines,
  type ReportWait,
} from '../../core/report';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';
import { run, scenarioText } from './analyze-scenario';

const EXAMPLES = readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json'));

test('report --json in chunks is JSON.stringify(report, null, 2) with one line per wait, for every example', async () => {
  for (const f of EXAMPLES) {
    const r = await runCli(['report', 'examples/' + f, '--json']);
    const report = JSON.parse(r.stdout);
    assert.equal(r.stdout, pretty(report), f);
  }
});

test("a line's wait that found nothing pending says so once; nothing at a line keeps the released-by line", () => {
  const wait = {
    id: 243,
    kind: 'deviceSync',
    thread: 'thread 1788 (python3)',
    target: 'device',
    beginNs: 1_520_000,
    endNs: 1_521_000,
    blockedNs: 0,
    releasedBy: [],
    unblockLatencyNs: null,
    pending: false,
    rules: ['S14'],
  } as unknown as ReportWait;
  const at = { file: '/home/dev/train.py', line: 84, function: 'step', precision: 'line' };
  const lines = (w: ReportWait) => {
    const out: string[] = [];
    waitLines(w, out);
    return out.filter((l) => l.includes('nothing was pending'));
  };
  assert.deepEqual(lines({ ...wait, source: at } as ReportWait), [
    '      line 84 returned at once: nothing was pending',
  ]);
  assert.deepEqual(lines(wait), ['      nothing was pending: returned at once']);
});

/** A loop that fills the launch queue: every launch past the queue's depth (1021 in the built-in profile) blocks the host. */
const manyWaits = (n: number) =>
  scenarioText({
    streams: { s: {} },
    steps: [
      { launch: 'long', stream: 's', us: 100000 },
      { repeat: n, steps: [{ launch: 'k', stream: 's', us: 10 }] },
    ],
  });

test('chunked JSON of thousands of waits equals the whole, and no wait is left out', () => {
  const { trace, analysis } = run(manyWaits(4000));
  const report = buildReport(trace, analysis);
  assert.ok(report.waits.length > 2000, `${report.waits.length} waits`);
  const chunks = [...reportJsonChunks(report)];
  assert.ok(chunks.length > 2);
  assert.equal(chunks.join(''), pretty(report));
  assert.equal(chunks.join('').match(/^ {4}\{"id":/gm)?.length, report.waits.length);
  const empty = { ...report, waits: [] };
  assert.equal([...reportJsonChunks(empty)].join(''), JSON.stringify(empty, null, 2) + '\n');
});

/** JSON.stringify(report, null, 2), each wait then folded onto one line. */
function pretty(report: { waits: unknown[] }): string {
  let text = JSON.stringify({ ...report, waits: ['@'] }, null, 2) + '\n';
  const lines = report.waits.map((w) => '    ' + JSON.stringify(w)).join(',\n');
  text = text.replace('\n    "@"\n', '\n' + lines + '\n');
  return report.waits.length ? text : JSON.stringify(report, null, 2) + '\n';
}

test('the summary lists the longest waits in trace order and counts every wait by kind', () => {
  const { trace } = run(manyWaits(1300));
  const report = buildReport(trace, analyze(trace));
  const text = [...reportTextChunks(report, { summary: true })].join('');
  assert.match(text, new RegExp(`Host waits \\(${report.waits.length}\\): ${report.waits.length} launch`));
  const listed = [...text.matchAll(/^ {2}#(\d+) /gm)].map((m) => Number(m[1]));
  assert.equal(listed.length, SUMMARY_WAITS);
  assert.deepEqual(
    listed,
    [...listed].sort((a, b) => a - b),
  );
  const longest = [...report.waits].sort((a, b) => b.blockedNs - a.blockedNs || a.id - b.id).slice(0, SUMMARY_WAITS);
  assert.deepEqual(
    listed,
    longest.map((w) => w.id).sort((a, b) => a - b),
  );
  assert.equal(formatReport(report), [...reportTextChunks(report)].join(''));
});

test('simulate prints a summary above 200 waits, and every wait with --all', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-summary-'));
  writeFileSync(`${dir}/many-waits.scenario.json`, manyWaits(1300));
  const short = await runCli(['simulate', 'many-waits.scenario.json'], dir);
  assert.equal(short.code, 0, short.stderr);
  assert.equal([...short.stdout.matchAll(/^ {2}#\d+ /gm)].length, SUMMARY_WAITS);
  const all = await runCli(['simulate', 'many-waits.scenario.json', '--all'], dir);
  assert.ok([...all.stdout.matchAll(/^ {2}#\d+ /gm)].length > 200);
});
