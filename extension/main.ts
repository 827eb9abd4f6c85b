// Activation: register everything, compute nothing. Runs, GPU probes and analyses start on first
// use, so opening a workspace with scenarios costs a few milliseconds.
import * as vscode from 'vscode';
import { registerAgentTools } from './agentTools';
import { captureAvailable } from './captureCommand';
import { registerCommands } from './commands';
import { ScenarioDiagnostics } from './diagnostics';
import { Gpu } from './gpu';
import { TIMELINE_VIEW_TYPE, TimelinePanels } from './panels';
import { Runs, UserFacingError } from './runs';
import { ScenarioLenses, SCENARIO_SELECTOR, watchScenarios } from './scenarioFeatures';
import { LineHeatDecorations } from './lineHeat';
import { profiledScript, PYTHON_SELECTOR, SourceLines } from './sourceLines';
import { BackendStatus } from './statusBar';
import { PROFILER_EDITOR, TRACE_EDITOR, TraceEditorProvider } from './traceEditor';
import { registerWhatIf } from './whatifCommand';
import { disposeEngineWorkers } from './workerEngines';

export function activate(context: vscode.ExtensionContext): { activationMs: number } {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Syncscope', { log: true });
  const reportError = (e: unknown, what: string): void => {
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof UserFacingError) log.warn(`${what}: ${message}`);
    else log.error(`${what}: ${e instanceof Error ? (e.stack ?? message) : message}`);
    void vscode.window.showErrorMessage(`Syncscope: ${message}`, 'Show Log').then((a) => a && log.show());
  };

  const gpu = new Gpu(context.extensionPath);
  const status = new BackendStatus();
  const diagnostics = new ScenarioDiagnostics();
  const runs = new Runs(gpu, diagnostics, log);
  const panels = new TimelinePanels(context, runs, log, reportError);
  const editors = new TraceEditorProvider(context.extensionUri, runs, log, (trace) =>
    profiledScript(context.workspaceState, trace.fsPath),
  );
  const sourceLines = new SourceLines(context.workspaceState, runs, editors, log);
  const gpuAllowed = (): boolean => vscode.workspace.isTrusted && gpuState !== 'absent';
  let gpuState: 'unknown' | 'present' | 'absent' = 'unknown';
  const lenses = new ScenarioLenses(gpuAllowed);
  const probeGpu = (): void => {
    void gpu.probe().then((probe) => {
      gpuState = probe.ok ? 'present' : 'absent';
      status.setProbe(probe);
      lenses.refresh();
      log.info(probe.ok ? `GPU: ${probe.name}` : `no GPU: ${probe.reason}; runs use the simulator`);
      void vscode.commands.executeCommand('setContext', 'syncscope.gpu', gpuState);
    });
  };

  context.subscriptions.push(
    log,
    status,
    diagnostics,
    panels,
    sourceLines,
    new LineHeatDecorations(sourceLines),
    ...registerCommands({ context, runs, panels, editors, gpu, status, log, reportError, sourceLines }),
    ...registerWhatIf({ context, runs, editors, sourceLines, log, reportError }),
    ...registerAgentTools({ runs, editors, sourceLines, log }),
    vscode.window.registerWebviewPanelSerializer(TIMELINE_VIEW_TYPE, panels),
    vscode.window.registerCustomEditorProvider(TRACE_EDITOR, editors, { supportsMultipleEditorsPerDocument: true }),
    vscode.window.registerCustomEditorProvider(PROFILER_EDITOR, editors, { supportsMultipleEditorsPerDocument: true }),
    vscode.languages.registerCodeLensProvider(SCENARIO_SELECTOR, lenses),
    vscode.languages.registerCodeLensProvider(PYTHON_SELECTOR, sourceLines),
    ...watchScenarios(diagnostics, runs, panels, log),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('syncscope.backend') && status.update()),
    vscode.workspace.onDidGrantWorkspaceTrust(probeGpu),
    { dispose: disposeEngineWorkers },
  );

  // The capture command hides only once the library is known to be missing: before activation
  // (a workspace without scenarios) it must show, since running it is what activates us.
  setTimeout(
    () => void vscode.commands.executeCommand('setContext', 'syncscope.captureMissing', !captureAvailable()),
    0,
  );
  // Probe for a GPU after activation returns: the probe lives in the runner process, never here.
  if (vscode.workspace.isTrusted) setTimeout(probeGpu, 0);

  const activationMs = performance.now() - started;
  log.info(`Syncscope ${context.extension.packageJSON.version} activated in ${activationMs.toFixed(1)} ms`);
  return { activationMs };
}

export function deactivate(): void {
  /* everything is disposed through context.subscriptions */
}
