// Connects one webview (a panel or a custom editor) to the timeline bundle through core/protocol:
// the trace goes out once the page says it is ready, source links come back.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { FromWebview, ToWebview } from '../core/protocol';
import type { Trace } from '../core/trace/model';
import { makeNonce, timelineHtml } from './logic/webviewHtml';

export interface Shown {
  trace: Trace;
  title: string;
  origin?: string;
}

export function timelineOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
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
    webview.options = timelineOptions(extensionUri);
    const asset = (...p: string[]) => vscode.Uri.joinPath(extensionUri, ...p);
    const styles = ['dist/webview.css', 'media/timeline.css'].filter((p) => existsSync(asset(p).fsPath));
    webview.html = timelineHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce((n) => randomBytes(n)),
      scriptUri: webview.asWebviewUri(asset('dist/webview.js')).toString(),
      styleUris: styles.map((p) => webview.asWebviewUri(asset(p)).toString()),
      title,
    });
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
        this.handlers.log[m.level === 'warn' ? 'warn' : m.level](`[timeline] ${m.message}`);
        break;
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
