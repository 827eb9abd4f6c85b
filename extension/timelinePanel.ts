// Connects one webview (a panel or a custom editor) to the timeline bundle through core/protocol:
// the trace goes out once the page says it is ready, source links come back. A page that never
// says so is reported to the owner, which replaces the webview (logic/blankWatch.ts).
import * as vscode from 'vscode';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Overview } from '../core/overview/types';
import type { FromWebview, Offer, PostedToWebview, ToWebview } from '../core/protocol';
import type { Trace } from '../core/trace/model';
import { BlankWatch } from './logic/blankWatch';
import { makeNonce, timelineHtml } from './logic/webviewHtml';
import { openSource } from './sourceLink';
import { wireText, wireTrace } from '../node/wire-trace';

export interface Shown {
  trace: Trace;
  title: string;
  origin?: string;
  /** The buttons the page offers (the handlers below take them). */
  offers?: Offer[];
  /** The time range shown first. */
  range?: [number, number];
  /** What to fix first: the page opens on it (showOverview sends one made later). */
  overview?: Overview;
}

/** The page loads nothing from disk: the bundle is inlined (see logic/webviewHtml.ts). */
export const timelineOptions: vscode.WebviewOptions = { enableScripts: true, localResourceRoots: [] };

let bundle: { dir: string; script: string; styles: string[] } | undefined;

/** dist/webview.js and its stylesheet, read on the first timeline of the session and kept. */
function webviewBundle(extensionPath: string): { script: string; styles: string[] } {
  const dir = join(extensionPath, 'dist');
  if (bundle?.dir !== dir) {
    const css = join(dir, 'webview.css');
    bundle = {
      dir,
      script: readFileSync(join(dir, 'webview.js'), 'utf8'),
      styles: existsSync(css) ? [readFileSync(css, 'utf8')] : [],
    };
  }
  return bundle;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export class TimelinePanel implements vscode.Disposable {
  private shown?: Shown;
  private failed?: string;
  /** The call the editor asked to select, sent again whenever the page reloads, until the user selects another. */
  private wanted?: number;
  private ready = false;
  /** The range of the linked timeline this one follows, sent again whenever the page reloads. */
  private followed?: [number, number];
  private disposed = false;
  /** The last post: the next waits for it (post). */
  private posting: Promise<void> = Promise.resolve();
  private readonly title: string;
  private readonly webview: vscode.Webview;
  private readonly blank: BlankWatch;
  private readonly subscriptions: vscode.Disposable[];

  /** `attempt`: how many webviews before this one stayed blank for the same panel (see logic/blankWatch.ts). */
  constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly handlers: {
      revealSource?: (line: number, column: number) => void;
      selected?: (call?: number, op?: number) => void;
      simulateFix?: (finding: number) => void;
      openScenario?: () => void;
      /** Folders besides the workspace's whose files the page's source links may open: the profiled script's. */
      sourceRoots?: () => readonly string[];
      /** The page brought another time range into view. */
      viewed?: (range: [number, number]) => void;
      /** Replaces the webview that stayed blank with a new one (whose view is `attempt` + 1). */
      reopen: () => void;
      log: vscode.LogOutputChannel;
    },
    attempt = 0,
  ) {
    const { webview, title } = panel;
    this.webview = webview;
    this.title = title;
    webview.options = timelineOptions;
    webview.html = timelineHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce((n) => randomBytes(n)),
      ...webviewBundle(extensionUri.fsPath),
      title,
    });
    this.blank = new BlankWatch((retry) => {
      const stayed = `"${title}" stayed blank for ${this.blank.limitMs / 1000} s: its webview never loaded`;
      if (retry) {
        handlers.log.warn(`${stayed}; opening it in a new one`);
        handlers.reopen();
      } else {
        handlers.log.error(`${stayed}, ${this.blank.attempt + 1} times in a row; close it and open it again`);
      }
    }, attempt);
    this.blank.visible(panel.visible);
    this.subscriptions = [
      webview.onDidReceiveMessage((m: FromWebview) => this.receive(m)),
      panel.onDidChangeViewState((e) => this.blank.visible(e.webviewPanel.visible)),
    ];
  }

  /** Gives what this view shows (or the error it shows) to the view that replaces it. */
  handOver(to: TimelinePanel): void {
    if (this.shown) to.show(this.shown);
    if (this.failed) to.error(this.failed);
    if (this.followed) to.follow(this.followed);
  }

  show(shown: Shown): void {
    this.shown = shown;
    this.failed = undefined;
    if (!this.ready) return;
    this.post({
      type: 'trace',
      trace: shown.trace,
      title: shown.title,
      origin: shown.origin,
      // receive() opens every source link the page asks for.
      offers: [...(shown.offers ?? []), 'openSource'],
      range: shown.range,
      overview: shown.overview,
    });
    if (this.wanted !== undefined) this.post({ type: 'select', call: this.wanted, reveal: true });
    if (this.followed) this.post({ type: 'showRange', range: this.followed });
  }

  /**
   * Shows the overview of `trace`, made after it was shown (its predictions take longer than the
   * timeline), now and whenever the page reloads. Ignored unless `trace` is the one shown: another
   * may have replaced it while the overview was made.
   */
  showOverview(trace: Trace, overview: Overview): void {
    if (!this.shown || this.shown.trace !== trace) return;
    this.shown = { ...this.shown, overview };
    if (this.ready) this.post({ type: 'overview', overview });
  }

  /** The shown trace's overview, once made. */
  get overview(): Overview | undefined {
    return this.shown?.overview;
  }

  /** Shows the time range of a linked timeline, now and whenever the page reloads. */
  follow(range: [number, number]): void {
    this.followed = range;
    if (this.ready && this.shown) this.post({ type: 'showRange', range });
  }

  /**
   * Selects a call and scrolls the timeline to it. A hidden webview's page is gone and loads again
   * when shown, so the request is kept and sent with the trace each time the page is ready.
   */
  select(call: number): void {
    this.wanted = call;
    if (this.ready && this.shown) this.post({ type: 'select', call, reveal: true });
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

  /**
   * Posts in order: a trace is compressed first (node/wire-trace.ts), and what follows it (a
   * selection, a range, the overview) must not overtake it.
   */
  private post(m: ToWebview): void {
    this.posting = this.posting
      .then(async () => {
        if (m.type !== 'trace') {
          // A linked timeline may outlive this one's panel.
          if (!this.disposed) await this.webview.postMessage(m);
          return;
        }
        const started = performance.now();
        const trace = await wireTrace(m.trace);
        const packed = performance.now();
        if (this.disposed) return;
        const delivered = await this.webview.postMessage({ ...m, type: 'wireTrace', trace } satisfies PostedToWebview);
        // A hidden page is gone: it asks again (ready) when it is shown.
        if (!delivered) return this.handlers.log.info(`"${this.title}" was hidden: its trace goes when it shows again`);
        // How long a large trace takes to reach its page, and where: said once per send.
        this.handlers.log.info(
          `sent "${this.title}" to its timeline: ${wireText(m.trace, trace)}, compressed in ` +
            `${seconds(packed - started)}, delivered ${seconds(performance.now() - packed)} later`,
        );
      })
      .catch((e: unknown) =>
        this.handlers.log.error(`cannot send ${m.type} to "${this.title}": ${(e as Error).message}`),
      );
  }

  private receive(m: FromWebview): void {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.blank.ready();
        // A webview without retained context reloads whenever it is shown again: send it all again.
        if (this.shown) this.show(this.shown);
        if (this.failed) this.error(this.failed);
        break;
      case 'revealSource':
        this.handlers.revealSource?.(m.line, m.column);
        break;
      case 'openSource':
        // From the page: only a string and a finite line are taken.
        if (typeof m.file === 'string' && Number.isFinite(m.line))
          openSource(m.file, m.line, this.handlers.sourceRoots?.()).catch((e: unknown) =>
            this.handlers.log.warn(`could not open ${m.file}: ${e instanceof Error ? e.message : String(e)}`),
          );
        break;
      case 'selected':
        if (m.call !== this.wanted) this.wanted = undefined;
        this.handlers.selected?.(m.call, m.op);
        break;
      case 'simulateFix':
        // From the page: only an index of the shown trace's findings is taken.
        if (Number.isInteger(m.finding) && m.finding >= 0 && m.finding < (this.shown?.trace.findings.length ?? 0))
          this.handlers.simulateFix?.(m.finding);
        break;
      case 'openScenario':
        this.handlers.openScenario?.();
        break;
      case 'viewed':
        // From the page: only two finite times in order are taken.
        if (
          Array.isArray(m.range) &&
          Number.isFinite(m.range[0]) &&
          Number.isFinite(m.range[1]) &&
          m.range[0] < m.range[1]
        )
          this.handlers.viewed?.([m.range[0], m.range[1]]);
        break;
      case 'log':
        // The level comes from the webview: only these three name a logging method.
        this.handlers.log[m.level === 'warn' || m.level === 'error' ? m.level : 'info'](`[timeline] ${m.message}`);
        break;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.blank.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
