// The standalone timeline: one self-contained HTML file with the webview bundle inlined and the
// trace embedded as base64 columns, written as a stream of chunks. A strict Content-Security-Policy
// lets only our own nonce'd script and style run, and nothing is loaded from the network.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Overview } from '../core/overview/types';
import { pageDataChunks } from '../core/page-data';
import type { Trace } from '../core/trace/model';
import { timelineCsp, timelinePageChunks } from '../core/page';

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

export interface PageOptions {
  /** What to fix first: the page opens on it. */
  overview?: Overview;
  /** The CSP nonce; fresh random bytes unless a test fixes it. */
  nonce?: string;
}

/** The standalone page in chunks, the trace's columns streamed: no chunk holds the whole trace. */
export function timelineHtmlChunks(trace: Trace, title: string, opts: PageOptions = {}): Iterable<string> {
  const nonce = opts.nonce ?? randomBytes(18).toString('base64');
  const dir = bundleDir();
  const js = readFileSync(join(dir, 'webview.js'), 'utf8');
  const css = existsSync(join(dir, 'webview.css')) ? readFileSync(join(dir, 'webview.css'), 'utf8') : '';
  const toBase64 = (bytes: Uint8Array) =>
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return timelinePageChunks({
    csp: timelineCsp(nonce),
    nonce,
    title: `${title} · Syncscope`,
    script: js,
    styles: css ? [css] : [],
    data: pageDataChunks(trace, title, toBase64, opts.overview),
  });
}

/** The same page as one string, for tests and small traces. */
export const writeTimelineHtml = (trace: Trace, title: string, opts: PageOptions = {}): string =>
  [...timelineHtmlChunks(trace, title, opts)].join('');
