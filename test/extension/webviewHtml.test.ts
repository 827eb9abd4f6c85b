import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentSecurityPolicy, makeNonce, timelineHtml } from '../../extension/logic/webviewHtml';

const page = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  nonce: 'abc123',
  // A bundle whose strings hold the end tags that would cut a naive inlining short.
  script: 'return "</script><img src=x onerror=alert(1)>" + `</SCRIPT>`;',
  styles: ['body { color: red } /* </STYLE><img src=x onerror=alert(2)> */'],
  title: 'Simulated: <b>x</b>.scenario.json',
};

test('the CSP allows scripts only by nonce and nothing by default', () => {
  const csp = contentSecurityPolicy(page.cspSource, 'N1');
  const directives = Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k, v]),
  );
  assert.deepEqual(directives['default-src'], ["'none'"]);
  assert.deepEqual(directives['script-src'], ["'nonce-N1'"]);
  assert.deepEqual(directives['style-src'], [page.cspSource, "'nonce-N1'"]);
  assert.deepEqual(directives['img-src'], [page.cspSource, 'data:']);
  assert.ok(!csp.includes('unsafe'), csp);
});

test('the page inlines the bundle under the nonce and loads no script or stylesheet', () => {
  const html = timelineHtml(page);
  const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/gi)];
  assert.equal(scripts.length, 1, "one script element, not cut short by the bundle's strings");
  assert.equal(scripts[0][1], ' nonce="abc123"');
  // Escaped, it is the same program: `<\/` is `</` inside JS strings and templates.
  assert.notEqual(scripts[0][2], page.script);
  assert.equal(new Function(scripts[0][2])(), new Function(page.script)());
  const styles = [...html.matchAll(/<style([^>]*)>([\s\S]*?)<\/style>/gi)];
  assert.equal(styles.length, 1);
  assert.equal(styles[0][1], ' nonce="abc123"');
  assert.equal(styles[0][2], page.styles[0].replace('</STYLE', '<\\/STYLE'));
  assert.ok(!/\bsrc="|<link\b/.test(html.replace(scripts[0][0], '')), 'nothing is fetched');
  assert.ok(html.includes(`content="${contentSecurityPolicy(page.cspSource, 'abc123')}"`));
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
