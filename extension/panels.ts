// Timeline panels: one per (source kind, file). A scenario's panel re-runs when the file is saved,
// and every panel comes back after a window reload (WebviewPanelSerializer).
import * as vscode from 'vscode';
import { isPanelSource, PanelSource, PanelSources } from './logic/restore';
import { Runs, RunResult, titleFor, UserFacingError } from './runs';
import { TimelinePanel, timelineOptions } from './timelinePanel';

export const TIMELINE_VIEW_TYPE = 'syncscope.timeline';

interface Open {
  panel: vscode.WebviewPanel;
  view: TimelinePanel;
  source: PanelSource;
  /** The panel that took this one's place when its webview stayed blank (see logic/blankWatch.ts). */
  replacedBy?: Open;
}

/** The entry showing what `entry` showed: itself, or the panel that replaced it (a closed panel's view takes messages harmlessly). */
function current(entry: Open): Open {
  let e = entry;
  while (e.replacedBy) e = e.replacedBy;
  return e;
}

export class TimelinePanels implements vscode.Disposable, vscode.WebviewPanelSerializer {
  private readonly open = new Map<string, Open>();
  private readonly sources: PanelSources;
  private active?: Open;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly runs: Runs,
    private readonly log: vscode.LogOutputChannel,
    private readonly reportError: (e: unknown, what: string) => void,
  ) {
    this.sources = new PanelSources(context.workspaceState);
  }

  /** The trace of the panel the user looked at last. */
  get activeTrace(): { trace: import('../core/trace/model').Trace; title: string } | undefined {
    const a = this.active;
    return a?.view.trace ? { trace: a.view.trace, title: a.panel.title } : undefined;
  }

  /** Shows a computed result, opening or revealing the panel for its source. */
  show(source: PanelSource, result: RunResult, column = vscode.ViewColumn.Beside): vscode.WebviewPanel {
    let entry = this.open.get(keyOf(source));
    if (!entry) {
      entry = this.attach(createPanel(titleFor(source), column, false), source);
    } else {
      entry.panel.reveal(undefined, true);
    }
    entry.view.show({ trace: result.trace, title: result.title, origin: result.origin });
    return entry.panel;
  }

  /** Called after a reload with the webview's last state; we rebuild the trace from its source. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const fromState = (state as { source?: unknown } | undefined)?.source;
    const source = isPanelSource(fromState) ? fromState : this.sources.lookup(panel.title);
    if (!source) {
      this.log.warn(`cannot restore timeline "${panel.title}": its source is unknown`);
      panel.dispose();
      return;
    }
    const entry = this.attach(panel, source);
    const title = panel.title;
    // A restored GPU panel is simulated: re-running GPU work on every window reload would surprise.
    const rerun: PanelSource = source.kind === 'gpu' ? { kind: 'simulate', uri: source.uri } : source;
    // Nothing cancels a restore, but compute() wants a token.
    const cancel = new vscode.CancellationTokenSource();
    try {
      const result = await this.runs.compute(rerun, cancel.token);
      current(entry).view.show({ trace: result.trace, title: result.title, origin: result.origin });
    } catch (e) {
      current(entry).view.error((e as Error).message);
      this.log.warn(`restoring "${title}": ${(e as Error).message}`);
    } finally {
      cancel.dispose();
    }
  }

  /** Re-simulates the open simulator panel of a saved scenario. */
  async refresh(uri: vscode.Uri): Promise<void> {
    const entry = this.open.get(keyOf({ kind: 'simulate', uri: uri.toString() }));
    if (!entry) return;
    entry.view.status('Simulating…', true);
    try {
      const result = await this.runs.simulate(uri);
      current(entry).view.show({ trace: result.trace, title: result.title, origin: result.origin });
    } catch (e) {
      current(entry).view.error((e as Error).message);
      if (!(e instanceof UserFacingError)) this.reportError(e, 'Simulation');
    }
  }

  private attach(panel: vscode.WebviewPanel, source: PanelSource, attempt = 0): Open {
    const key = keyOf(source);
    const view = new TimelinePanel(
      panel,
      this.context.extensionUri,
      {
        revealSource: (line, column) => {
          revealSource(vscode.Uri.parse(source.uri), line, column).catch((e: unknown) =>
            this.log.warn(`cannot show ${source.uri}: ${(e as Error).message}`),
          );
        },
        reopen: () => {
          const fresh = this.attach(
            createPanel(panel.title, panel.viewColumn ?? vscode.ViewColumn.Active, true),
            source,
            attempt + 1,
          );
          entry.replacedBy = fresh;
          view.handOver(fresh.view);
          panel.dispose();
        },
        log: this.log,
      },
      attempt,
    );
    const entry: Open = { panel, view, source };
    this.open.set(key, entry);
    void this.sources.remember(panel.title, source);
    panel.iconPath = vscode.Uri.joinPath(this.context.extensionUri, 'media', 'timeline.svg');
    this.active = entry;
    this.setActiveContext(true);
    panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) this.active = entry;
      this.setActiveContext(e.webviewPanel.active);
    });
    panel.onDidDispose(() => {
      view.dispose();
      if (this.open.get(key) === entry) this.open.delete(key);
      if (this.active === entry) this.active = undefined;
      this.setActiveContext(false);
    });
    return entry;
  }

  private setActiveContext(active: boolean): void {
    void vscode.commands.executeCommand('setContext', 'syncscope.timelineActive', active);
  }

  dispose(): void {
    for (const e of this.open.values()) e.panel.dispose();
  }
}

const keyOf = (source: PanelSource): string => `${source.kind} ${source.uri}`;

function createPanel(title: string, column: vscode.ViewColumn, preserveFocus: boolean): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(
    TIMELINE_VIEW_TYPE,
    title,
    { viewColumn: column, preserveFocus },
    { ...timelineOptions, enableFindWidget: false },
  );
}

/** Opens the scenario beside nothing new: in the column it already has, or the first one. */
export async function revealSource(uri: vscode.Uri, line: number, column: number): Promise<void> {
  const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
  const doc = visible?.document ?? (await vscode.workspace.openTextDocument(uri));
  const pos = new vscode.Position(Math.max(line - 1, 0), Math.max(column - 1, 0));
  const editor = await vscode.window.showTextDocument(doc, {
    viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One,
    preserveFocus: false,
  });
  editor.selection = new vscode.Selection(pos, pos);
  editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
