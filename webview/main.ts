// Entry of the webview bundle. Inside VS Code the extension posts the trace after `ready`; in a
// standalone page the trace is embedded in the page and handed over the same way.
import './timeline.css';
import type { Overview } from '../core/overview/types';
import type { FromWebview, PackedTrace, PostedToWebview, ToWebview } from '../core/protocol';
import { unpackTrace } from '../core/protocol';
import { TimelineApp } from './app';
import { connectHost, inVsCode } from './host';
import { orderedInbox } from './wire';

declare global {
  interface Window {
    /** The standalone page's handle, for scripted use (tests, benchmark). */
    syncscope?: { app: TimelineApp; posted: FromWebview[] };
  }
}

function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The trace embedded by the HTML export, if this page has one. */
function embedded(): ToWebview | null {
  const node = document.getElementById('syncscope-data');
  if (!node?.textContent) return null;
  const data = JSON.parse(node.textContent) as {
    title: string;
    origin?: string;
    trace: PackedTrace;
    overview?: Overview;
  };
  return {
    type: 'trace',
    title: data.title,
    origin: data.origin,
    trace: unpackTrace(data.trace, fromBase64),
    overview: data.overview,
  };
}

function standaloneTheme(): void {
  const asked = new URLSearchParams(location.search).get('theme');
  const body = document.body;
  if (body.classList.contains('theme-dark') || body.classList.contains('theme-light')) return;
  const dark = asked ? asked === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  body.classList.add(dark ? 'theme-dark' : 'theme-light');
}

function boot(): void {
  const root = document.getElementById('syncscope') ?? document.body.appendChild(document.createElement('div'));
  const posted: FromWebview[] = [];
  let app: TimelineApp | null = null;
  const host = connectHost((msg) => {
    posted.push(msg);
    if (msg.type !== 'ready') return;
    try {
      const m = embedded();
      if (m) app?.receive(m);
    } catch (e) {
      app?.receive({ type: 'error', message: `Cannot read the embedded trace: ${(e as Error).message}` });
    }
  });
  if (!inVsCode()) {
    document.body.classList.add('standalone');
    standaloneTheme();
  }
  app = new TimelineApp(root, host);
  const a = app;
  const standalone = !inVsCode();
  const take = orderedInbox(
    (m) => a.receive(m),
    (message) => host.postMessage({ type: 'log', level: 'info', message }),
  );
  window.addEventListener('message', (e: MessageEvent) => {
    // Inside VS Code the host's messages come from the enclosing frame. A standalone page has no
    // host but itself, and any page that frames or opens it could post to it.
    if (standalone && e.source !== window) return;
    const msg = e.data as PostedToWebview | ToWebview;
    if (msg && typeof msg === 'object' && typeof msg.type === 'string') take(msg);
  });
  if (!inVsCode()) window.syncscope = { app: a, posted };
  host.postMessage({ type: 'ready' });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
else boot();
