// The standalone timeline: one self-contained HTML file with the webview bundle inlined and the
// trace embedded as base64 columns. A strict Content-Security-Policy lets only our own nonce'd
// script and style run, and nothing is loaded from the network.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packTrace } from '../core/protocol';
import type { Trace } from '../core/trace/model';
import { timelineCsp, timelinePageHtml } from '../core/page';

/** dist/ holds webview.js and webview.css, next to the CLI bundle or under the repository root. */
function bundleDir(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(join(dir, 'webview.js'))) return dir;
    if (existsSync(join(dir, 'dist', 'webview.js'))) return join(dir, 'dist');
    const up = dirname(dir);
    if (up === dir) throw new Error('the timeline bundle dist/webview.js is missing: run `npm run build` first');
    dir = up;
  }
}

export function writeTimelineHtml(trace: Trace, title: string): string {
  const dir = bundleDir();
  const js = readFileSync(join(dir, 'webview.js'), 'utf8');
  const css = existsSync(join(dir, 'webview.css')) ? readFileSync(join(dir, 'webview.css'), 'utf8') : '';
  const nonce = randomBytes(18).toString('base64');
  const packed = packTrace(trace, (bytes) =>
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  );
  // JSON with every "<" escaped cannot close the data block, whatever the trace's strings hold.
  const data = JSON.stringify({ title, origin: undefined, trace: packed }).replace(/</g, '\\u003c');
  return timelinePageHtml({
    csp: timelineCsp(nonce),
    nonce,
    title: `${title} · Syncscope`,
    script: js,
    styles: css ? [css] : [],
    data,
  });
}
