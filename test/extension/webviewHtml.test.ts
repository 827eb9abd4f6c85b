import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentSecurityPolicy, makeNonce, timelineHtml } from '../../extension/logic/webviewHtml';

const page = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  nonce: 'abc123',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
  styleUris: ['https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.css'],
  title: 'Simulated: <b>x</b>.scenario.json',
};

test('the CSP allows scripts only by nonce and nothing by default', () => {
  const csp = contentSecurityPolicy(page.cspSource, 'N1');
  const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(directives['default-src'], ["'none'"]);
  assert.deepEqual(directives['script-src'], ["'nonce-N1'"]);
  assert.deepEqual(directives['style-src'], [page.cspSource, "'nonce-N1'"]);
  assert.deepEqual(directives['img-src'], [page.cspSource, 'data:']);
  assert.ok(!csp.includes('unsafe'), csp);
});

test('the page loads the bundle with the nonce and has no inline script', () => {
  const html = timelineHtml(page);
  const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 1);
  assert.match(scripts[0][1], /nonce="abc123"/);
  assert.match(scripts[0][1], /src="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/webview\.js"/);
  assert.equal(scripts[0][2].trim(), '');
  assert.ok(html.includes(`content="${contentSecurityPolicy(page.cspSource, 'abc123')}"`));
  assert.equal([...html.matchAll(/<link rel="stylesheet"/g)].length, 1);
});

test('the title is escaped, so a file name cannot inject markup', () => {
  const html = timelineHtml(page);
  assert.ok(html.includes('<title>Simulated: &lt;b&gt;x&lt;/b&gt;.scenario.json</title>'));
  assert.ok(!html.includes('<b>x</b>'));
});

test('nonces are URL-safe and differ for different bytes', () => {
  const a = makeNonce((n) => new Uint8Array(n).fill(251));
  const b = makeNonce((n) => new Uint8Array(n).fill(7));
  assert.match(a, /^[A-Za-z0-9_-]{24}$/);
  assert.notEqual(a, b);
});
