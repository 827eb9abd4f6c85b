// "Simulate this fix" and "Open as Scenario" (docs/whatif.md, "In VS Code"). A finding's fix is
// simulated in the worker; the replayed trace and the fixed one open as one timeline on one time
// axis, each lane beside its twin and the saved time marked, the title saying what the fix saves
// (or, for a race, costs). "Open as Scenario" writes
// the trace's scenario beside it, so the scenario editor (checks while typing, timeline on save)
// takes over. Neither needs workspace trust: nothing runs but the simulator.
import * as vscode from 'vscode';
import type { Trace } from '../core/trace/model';
import { fixId, fixTitle, rankedFixItems, scenarioFileName, sharedRange, simulatesFix } from '../core/whatif/fix-view';
import { freeName } from './logic/examples';
import { UserFacingError, type Runs } from './runs';
import type { SourceLines } from './sourceLines';
import { type Shown, TimelinePanel, timelineOptions } from './timelinePanel';
import type { TraceEditorProvider } from './traceEditor';
import { OPEN_AS_SCENARIO, SIMULATE_FIX } from './whatifIds';

/** Where a what-if timeline is: the panel that replaced a blank one takes its place. */
interface Slot {
  view?: TimelinePanel;
}

/** Not restored after a reload (no serializer): a what-if is cheap to ask again. */
const WHATIF_VIEW_TYPE = 'syncscope.whatif';

interface Deps {
  context: vscode.ExtensionContext;
  runs: Runs;
  editors: TraceEditorProvider;
  sourceLines: SourceLines;
  log: vscode.LogOutputChannel;
  reportError: (e: unknown, what: string) => void;
}

/** A trace to work on: what it is, its file's name, and the folder a scenario of it is saved in. */
interface Target {
  trace: Trace;
  name: string;
  folder: vscode.Uri;
}

const baseName = (u: vscode.Uri): string => u.path.slice(u.path.lastIndexOf('/') + 1);

// Kept whole: the two commands, their panels and the quick fix share the open panels and the error guard.
export function registerWhatIf(d: Deps): vscode.Disposable[] {
  const panels: vscode.WebviewPanel[] = [];
  const guard =
    (what: string, f: (...args: unknown[]) => Promise<void>) =>
    async (...args: unknown[]): Promise<void> => {
      try {
        await f(...args);
      } catch (e) {
        if (e instanceof vscode.CancellationError) return;
        d.reportError(e, what);
      }
    };

  /** The trace a command names (its URI), else the active trace editor's. */
  async function target(arg: unknown): Promise<Target | undefined> {
    let uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.parse(arg) : undefined;
    if (!uri) {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      if (input instanceof vscode.TabInputCustom) uri = input.uri;
    }
    if (!uri) {
      void vscode.window.showInformationMessage(
        'Open a trace first, then simulate its fixes or open it as a scenario.',
      );
      return undefined;
    }
    const folder = vscode.Uri.joinPath(uri, '..');
    const trace = d.editors.shown.get(uri.toString())?.trace ?? d.sourceLines.traceOf(uri);
    if (trace) return { trace, name: baseName(uri), folder };
    const loaded = await d.runs.traceFile(uri);
    return { trace: loaded.trace, name: baseName(uri), folder };
  }

  /** The findings whose fix the simulator runs, largest predicted saving first (their ids keep the analysis order). */
  async function pickFinding(t: Target): Promise<number | undefined> {
    if (!t.trace.findings.some(simulatesFix)) {
      void vscode.window.showInformationMessage(`${t.name} has no finding with a fix the simulator can run.`);
      return undefined;
    }
    const savings = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Simulating the fixes of ${t.name}` },
      () => d.runs.fixSavings(t.trace, t.name),
    );
    const items = rankedFixItems(t.trace.findings, savings).map((it) => ({
      label: it.label,
      description: it.description,
      detail: it.detail,
      index: it.index,
    }));
    return (
      await vscode.window.showQuickPick(items, {
        placeHolder: 'Simulate which fix? (largest predicted saving first)',
        matchOnDetail: true,
      })
    )?.index;
  }

  async function simulateFix(t: Target, finding: number): Promise<void> {
    const id = fixId(finding);
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Simulating ${id} of ${t.name}` },
      () => d.runs.whatIf(t.trace, finding, t.name),
    );
    d.log.info(`what if ${id} ${r.kind} of ${t.name}: ${r.edit}`);
    if (!r.applied || !r.both) {
      void vscode.window.showInformationMessage(`${id} ${r.kind}: ${r.edit}`);
      return;
    }
    const { scenario } = r;
    const shown: Shown = {
      trace: r.both,
      title: fixTitle(r),
      origin: 'simulator',
      offers: ['openScenario'],
      range: sharedRange(r.both),
    };
    // "Open as Scenario" opens the fixed scenario; the trace's own opens from the trace's timeline.
    const openFixed = () =>
      openScenario(t, scenario === undefined ? undefined : { text: scenario, name: scenarioFileName(t.name, id) });
    open({}, shown, openFixed, () => undefined);
    d.log.info(fixTitle(r));
  }

  /**
   * A timeline panel of a simulated trace, beside the active editor, held in `slot`. A webview may
   * never load (see logic/blankWatch.ts): a blank one is replaced by a new panel in its place, which
   * takes over the slot.
   */
  function open(
    slot: Slot,
    shown: Shown,
    openAs: () => Promise<void>,
    viewed: (range: [number, number]) => void,
    column: vscode.ViewColumn = vscode.ViewColumn.Beside,
    attempt = 0,
  ): void {
    const panel = vscode.window.createWebviewPanel(
      WHATIF_VIEW_TYPE,
      shown.title,
      { viewColumn: column, preserveFocus: attempt > 0 },
      { ...timelineOptions, enableFindWidget: false },
    );
    panel.iconPath = vscode.Uri.joinPath(d.context.extensionUri, 'media', 'timeline.svg');
    const view = new TimelinePanel(
      panel,
      d.context.extensionUri,
      {
        openScenario: () => void guard('Open as Scenario', openAs)(),
        viewed,
        reopen: () => {
          d.log.warn(`"${shown.title}" stayed blank; opening it in a new panel`);
          open(slot, shown, openAs, viewed, panel.viewColumn ?? vscode.ViewColumn.Active, attempt + 1);
          view.handOver(slot.view!);
          panel.dispose();
        },
        log: d.log,
      },
      attempt,
    );
    view.show(shown);
    slot.view = view;
    panels.push(panel);
    panel.onDidDispose(() => {
      view.dispose();
      panels.splice(panels.indexOf(panel), 1);
    });
  }

  /** Writes the scenario beside the trace under a name not yet taken, opens it and simulates it beside. */
  async function openScenario(t: Target, given?: { text: string; name: string }): Promise<void> {
    const text =
      given?.text ??
      (await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Writing ${t.name} as a scenario` },
        () => d.runs.scenarioText(t.trace, t.name),
      ));
    const wanted = given?.name ?? scenarioFileName(t.name);
    const doc = await saveBeside(scenarioFolder(t.folder), wanted, text);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Active, preview: false });
    d.log.info(`opened ${t.name} as the scenario ${baseName(doc.uri)}`);
    // The scenario path takes over: its timeline beside, re-simulated on each save.
    if (!doc.isUntitled) await vscode.commands.executeCommand('syncscope.simulate', doc.uri);
  }

  /**
   * The trace's folder; a profile kept in the extension's storage (outside every workspace folder)
   * is not where the user looks, so its scenario goes to the first workspace folder.
   */
  function scenarioFolder(traceFolder: vscode.Uri): vscode.Uri {
    const first = vscode.workspace.workspaceFolders?.[0]?.uri;
    const storage = [d.context.storageUri, d.context.globalStorageUri].filter((u): u is vscode.Uri => !!u);
    const hidden = storage.some((u) => traceFolder.fsPath.startsWith(u.fsPath));
    return hidden && first ? first : traceFolder;
  }

  /** A new file beside the trace (never over an existing one); where that folder cannot be written, an untitled document of that name. */
  async function saveBeside(folder: vscode.Uri, wanted: string, text: string): Promise<vscode.TextDocument> {
    let taken = new Set<string>();
    try {
      taken = new Set((await vscode.workspace.fs.readDirectory(folder)).map(([n]) => n));
    } catch {
      /* an unreadable folder: the write below says whether it can be written */
    }
    const file = vscode.Uri.joinPath(folder, freeName(wanted, taken));
    try {
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(text));
      return await vscode.workspace.openTextDocument(file);
    } catch (e) {
      d.log.warn(`cannot write ${file.toString(true)} (${(e as Error).message}); opening it unsaved`);
      const doc = await vscode.workspace.openTextDocument(file.with({ scheme: 'untitled' }));
      const edit = new vscode.WorkspaceEdit();
      edit.insert(doc.uri, new vscode.Position(0, 0), text);
      await vscode.workspace.applyEdit(edit);
      return doc;
    }
  }

  const fixActions: vscode.CodeActionProvider = {
    provideCodeActions(doc, _range, context) {
      const actions: vscode.CodeAction[] = [];
      for (const diagnostic of context.diagnostics) {
        if (diagnostic.source !== 'syncscope') continue;
        for (const f of d.sourceLines.findingsAt(doc.uri, diagnostic.range.start.line)) {
          if (!simulatesFix(f.finding) || diagnostic.code !== f.finding.rule) continue;
          const action = new vscode.CodeAction(
            `Simulate this fix (${fixId(f.index)} ${f.finding.kind})`,
            vscode.CodeActionKind.QuickFix,
          );
          action.diagnostics = [diagnostic];
          action.command = { title: action.title, command: SIMULATE_FIX, arguments: [f.trace.toString(), f.index] };
          actions.push(action);
        }
      }
      return actions;
    },
  };

  return [
    vscode.commands.registerCommand(
      SIMULATE_FIX,
      guard('Simulate this fix', async (arg, finding) => {
        const t = await target(arg);
        if (!t) return;
        const index = typeof finding === 'number' ? finding : await pickFinding(t);
        if (index === undefined) return;
        if (!Number.isInteger(index) || index < 0 || index >= t.trace.findings.length)
          throw new UserFacingError(`${t.name}: no finding ${fixId(index)}; it has ${t.trace.findings.length}`);
        await simulateFix(t, index);
      }),
    ),
    vscode.commands.registerCommand(
      OPEN_AS_SCENARIO,
      guard('Open as Scenario', async (arg) => {
        const t = await target(arg);
        if (t) await openScenario(t);
      }),
    ),
    vscode.languages.registerCodeActionsProvider({ language: 'python', scheme: 'file' }, fixActions, {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
    }),
    { dispose: () => [...panels].forEach((p) => p.dispose()) },
  ];
}
