// The timeline webview's page. Its CSP allows only our own script and styles (by nonce), so a trace
// that carries hostile strings cannot run script in the webview.
//
// The bundle and its styles are inlined rather than loaded from the extension folder: a webview's
// resources are served by the webview's service worker, and when a window reload restores several
// webviews at once that worker can come up after the page asked for them. Those requests then fail
// (the panel stays blank, no script runs, nothing tells the host). An inlined page needs no
// resource, so a restored panel always boots and says `ready`.

import { timelineCsp, timelinePageHtml } from '../../core/page';

export interface TimelinePage {
  /** webview.cspSource */
  cspSource: string;
  nonce: string;
  /** The webview bundle's source (dist/webview.js). */
  script: string;
  /** Stylesheets' text (dist/webview.css). */
  styles: string[];
  title: string;
}

export function makeNonce(random: (n: number) => Uint8Array): string {
  return Buffer.from(random(18))
    .toString('base64')
    .replace(/[+/=]/g, (c) => ({ '+': '-', '/': '_', '=': '' })[c] ?? '');
}

export const contentSecurityPolicy = (cspSource: string, nonce: string): string => timelineCsp(nonce, cspSource);

export const timelineHtml = (p: TimelinePage): string =>
  timelinePageHtml({
    csp: contentSecurityPolicy(p.cspSource, p.nonce),
    nonce: p.nonce,
    title: p.title,
    script: p.script,
    styles: p.styles,
  });
