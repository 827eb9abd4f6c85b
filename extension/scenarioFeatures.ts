// What a `*.scenario.json` editor gets: the "Run on GPU | Simulate" lens, parse errors while
// typing, and on save the findings (and a fresh timeline if one is open).
import * as vscode from 'vscode';
import { isScenarioPath, SCENARIO_GLOB } from '../core/scenario/path';
import { scenarioLensLine } from './logic/problems';
import type { ScenarioDiagnostics } from './diagnostics';
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
  // The check in flight per document: a newer edit, or closing it, cancels it (its worker is terminated).
  const checks = new Map<string, AbortController>();
  const cancelCheck = (key: string): void => {
    checks.get(key)?.abort();
    checks.delete(key);
  };
  const lint = async (doc: vscode.TextDocument): Promise<void> => {
    if (!isScenario(doc)) return;
    const key = doc.uri.toString();
    cancelCheck(key);
    const abort = new AbortController();
    checks.set(key, abort);
    try {
      await runs.check(doc, AUTO_ANALYZE_MAX_STEPS, abort.signal);
    } finally {
      if (checks.get(key) === abort) checks.delete(key);
    }
  };
  const later = (doc: vscode.TextDocument): void => {
    const key = doc.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        lint(doc).catch((e: unknown) => log.debug(`checking ${doc.uri.path}: ${(e as Error).message}`));
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
      if (!isScenario(doc)) return;
      cancelCheck(doc.uri.toString());
      diagnostics.clear(doc.uri);
    }),
    {
      dispose: () => {
        timers.forEach((t) => clearTimeout(t));
        checks.forEach((c) => c.abort());
      },
    },
  ];
}
