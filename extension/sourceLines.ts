// Python files with a profile or a capture: a CodeLens on each line where the host waited, the
// findings made there in the Problems panel, and a click that reveals the wait in the timeline;
// under it, a lens naming the op that released those waits, linked to the line that launched it.
// The traces come from the trace editors that show one, and from the last profile or capture of
// each script (kept across reloads). A lens says so when the file changed after the trace was
// recorded. Each line's heat is made here too, with the lines, and drawn by lineHeat.ts.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute } from 'node:path';
import * as vscode from 'vscode';
import {
  matchSiteFile,
  SiteLine,
  siteLines,
  siteLineText,
  SiteProblem,
  siteProblems,
} from '../core/analyze/site-lines';
import { savingText } from '../core/overview/rank';
import type { OverviewFinding } from '../core/overview/types';
import { lineHeats, type LineHeat } from '../core/analyze/line-heat';
import { iterationWindow } from '../core/overview/window';
import type { Finding, Trace } from '../core/trace/model';
import { SEVERITY } from './diagnostics';
import {
  isInsideAny,
  LaunchLine,
  launchesCoverLine,
  launchLensTitle,
  launchLensTooltip,
  launchLines,
} from './logic/launchLines';
import { findingMessage } from './logic/problems';
import type { Runs } from './runs';
import { showLine } from './sourceLink';
import type { TimelinePanel } from './timelinePanel';
import type { TraceEditorProvider } from './traceEditor';

export const PYTHON_SELECTOR: vscode.DocumentSelector = { language: 'python', scheme: 'file' };
export const REVEAL_WAIT = 'syncscope.revealWait';
export const OPEN_LAUNCH_LINE = 'syncscope.openLaunchLine';
const PROFILES_KEY = 'syncscope.profiles';

/** The last profile or capture of a script: its trace, and the hash of the script's text when it was recorded. */
export interface ProfileRecord {
  trace: string;
  viewType: string;
  sha256: string;
}

interface Loaded {
  uri: vscode.Uri;
  viewType: string;
  trace: Trace;
  lines: SiteLine[];
  /** Per line, where the ops that released its waits were launched. */
  launches: Map<SiteLine, LaunchLine[]>;
  problems: SiteProblem[];
  /** The lines that blocked the host, with their heat (lineHeat.ts draws it). */
  heats: LineHeat[];
  /** Each site file -> the workspace file it names (absent: none). */
  files: Map<string, string | undefined>;
}

export const textHash = (text: string): string => createHash('sha256').update(text).digest('hex');

const profilesIn = (state: vscode.Memento): Record<string, ProfileRecord> =>
  state.get<Record<string, ProfileRecord>>(PROFILES_KEY) ?? {};

/** The script whose last profile is the trace file `trace`, if the editor profiled it. */
export function profiledScript(state: vscode.Memento, trace: string): string | undefined {
  const profiles = profilesIn(state);
  return Object.keys(profiles).find((script) => profiles[script].trace === trace);
}

export class SourceLines implements vscode.CodeLensProvider, vscode.Disposable {
  /** By trace URI, oldest first: the newest trace naming a file is the one shown for it. */
  private readonly loaded = new Map<string, Loaded>();
  private readonly loading = new Set<string>();
  /** The files a launch lens links to: the only ones its command opens. */
  private readonly linked = new Set<string>();
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('syncscope-profile');
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changedEmitter.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly state: vscode.Memento,
    private readonly runs: Runs,
    private readonly editors: TraceEditorProvider,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [
      editors.changed((e) =>
        e.view?.trace ? void this.add(e.uri, e.viewType, e.view.trace, e.view.overview?.findings) : undefined,
      ),
      vscode.workspace.onDidOpenTextDocument((d) => this.loadProfileOf(d)),
      vscode.workspace.onDidChangeTextDocument((e) => e.document.languageId === 'python' && this.changedEmitter.fire()),
      vscode.workspace.onDidSaveTextDocument((d) => d.languageId === 'python' && this.changedEmitter.fire()),
      vscode.commands.registerCommand(REVEAL_WAIT, (uri: string, viewType: string, call: number) =>
        this.reveal(vscode.Uri.parse(uri), viewType, call),
      ),
      vscode.commands.registerCommand(OPEN_LAUNCH_LINE, (file: unknown, line: unknown) => this.openLaunch(file, line)),
    ];
    for (const d of vscode.workspace.textDocuments) this.loadProfileOf(d);
  }

  private get profiles(): Record<string, ProfileRecord> {
    return profilesIn(this.state);
  }

  /** Remembers a script's new profile (replacing its last one) and shows it. */
  async recordProfile(script: string, record: ProfileRecord): Promise<void> {
    const before = this.profiles[script];
    await this.state.update(PROFILES_KEY, { ...this.profiles, [script]: record });
    if (!before || before.trace === record.trace) return;
    // The previous profile is replaced: its file (in the extension's storage) goes with it.
    this.remove(vscode.Uri.file(before.trace).toString());
    await rm(before.trace, { force: true }).catch(() => undefined);
  }

  /** The profile of a script opened in the editor, read once (in a worker) and kept. */
  private loadProfileOf(doc: vscode.TextDocument): void {
    if (doc.languageId !== 'python' || doc.uri.scheme !== 'file') return;
    const record = this.profiles[doc.uri.fsPath];
    if (!record || !existsSync(record.trace)) return;
    const uri = vscode.Uri.file(record.trace);
    const key = uri.toString();
    if (this.loaded.has(key) || this.loading.has(key)) return;
    this.loading.add(key);
    this.runs
      .traceFile(uri)
      .then((r) => this.add(uri, record.viewType, r.trace))
      .catch((e: unknown) =>
        this.log.warn(`cannot read the profile of ${basename(doc.uri.fsPath)}: ${(e as Error).message}`),
      )
      .finally(() => this.loading.delete(key));
  }

  /**
   * A trace to show on the lines it names; one that names none is not kept. `ranked`: its overview's
   * findings, whose predicted savings order and annotate its Problems entries.
   */
  async add(uri: vscode.Uri, viewType: string, trace: Trace, ranked?: readonly OverviewFinding[]): Promise<void> {
    if (!trace.sites.length) return;
    const lines = siteLines(trace);
    const launches = new Map(lines.map((l) => [l, launchLines(trace, l)]));
    const problems = siteProblems(trace, ranked);
    const heats = lineHeats(trace, lines, iterationWindow(trace));
    const files = new Map<string, string | undefined>();
    const launchFiles = [...launches.values()].flatMap((ls) => ls.map((l) => l.source.file));
    for (const f of new Set([...lines.map((l) => l.file), ...problems.map((p) => p.file), ...launchFiles]))
      files.set(f, await workspaceFileOf(f));
    const key = uri.toString();
    this.loaded.delete(key);
    this.loaded.set(key, { uri, viewType, trace, lines, launches, problems, heats, files });
    this.refresh();
  }

  private remove(key: string): void {
    if (this.loaded.delete(key)) this.refresh();
  }

  /** The newest trace naming each workspace file. */
  private owners(): Map<string, Loaded> {
    const out = new Map<string, Loaded>();
    for (const l of this.loaded.values()) for (const f of l.files.values()) if (f) out.set(f, l);
    return out;
  }

  private refresh(): void {
    this.diagnostics.clear();
    for (const [file, l] of this.owners()) {
      const entries = l.problems
        .filter((p) => l.files.get(p.file) === file)
        .map((p) => {
          const line = Math.max(p.line - 1, 0);
          const saving =
            p.predictedSavingNs === undefined ? '' : ` (F${p.index + 1}: ${savingText(p.predictedSavingNs)})`;
          const d = new vscode.Diagnostic(
            new vscode.Range(line, 0, line, 1000),
            findingMessage(p.finding) + saving,
            SEVERITY[p.severity],
          );
          d.source = 'syncscope';
          d.code = p.finding.rule;
          return d;
        });
      this.diagnostics.set(vscode.Uri.file(file), entries);
    }
    this.changedEmitter.fire();
  }

  /** The findings behind the Problems entries on a 0-based line of a file, each with its trace. */
  findingsAt(file: vscode.Uri, line: number): { trace: vscode.Uri; index: number; finding: Finding }[] {
    const l = this.owners().get(file.fsPath);
    if (!l) return [];
    return l.problems
      .filter((p) => l.files.get(p.file) === file.fsPath && Math.max(p.line - 1, 0) === line)
      .map((p) => ({ trace: l.uri, index: l.trace.findings.indexOf(p.finding), finding: p.finding }))
      .filter((f) => f.index >= 0);
  }

  /** The heat of a workspace file's lines, from the newest trace naming it. */
  heatsOf(file: string): LineHeat[] {
    const l = this.owners().get(file);
    return l ? l.heats.filter((h) => l.files.get(h.site.file) === file) : [];
  }

  /** The trace shown on a workspace file's lines: its file and the trace. */
  ownerOf(file: string): { uri: vscode.Uri; trace: Trace } | undefined {
    const l = this.owners().get(file);
    return l && { uri: l.uri, trace: l.trace };
  }

  /** A loaded profile's trace, by its URI. */
  traceOf(uri: vscode.Uri): Trace | undefined {
    return this.loaded.get(uri.toString())?.trace;
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const l = this.owners().get(doc.uri.fsPath);
    if (!l) return [];
    const stale = (await this.isStale(doc, l)) ? 'stale profile (the file changed since it was recorded): ' : '';
    const roots = this.linkRoots(doc, l);
    return l.lines
      .filter((s) => l.files.get(s.file) === doc.uri.fsPath && s.line >= 1 && s.line <= doc.lineCount)
      .flatMap((s) => {
        const range = doc.lineAt(s.line - 1).range;
        const launches = l.launches.get(s) ?? [];
        // "host blocked ...: deviceSync | released by <op>, launched at line 11": the releaser is
        // said once, by the launch lenses where they name every wait's.
        const wait = new vscode.CodeLens(range, {
          title: stale + siteLineText(s, !launchesCoverLine(s, launches)),
          tooltip: 'Show this wait in the timeline',
          command: REVEAL_WAIT,
          arguments: [l.uri.toString(), l.viewType, s.longest],
        });
        return [wait, ...launches.map((launch) => this.launchLens(range, doc, l, launch, roots))];
      });
  }

  /** "released by <op>, launched at line 20": a link to that line where its file is inside `roots`, plain text otherwise. */
  private launchLens(
    range: vscode.Range,
    doc: vscode.TextDocument,
    l: Loaded,
    launch: LaunchLine,
    roots: string[],
  ): vscode.CodeLens {
    const file = l.files.get(launch.source.file);
    const linked = file !== undefined && isInsideAny(file, roots);
    if (linked) this.linked.add(file);
    return new vscode.CodeLens(range, {
      title: launchLensTitle(launch, file === doc.uri.fsPath),
      tooltip: launchLensTooltip(launch, linked),
      command: linked ? OPEN_LAUNCH_LINE : '',
      arguments: linked ? [file, launch.source.line] : undefined,
    });
  }

  /** Where a launch lens may link: the workspace folders, the folder of the file shown, and that of each script recorded into this trace. */
  private linkRoots(doc: vscode.TextDocument, l: Loaded): string[] {
    const roots = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath);
    roots.push(dirname(doc.uri.fsPath));
    for (const [script, record] of Object.entries(this.profiles))
      if (record.trace === l.uri.fsPath) roots.push(dirname(script));
    return roots;
  }

  /** A launch lens's click: opens the line, for a file a lens linked to and nothing else (the command takes any arguments). */
  private async openLaunch(file: unknown, line: unknown): Promise<void> {
    if (typeof file !== 'string' || !this.linked.has(file) || typeof line !== 'number' || !Number.isInteger(line)) {
      this.log.warn(`not opening ${String(file)}: no launch lens links to it`);
      return;
    }
    await showLine(vscode.Uri.file(file), line, vscode.ViewColumn.Active);
  }

  /** Unsaved edits; else a text that is not the one profiled; else, for traces not made here, a file newer than the trace. */
  private async isStale(doc: vscode.TextDocument, l: Loaded): Promise<boolean> {
    if (doc.isDirty) return true;
    const record = this.profiles[doc.uri.fsPath];
    if (record?.trace === l.uri.fsPath) return textHash(doc.getText()) !== record.sha256;
    const recorded = Date.parse(l.trace.meta.createdAt ?? '');
    if (!Number.isFinite(recorded)) return false;
    try {
      return (await stat(doc.uri.fsPath)).mtimeMs > recorded;
    } catch {
      return false;
    }
  }

  /** Opens (or shows) the trace's timeline beside the code and selects the wait. */
  private async reveal(uri: vscode.Uri, viewType: string, call: number): Promise<void> {
    const key = uri.toString();
    const open = this.editors.shown.get(key);
    const shown = open
      ? Promise.resolve(open)
      : new Promise<TimelinePanel>((resolve) => {
          const sub = this.editors.changed((e) => {
            if (e.uri.toString() !== key || !e.view) return;
            sub.dispose();
            resolve(e.view);
          });
        });
    // An open timeline of this trace is brought forward where it is; otherwise one opens beside the code.
    const tab = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .find(
        (t) =>
          t.input instanceof vscode.TabInputCustom && t.input.viewType === viewType && t.input.uri.toString() === key,
      );
    const viewColumn = open && tab ? tab.group.viewColumn : vscode.ViewColumn.Beside;
    await vscode.commands.executeCommand('vscode.openWith', uri, viewType, { viewColumn });
    (await shown).select(call);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.diagnostics.dispose();
    this.changedEmitter.dispose();
  }
}

/** The workspace file a site's file names: the same path, else the one sharing the longest path tail. */
async function workspaceFileOf(file: string): Promise<string | undefined> {
  if (isAbsolute(file) && existsSync(file)) return file;
  const name = basename(file.replace(/\\/g, '/'));
  if (!name) return undefined;
  const glob = `**/${name.replace(/[[\]{}*?]/g, '?')}`;
  const found = await vscode.workspace.findFiles(glob, '**/{node_modules,site-packages,.git}/**', 200);
  return matchSiteFile(
    file,
    found.filter((u) => u.scheme === 'file').map((u) => u.fsPath),
  );
}
