import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packTrace, unpackTrace } from '../../core/protocol';
import { traceToJson } from '../../core/trace/json';
import { writeTimelineHtml } from '../../cli/html-page';
import { findMatches } from '../../webview/search';
import { axisUnit, formatAt, tickFormatter } from '../../webview/format';
import { ensureWebviewBundle } from './browser';
import { SAMPLE, sampleTrace } from './sample';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const unb64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

test('a packed trace unpacks to the same trace, column for column', () => {
  const t = sampleTrace();
  const back = unpackTrace(JSON.parse(JSON.stringify(packTrace(t, b64))), unb64);
  assert.equal(traceToJson(back), traceToJson(t));
  assert.ok(back.ops.start instanceof Float64Array && back.calls.releasedBy instanceof Int32Array);
  assert.ok(Number.isNaN(back.calls.unblockNs[SAMPLE.launchP]), 'NaN survives');
});

test('the standalone page has a strict CSP, inlines the bundle and escapes trace strings', () => {
  ensureWebviewBundle();
  const t = sampleTrace('</script><script>alert(1)</script>');
  const html = writeTimelineHtml(t, 'a <title> & "quotes"');
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  assert.ok(nonce && nonce.length >= 16, csp);
  assert.match(csp, /^default-src 'none';/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
  assert.match(csp, /img-src data:/);
  // Every script is ours (nonce'd) or the inert data block; nothing loads from elsewhere.
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1].trim());
  assert.deepEqual(scripts, ['type="application/json" id="syncscope-data"', `nonce="${nonce}"`]);
  assert.doesNotMatch(html, /\bsrc=|<link|https?:\/\/(?!www\.w3\.org)/);
  assert.equal(html.match(/<\/script>/g)?.length, 2, 'the hostile kernel name cannot close a script element');
  assert.match(html, /<title>a &lt;title&gt; &amp; &quot;quotes&quot; · Syncscope<\/title>/);
});

test('search finds calls and ops by part of their name, in time order, ignoring case', () => {
  const t = sampleTrace();
  assert.deepEqual(findMatches(t, 'CONSUME'), [{ table: 'ops', id: SAMPLE.consume }]);
  assert.deepEqual(findMatches(t, 'eventquery'), [
    { table: 'calls', id: SAMPLE.queryNotReady },
    { table: 'calls', id: SAMPLE.queryReady },
  ]);
  assert.deepEqual(findMatches(t, 'no such name'), []);
  assert.deepEqual(findMatches(t, '  '), []);
});

test('axis ticks use one unit for the largest value, with decimals enough for the step', () => {
  assert.deepEqual(axisUnit(500), { scale: 1, unit: 'ns', decimals: 0 });
  assert.deepEqual(axisUnit(20_000), { scale: 1e3, unit: 'µs', decimals: 0 });
  assert.deepEqual(axisUnit(500_000), { scale: 1e3, unit: 'µs', decimals: 0 });
  assert.deepEqual(axisUnit(50_000, 284_900_000), { scale: 1e6, unit: 'ms', decimals: 2 });
  assert.equal(tickFormatter(50_000, 284_900_000)(284_550_000), '284.55 ms');
  assert.equal(tickFormatter(2_000_000_000)(4_000_000_000), '4 s');
  assert.equal(tickFormatter(250)(1500), '1500 ns');
  assert.equal(tickFormatter(200, 1400)(1400), '1.4 µs');
  assert.equal(tickFormatter(200_000, 1_400_000)(1_400_000), '1.4 ms');
  assert.equal(formatAt(417_939_123, 2_230), '417.939 ms');
});
