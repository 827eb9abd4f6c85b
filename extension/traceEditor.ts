// Read-only custom editors: saved Syncscope traces (`*.syncscope.json`, the default editor) and
// profiler traces ("Open With…"). Viewing needs no trust: nothing is executed.
import * as vscode from 'vscode';
import { dirname } from 'node:path';
import { HandedReads } from './logic/handedReads';
import { isContainedRelativePath } from './logic/paths';
import { revealSource } from './panels';
import type { Trace } from '../core/trace/model';
import type { RunResult, Runs } from './runs';
import { TimelinePanel } from './timelinePanel';
import { OPEN_AS_SCENARIO, SIMULATE_FIX } from './whatifIds';

export const TRACE_EDITOR = 'syncscope.trace';
export const PROFILER_EDITOR = 'syncscope.profilerTrace';

export class TraceEditorProvider implements vscode.CustomReadonlyEditorProvider {
  /** The trace each open editor shows, for Export and Compare. */
  readonly shown = new Map<string, TimelinePanel>();
  /** Fires with a trace editor's file when it shows a trace or closes. */
  private readonly changedEmitter = new vscode.EventEmitter<{
    uri: vscode.Uri;
    viewType: string;
    view?: TimelinePanel;
  }>();
  readonly changed = this.changedEmitter.event;
  /** Editors being opened again because their webview stayed blank: how many did before (logic/blankWatch.ts). */
  private readonly blankAttempts = new Map<string, number>();
  /** The trace files being read, which an editor opened again in place of a blank one takes over. */
  private readonly reads = new HandedReads<RunResult>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly runs: Runs,
    private readonly log: vscode.LogOutputChannel,
    /** The script a trace file is the profile of, if the editor profiled it (sourceLines.ts). */
    private readonly scriptOf: (trace: vscode.Uri) => string | undefined = () => undefined,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(
    document: vscode.CustomDocument,
    panel: vscode.WebviewPanel,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const key = document.uri.toString();
    const attempt = this.blankAttempts.get(key) ?? 0;
    this.blankAttempts.delete(key);
    // Closing the editor while a large trace is read stops the read; replacing a blank one does not.
    const reading = this.reads.open(key, () => {
      const source = new vscode.CancellationTokenSource();
      return { result: this.runs.traceFile(document.uri, undefined, source.token), stop: () => source.cancel() };
    });
    const view = new TimelinePanel(
      panel,
      this.extensionUri,
      {
        revealSource: (line, column) => {
          const scenario = view.trace?.meta.scenario?.file;
          if (!scenario) return;
          // The path comes from the trace file, which may be anyone's: only a file beside it or below it is opened.
          if (!isContainedRelativePath(scenario)) {
            this.log.warn(
              `not opening the trace's scenario "${scenario}": only a relative path without ".." is followed`,
            );
            return;
          }
          revealSource(vscode.Uri.joinPath(document.uri, '..', scenario), line, column).catch((e: unknown) =>
            this.log.warn(`cannot show ${scenario}: ${(e as Error).message}`),
          );
        },
        sourceRoots: () => {
          const script = this.scriptOf(document.uri);
          return script ? [dirname(script)] : [];
        },
        simulateFix: (finding) => void vscode.commands.executeCommand(SIMULATE_FIX, document.uri, finding),
        openScenario: () => void vscode.commands.executeCommand(OPEN_AS_SCENARIO, document.uri),
        reopen: () => {
          this.reopen(document.uri, panel.viewType, panel.viewColumn, attempt + 1).catch((e: unknown) => {
            this.blankAttempts.delete(key);
            this.reads.close(key, reading, true);
            this.log.error(`cannot open ${document.uri.path.split('/').pop()} again: ${(e as Error).message}`);
          });
        },
        log: this.log,
      },
      attempt,
    );
    this.shown.set(key, view);
    let closed = false;
    const resolveCancelled = token.onCancellationRequested(() => this.reads.close(key, reading));
    panel.onDidDispose(() => {
      closed = true;
      this.reads.close(key, reading);
      view.dispose();
      if (this.shown.get(key) !== view) return;
      this.shown.delete(key);
      this.changedEmitter.fire({ uri: document.uri, viewType: panel.viewType });
    });
    try {
      const result = await reading;
      // The editor that replaced this one shows the trace.
      if (closed) return;
      view.show({
        trace: result.trace,
        title: result.title,
        origin: result.origin,
        offers: ['simulateFix', 'openScenario'],
      });
      this.changedEmitter.fire({ uri: document.uri, viewType: panel.viewType, view });
      this.overviewOf(document.uri, panel.viewType, view, result.trace, result.title);
    } catch (e) {
      // A read handed over fails in the editor that took it, which says so.
      if (closed && !(e instanceof vscode.CancellationError)) return;
      if (e instanceof vscode.CancellationError) {
        this.log.info(`stopped reading ${document.uri.path.split('/').pop()}: its editor closed`);
        return;
      }
      const message = `Cannot open ${document.uri.path.split('/').pop()} as a trace: ${(e as Error).message}`;
      this.log.error(message);
      view.error(message);
    } finally {
      resolveCancelled.dispose();
    }
  }

  /**
   * The trace's overview, made in the worker after the timeline is shown (every finding's fix is
   * simulated for it): the findings list and the Problems panel then rank by predicted saving.
   */
  private overviewOf(uri: vscode.Uri, viewType: string, view: TimelinePanel, trace: Trace, title: string): void {
    this.runs.overview(trace, title).then(
      (overview) => {
        if (this.shown.get(uri.toString()) !== view || view.trace !== trace) return;
        view.showOverview(trace, overview);
        this.changedEmitter.fire({ uri, viewType, view });
      },
      (e: unknown) => this.log.warn(`no overview of ${title}: ${(e as Error).message}`),
    );
  }

  /**
   * A custom editor cannot be given a new webview: its tab is closed and the file opened again with
   * the same editor. A group holds one tab per file and editor, so those and the column find it.
   */
  private async reopen(
    uri: vscode.Uri,
    viewType: string,
    column: vscode.ViewColumn | undefined,
    attempt: number,
  ): Promise<void> {
    const tab = vscode.window.tabGroups.all
      .filter((g) => column === undefined || g.viewColumn === column)
      .flatMap((g) => g.tabs)
      .find(
        (t) =>
          t.input instanceof vscode.TabInputCustom &&
          t.input.viewType === viewType &&
          t.input.uri.toString() === uri.toString(),
      );
    if (!tab) throw new Error('its tab is gone');
    this.blankAttempts.set(uri.toString(), attempt);
    this.reads.handOver(uri.toString());
    await vscode.window.tabGroups.close(tab, true);
    await vscode.commands.executeCommand('vscode.openWith', uri, viewType, {
      viewColumn: tab.group.viewColumn,
      preserveFocus: true,
    });
  }
}
