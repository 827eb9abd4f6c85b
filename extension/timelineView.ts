// Connects one webview (a panel or a custom editor) to the timeline bundle through core/protocol:
// the trace goes out once the page says it is ready, source links come back.
import * as vscode from 'vscode';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FromWebview, ToWebview } from '../core/protocol';
import type { Trace } from '../core/trace/model';
import { makeNonce, timelineHtml } from './logic/webviewHtml';

export interface Shown {
  trace: Trace;
  title: string;
  origin?: string;
}

/** The page loads nothing from disk: the bundle is inlined (see logic/webviewHtml.ts). */
export const timelineOptions: vscode.WebviewOptions = { enableScripts: true, localResourceRoots: [] };

let bundle: { dir: string; script: string; styles: string[] } | undefined;

/** dist/webview.js and its stylesheet, read on the first timeline of the session and kept. */
function webviewBundle(extensionPath: string): { script: string; styles: string[] } {
  const dir = join(extensionPath, 'dist');
  if (bundle?.dir !== dir) {
    const css = join(dir, 'webview.css');
    bundle = { dir, script: readFileSync(join(dir, 'webview.js'), 'utf8'), styles: existsSync(css) ? [readFileSync(css, 'utf8')] : [] };
  }
  return bundle;
}

export class TimelineView implements vscode.Disposable {
  private shown?: Shown;
  private failed?: string;
  private ready = false;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly webview: vscode.Webview,
    extensionUri: vscode.Uri,
    title: string,
    private readonly handlers: {
      revealSource?: (line: number, column: number) => void;
      selected?: (call?: number, op?: number) => void;
      log: vscode.LogOutputChannel;
    },
  ) {
    webview.options = timelineOptions;
    webview.html = timelineHtml({ cspSource: webview.cspSource, nonce: makeNonce((n) => randomBytes(n)), ...webviewBundle(extensionUri.fsPath), title });
    this.subscription = webview.onDidReceiveMessage((m: FromWebview) => this.receive(m));
  }

  show(shown: Shown): void {
    this.shown = shown;
    this.failed = undefined;
    if (this.ready) this.post({ type: 'trace', trace: shown.trace, title: shown.title, origin: shown.origin });
  }

  status(text: string, busy: boolean): void {
    if (this.ready) this.post({ type: 'status', text, busy });
  }

  error(message: string): void {
    this.failed = message;
    if (this.ready) this.post({ type: 'error', message });
  }

  get trace(): Trace | undefined {
    return this.shown?.trace;
  }

  private post(m: ToWebview): void {
    void this.webview.postMessage(m);
  }

  private receive(m: FromWebview): void {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        // A webview without retained context reloads whenever it is shown again: send it all again.
        if (this.shown) this.show(this.shown);
        if (this.failed) this.error(this.failed);
        break;
      case 'revealSource':
        this.handlers.revealSource?.(m.line, m.column);
        break;
      case 'selected':
        this.handlers.selected?.(m.call, m.op);
        break;
      case 'log':
        // The level comes from the webview: only these three name a logging method.
        this.handlers.log[m.level === 'warn' || m.level === 'error' ? m.level : 'info'](`[timeline] ${m.message}`);
        break;
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
