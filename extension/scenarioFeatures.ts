// What a `*.scenario.json` editor gets: the "Run on GPU | Simulate" lens, parse errors while
// typing, and on save the findings (and a fresh timeline if one is open).
import * as vscode from 'vscode';
import { isScenarioPath, SCENARIO_GLOB } from '../core/scenario/path';
import { scenarioLensLine } from './logic/problems';
import type { ScenarioDiagnostics } from './diagnostics';
import { engines } from './loadEngines';
import type { TimelinePanels } from './panels';
import type { Runs } from './runs';

export const SCENARIO_SELECTOR: vscode.DocumentSelector = [{ pattern: SCENARIO_GLOB }];
export const isScenario = (doc: vscode.TextDocument): boolean => isScenarioPath(doc.uri.path);

/** Scenarios this large are simulated for findings only when the user asks. */
const AUTO_ANALYZE_MAX_STEPS = 20_000;

export class ScenarioLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly gpuAllowed: () => boolean) {}

  /** The GPU probe answered or trust changed: "Run on GPU" may come or go. */
  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const line = scenarioLensLine(doc.getText());
    const range = new vscode.Range(line, 0, line, 0);
    const lenses = [
      new vscode.CodeLens(range, { title: '$(play) Simulate', command: 'syncscope.simulate', arguments: [doc.uri] }),
    ];
    if (this.gpuAllowed())
      lenses.unshift(
        new vscode.CodeLens(range, { title: '▶ Run on GPU', command: 'syncscope.runOnGpu', arguments: [doc.uri] }),
      );
    return lenses;
  }
}

export function watchScenarios(
  diagnostics: ScenarioDiagnostics,
  runs: Runs,
  panels: TimelinePanels,
  log: vscode.LogOutputChannel,
): vscode.Disposable[] {
  const timers = new Map<string, NodeJS.Timeout>();
  const lint = (doc: vscode.TextDocument): void => {
    if (!isScenario(doc)) return;
    const parsed = engines().parseScenarioText(doc.getText(), doc.uri.path.split('/').pop() ?? '');
    if (parsed.errors.length || !parsed.program) diagnostics.set(doc.uri, doc.getText(), parsed.errors, []);
    else if (parsed.program.stepCount <= AUTO_ANALYZE_MAX_STEPS) void analyzeQuietly(doc.uri);
    else diagnostics.set(doc.uri, doc.getText(), [], []);
  };
  const analyzeQuietly = async (uri: vscode.Uri): Promise<void> => {
    try {
      await runs.simulate(uri, true);
    } catch (e) {
      log.debug(`background analysis of ${uri.path}: ${(e as Error).message}`);
    }
  };
  const later = (doc: vscode.TextDocument): void => {
    const key = doc.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        try {
          lint(doc);
        } catch (e) {
          log.debug(`checking ${doc.uri.path}: ${(e as Error).message}`);
        }
      }, 300),
    );
  };
  vscode.workspace.textDocuments.forEach(later);
  return [
    vscode.workspace.onDidOpenTextDocument(later),
    vscode.workspace.onDidChangeTextDocument((e) => later(e.document)),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (isScenario(doc)) void panels.refresh(doc.uri);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (isScenario(doc)) diagnostics.clear(doc.uri);
    }),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  ];
}
