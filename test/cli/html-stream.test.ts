import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timelineHtmlChunks } from '../../cli/html-page';
import { analyze } from '../../core/analyze';
import { buildOverview } from '../../core/overview/build';
import type { Overview } from '../../core/overview/types';
import { h200 } from '../../core/simulate/profile';
import { timelineCsp, timelinePageHtml } from '../../core/page';
import { pageDataChunks } from '../../core/page-data';
import { packTrace } from '../../core/protocol';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import type { Trace } from '../../core/trace/model';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const HOSTILE = '</script><script>alert(1)</script>';

/** A trace of a few thousand ops whose names and title try to close the data block. */
function hostileTrace(): { trace: Trace; scenario: string } {
  const scenario = JSON.stringify({
    name: `big ${HOSTILE}`,
    streams: { s: { nonBlocking: true } },
    steps: [{ repeat: 4000, steps: [{ launch: `k ${HOSTILE}`, stream: 's', us: 1 }] }, { streamSync: 's' }],
  });
  const trace = simulate(compileScenario(scenario, 'big.scenario.json'));
  trace.findings = analyze(trace).findings;
  return { trace, scenario };
}

/** The page as it was built before streaming: the whole data block as one JSON string. */
function onePageString(trace: Trace, title: string, nonce: string, overview?: Overview): string {
  const js = readFileSync(repoPath('dist/webview.js'), 'utf8');
  const css = readFileSync(repoPath('dist/webview.css'), 'utf8');
  const data = JSON.stringify({ title, origin: undefined, trace: packTrace(trace, b64), overview }).replace(
    /</g,
    '\\u003c',
  );
  return timelinePageHtml({
    csp: timelineCsp(nonce),
    nonce,
    title: `${title} · Syncscope`,
    script: js,
    styles: [css],
    data,
  });
}

test('the streamed page equals the one-string page byte for byte', () => {
  const { trace } = hostileTrace();
  const title = `a <title> ${HOSTILE}`;
  const streamed = [...timelineHtmlChunks(trace, title, { nonce: 'fixed-nonce' })].join('');
  assert.equal(streamed, onePageString(trace, title, 'fixed-nonce'));
  assert.equal(streamed.match(/<\/script>/g)?.length, 2, 'no name closes a script element');
});

test('the data block comes in pieces, none holding the whole trace', () => {
  const { trace } = hostileTrace();
  const chunks = [...pageDataChunks(trace, 't', b64)];
  const whole = chunks.join('');
  assert.equal(whole, JSON.stringify({ title: 't', trace: packTrace(trace, b64) }).replace(/</g, '\\u003c'));
  const longest = Math.max(...chunks.map((c) => c.length));
  assert.ok(longest * 8 < whole.length, `the longest chunk is ${longest} of ${whole.length} characters`);
  const page = [...timelineHtmlChunks(trace, 't', { nonce: 'n' })];
  assert.ok(page.length > chunks.length, 'the page passes the data chunks on as they are');
});

test('html -o writes the same data block as the one-string page', async () => {
  const { trace, scenario } = hostileTrace();
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-html-'));
  writeFileSync(join(dir, 'big.scenario.json'), scenario);
  const r = await runCli(['html', 'big.scenario.json', '-o', 'page.html'], dir);
  assert.equal(r.code, 0, r.stderr);
  const html = readFileSync(join(dir, 'page.html'), 'utf8');
  const nonce = /script-src 'nonce-([^']+)'/.exec(html)?.[1] ?? '';
  // The page opens on the overview, made with the default profile.
  const overview = buildOverview(trace, analyze(trace), h200);
  assert.equal(html, onePageString(trace, `big ${HOSTILE}`, nonce, overview));
});

test('an overview goes into the data block after the trace, and its strings cannot close the block', () => {
  const { trace } = hostileTrace();
  const overview: Overview = {
    window: { detectedBy: 'none', labels: [], leftOut: [], beginNs: 0, endNs: 4000, text: `no steps ${HOSTILE}` },
    iterations: [],
    lines: [
      {
        where: { context: `aten::item ${HOSTILE}` },
        blockedNs: 4000,
        share: 1,
        waits: 1,
        longest: 0,
        releasedByText: 'unknown (the trace does not say)',
      },
    ],
    findings: [],
    profile: 'h200',
  };
  const chunks = [...pageDataChunks(trace, 't', b64, overview)];
  assert.equal(
    chunks.join(''),
    JSON.stringify({ title: 't', trace: packTrace(trace, b64), overview }).replace(/</g, '\\u003c'),
  );
  const page = [...timelineHtmlChunks(trace, 't', { nonce: 'n', overview })].join('');
  assert.equal(page.match(/<\/script>/g)?.length, 2, 'no string of the overview closes a script element');
});
