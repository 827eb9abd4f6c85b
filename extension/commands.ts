// The Syncscope commands. Each is small: find its target, run through Runs with progress, show.
import * as vscode from 'vscode';
import { isScenarioPath, SCENARIO_GLOB } from '../core/scenario/path';
import type { Trace } from '../core/trace/model';
import { writeFileAtomic } from '../node/atomic-write';
import { captureCommand } from './captureCommand';
import { capturePythonCommand, profilePythonCommand } from './scriptCommand';
import type { SourceLines } from './sourceLines';
import { compareMarkdown, pairWaits } from './logic/compare';
import { exampleCopyText, exampleInfo, freeName, orderExamples } from './logic/examples';
import { chromeTraceName } from './logic/traceKind';
import type { Gpu } from './gpu';
import type { TimelinePanels } from './panels';
import { Runs, RunResult, UserFacingError } from './runs';
import type { BackendStatus } from './statusBar';
import { PROFILER_EDITOR, TRACE_EDITOR, TraceEditorProvider } from './traceEditor';

export interface Services {
  context: vscode.ExtensionContext;
  runs: Runs;
  panels: TimelinePanels;
  editors: TraceEditorProvider;
  gpu: Gpu;
  status: BackendStatus;
  log: vscode.LogOutputChannel;
  reportError: (e: unknown, what: string) => void;
  sourceLines: SourceLines;
}

const isScenarioUri = (u: vscode.Uri | undefined): u is vscode.Uri => !!u && isScenarioPath(u.path);
const baseName = (u: vscode.Uri): string => u.path.slice(u.path.lastIndexOf('/') + 1);

async function scenarioTarget(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri && isScenarioUri(arg)) return arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (isScenarioUri(active)) return active;
  const found = await vscode.workspace.findFiles(SCENARIO_GLOB, '**/node_modules/**', 200);
  if (!found.length) {
    void vscode.window
      .showInformationMessage('No *.scenario.json file is open or in the workspace.', 'New Scenario from Example…')
      .then((pick) => pick && vscode.commands.executeCommand('syncscope.newFromExample'));
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    found.map((u) => ({ label: baseName(u), description: vscode.workspace.asRelativePath(u), uri: u })),
    { placeHolder: 'Which scenario?' },
  );
  return pick?.uri;
}

/** Runs `work` under a cancellable progress notification; user-caused failures are said plainly. */
async function withRun<T>(
  s: Services,
  title: string,
  work: (
    token: vscode.CancellationToken,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
  ) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, token) => work(token, progress),
    );
  } catch (e) {
    if (e instanceof vscode.CancellationError || (e as { reason?: string }).reason === 'cancelled') {
      s.log.info(`${title}: cancelled`);
      return undefined;
    }
    s.reportError(e, title);
    return undefined;
  }
}

async function simulate(s: Services, arg: unknown): Promise<void> {
  const uri = await scenarioTarget(arg);
  if (!uri) return;
  const result = await withRun(s, `Simulating ${baseName(uri)}`, () => s.runs.simulate(uri));
  if (result) s.panels.show({ kind: 'simulate', uri: uri.toString() }, result);
}

async function runOnGpu(s: Services, arg: unknown): Promise<void> {
  const uri = await scenarioTarget(arg);
  if (!uri) return;
  const probe = await s.gpu.probe();
  s.status.setProbe(probe);
  if (!probe.ok) {
    // The simulator follows the same rules, so the user still gets a timeline.
    s.log.warn(`no usable GPU (${probe.reason}); simulating ${baseName(uri)} instead`);
    void vscode.window
      .showWarningMessage(`No usable GPU: ${probe.reason}. Showing the simulator's timeline instead.`, 'Show Log')
      .then((a) => a && s.log.show());
    return simulate(s, uri);
  }
  const result = await withRun(s, `Running ${baseName(uri)} on ${probe.name}`, (token, progress) =>
    s.runs.runOnGpu(uri, token, progress),
  );
  if (result) s.panels.show({ kind: 'gpu', uri: uri.toString() }, result);
}

/** The trace of the active timeline: a panel, or a trace file's custom editor. */
function activeTrace(s: Services): { trace: Trace; title: string } | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom) {
    const trace = s.editors.shown.get(input.uri.toString())?.trace;
    if (trace) return { trace, title: baseName(input.uri) };
  }
  return s.panels.activeTrace;
}

async function exportChrome(s: Services, arg: unknown): Promise<void> {
  let source = activeTrace(s);
  if (arg instanceof vscode.Uri) {
    const r = await withRun(s, `Reading ${baseName(arg)}`, (token, progress) => s.runs.traceFile(arg, progress, token));
    if (!r) return;
    source = { trace: r.trace, title: baseName(arg) };
  }
  if (!source) {
    void vscode.window.showInformationMessage('Open a timeline or a trace first, then export it.');
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = await vscode.window.showSaveDialog({
    defaultUri: folder && vscode.Uri.joinPath(folder, chromeTraceName(source.title.replace(/^(GPU|Simulated): /, ''))),
    filters: { 'Chrome / Perfetto trace': ['json'] },
    title: 'Export as Chrome/Perfetto Trace',
  });
  if (!target) return;
  try {
    // Made in a worker (a hostile trace costs the worker, not the editor); written atomically.
    await writeText(target, await s.runs.chromeJson(source.trace, source.title));
    s.log.info(`exported ${source.title} to ${target.fsPath}`);
    void vscode.window.showInformationMessage(
      `Exported ${baseName(target)}: open it in ui.perfetto.dev or chrome://tracing.`,
    );
  } catch (e) {
    s.reportError(e, 'Export');
  }
}

async function openTrace(s: Services, importing: boolean, arg: unknown): Promise<void> {
  let uri = arg instanceof vscode.Uri ? arg : undefined;
  if (!uri) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      filters: importing ? { 'PyTorch profiler trace': ['json', 'gz'] } : { Traces: ['json', 'gz'] },
      title: importing ? 'Import PyTorch Profiler Trace' : 'Open Trace',
    });
    uri = picked?.[0];
  }
  if (!uri) return;
  let editor = importing ? PROFILER_EDITOR : TRACE_EDITOR;
  if (!importing && !/\.syncscope\.json$/i.test(uri.path)) {
    // Only the head is read (and decompressed, for gzip).
    const format = await s.runs.sniff(uri);
    editor = format === 'syncscope' ? TRACE_EDITOR : PROFILER_EDITOR;
  }
  s.log.info(`opening ${uri.fsPath} with ${editor}`);
  await vscode.commands.executeCommand('vscode.openWith', uri, editor);
}

async function newFromExample(s: Services): Promise<void> {
  const dir = vscode.Uri.joinPath(s.context.extensionUri, 'examples');
  let entries: [string, vscode.FileType][] = [];
  try {
    entries = await vscode.workspace.fs.readDirectory(dir);
  } catch {
    /* an installation without examples offers none */
  }
  const files = entries.filter(([n]) => n.endsWith('.scenario.json')).map(([n]) => n);
  const infos = await Promise.all(
    files.map(async (f) =>
      exampleInfo(f, new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(dir, f)))),
    ),
  );
  if (!infos.length) {
    void vscode.window.showWarningMessage('This installation has no example scenarios.');
    return;
  }
  const pick = await vscode.window.showQuickPick(
    orderExamples(infos).map((e) => ({ label: e.name, detail: e.description, description: e.file, info: e })),
    { placeHolder: 'Start from which example?', matchOnDetail: true },
  );
  if (!pick) return;
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(dir, pick.info.file)));
  const body = exampleCopyText(text);
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  let target: vscode.Uri | undefined;
  if (folder) {
    const taken = new Set((await vscode.workspace.fs.readDirectory(folder)).map(([n]) => n));
    target = vscode.Uri.joinPath(folder, freeName(pick.info.file, taken));
  } else {
    target = await vscode.window.showSaveDialog({
      filters: { Scenario: ['scenario.json'] },
      title: 'Save the new scenario',
    });
  }
  if (!target) return;
  await writeText(target, body);
  await vscode.window.showTextDocument(target);
}

async function compare(s: Services): Promise<void> {
  const scenario = vscode.window.activeTextEditor?.document.uri;
  const probe = vscode.workspace.isTrusted ? await s.gpu.probe() : undefined;
  type Choice = vscode.QuickPickItem & { id: 'gpu' | 'traces' };
  const choices: Choice[] = [];
  if (isScenarioUri(scenario) && probe?.ok)
    choices.push({
      id: 'gpu',
      label: `GPU vs simulator: ${baseName(scenario)}`,
      detail: `Runs it on ${probe.name} and in the simulator.`,
    });
  choices.push({
    id: 'traces',
    label: 'Two traces side by side…',
    detail: 'Saved Syncscope traces or PyTorch profiler traces.',
  });
  const pick =
    choices.length === 1 ? choices[0] : await vscode.window.showQuickPick(choices, { placeHolder: 'Compare what?' });
  if (!pick) return;
  let a: RunResult | undefined;
  let b: RunResult | undefined;
  let sources: [import('./logic/restore').PanelSource, import('./logic/restore').PanelSource];
  if (pick.id === 'gpu' && isScenarioUri(scenario)) {
    const both = await withRun(
      s,
      `Comparing ${baseName(scenario)} on GPU and simulator`,
      async (token, progress) =>
        [await s.runs.runOnGpu(scenario, token, progress), await s.runs.simulate(scenario)] as const,
    );
    if (!both) return;
    [a, b] = both;
    sources = [
      { kind: 'gpu', uri: scenario.toString() },
      { kind: 'simulate', uri: scenario.toString() },
    ];
  } else {
    const files = await vscode.window.showOpenDialog({
      canSelectMany: true,
      filters: { Traces: ['json', 'gz'] },
      title: 'Pick two traces',
    });
    if (!files || files.length !== 2) {
      if (files) void vscode.window.showWarningMessage(`Pick exactly two traces (got ${files.length}).`);
      return;
    }
    const both = await withRun(s, 'Reading two traces', async (token, progress) => {
      // Each file fills half of the one bar.
      const half = {
        report: (v: { message?: string; increment?: number }) =>
          progress.report({ ...v, increment: v.increment && v.increment / 2 }),
      };
      return [await s.runs.traceFile(files[0], half, token), await s.runs.traceFile(files[1], half, token)] as const;
    });
    if (!both) return;
    [a, b] = both;
    sources = [
      { kind: 'trace', uri: files[0].toString() },
      { kind: 'trace', uri: files[1].toString() },
    ];
  }
  s.panels.show(sources[0], a, vscode.ViewColumn.One);
  s.panels.show(sources[1], b, vscode.ViewColumn.Two);
  const waits = async (r: RunResult) => (r.analysis ?? (await s.runs.analyze(r.trace, r.title))).waits;
  const markdown = compareMarkdown(
    `${a.title} (${a.origin})`,
    `${b.title} (${b.origin})`,
    pairWaits(await waits(a), await waits(b)),
  );
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Three, preview: true });
}

async function calibrate(s: Services): Promise<void> {
  if (!vscode.workspace.isTrusted)
    throw new UserFacingError('Calibrating runs work on the GPU, which needs a trusted workspace.');
  const probe = await s.gpu.probe();
  s.status.setProbe(probe);
  if (!probe.ok) {
    void vscode.window.showWarningMessage(`Cannot calibrate: no usable GPU (${probe.reason}).`);
    return;
  }
  const profile = await withRun(s, `Calibrating the simulator on ${probe.name}`, (token, progress) => {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    const seconds = vscode.workspace.getConfiguration('syncscope').get<number>('runnerTimeoutSeconds', 60);
    return s.gpu
      .calibrate({
        signal: abort.signal,
        timeoutMs: seconds * 1000,
        onProgress: (message) => progress.report({ message }),
      })
      .finally(() => sub.dispose());
  });
  if (!profile) return;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = await vscode.window.showSaveDialog({
    defaultUri: folder && vscode.Uri.joinPath(folder, `${probe.name.replace(/\W+/g, '-').toLowerCase()}.profile.json`),
    filters: { 'Simulator profile': ['json'] },
  });
  if (!target) return;
  await writeText(target, JSON.stringify(profile, null, 2) + '\n');
  const setting = folder ? vscode.workspace.asRelativePath(target, false) : target.fsPath;
  await vscode.workspace
    .getConfiguration('syncscope')
    .update(
      'simulatorProfile',
      setting,
      folder ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global,
    );
  s.log.info(`calibrated profile written to ${target.fsPath}; syncscope.simulatorProfile = ${setting}`);
  void vscode.window.showInformationMessage(`The simulator now uses ${baseName(target)}.`);
}

async function selectBackend(s: Services): Promise<void> {
  const current = vscode.workspace.getConfiguration('syncscope').get<string>('backend', 'auto');
  const probe = vscode.workspace.isTrusted ? await s.gpu.probe() : undefined;
  if (probe) s.status.setProbe(probe);
  const gpuDetail = !vscode.workspace.isTrusted
    ? 'Needs a trusted workspace.'
    : probe?.ok
      ? probe.name
      : `No usable GPU: ${probe?.reason}`;
  const items = [
    { label: 'auto', description: 'GPU when available, else the simulator' },
    { label: 'gpu', description: gpuDetail },
    { label: 'simulator', description: 'No GPU needed' },
  ].map((i) => ({
    ...i,
    picked: i.label === current,
    label: i.label === current ? `$(check) ${i.label}` : i.label,
    value: i.label,
  }));
  const pick = await vscode.window.showQuickPick(items, { placeHolder: `Backend for runs (now: ${current})` });
  if (!pick) return;
  const target = vscode.workspace.workspaceFolders
    ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('syncscope').update('backend', pick.value, target);
  s.status.update();
}

export function registerCommands(s: Services): vscode.Disposable[] {
  const guard =
    (what: string, f: (...args: unknown[]) => Promise<void>) =>
    async (...args: unknown[]) => {
      try {
        await f(...args);
      } catch (e) {
        s.reportError(e, what);
      }
    };
  const table: [string, (...args: unknown[]) => Promise<void>][] = [
    ['syncscope.simulate', (a) => simulate(s, a)],
    ['syncscope.runOnGpu', (a) => runOnGpu(s, a)],
    ['syncscope.compare', () => compare(s)],
    ['syncscope.calibrate', () => calibrate(s)],
    ['syncscope.openTrace', (a) => openTrace(s, false, a)],
    ['syncscope.importPyTorch', (a) => openTrace(s, true, a)],
    ['syncscope.exportChrome', (a) => exportChrome(s, a)],
    ['syncscope.newFromExample', () => newFromExample(s)],
    [
      'syncscope.showFindings',
      async () => void (await vscode.commands.executeCommand('workbench.actions.view.problems')),
    ],
    ['syncscope.selectBackend', () => selectBackend(s)],
    ['syncscope.capture', () => captureCommand(s.context, s.log)],
    ['syncscope.profilePython', (a) => profilePythonCommand(s.context, s.sourceLines, s.log, a)],
    ['syncscope.capturePython', (a) => capturePythonCommand(s.context, s.sourceLines, s.log, a)],
  ];
  return table.map(([id, f]) => vscode.commands.registerCommand(id, guard(id, f)));
}

/** Files on disk are written atomically (node/atomic-write.ts); other file systems through VS Code. */
async function writeText(target: vscode.Uri, text: string): Promise<void> {
  if (target.scheme === 'file') await writeFileAtomic(target.fsPath, [text]);
  else await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
}
