// The Problems panel entries for scenario files: parse errors while typing, analysis findings
// after each run.
import * as vscode from 'vscode';
import type { Finding } from '../core/trace/model';
import { PositionedError, Problem, scenarioProblems } from './logic/problems';

export const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export class ScenarioDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('syncscope');
  private readonly findingCount = new Map<string, number>();

  set(uri: vscode.Uri, text: string, errors: readonly PositionedError[], findings: readonly Finding[]): void {
    const diagnostics = scenarioProblems(text, errors, findings).map((p) => {
      const d = new vscode.Diagnostic(
        new vscode.Range(p.start.line, p.start.character, p.end.line, p.end.character),
        p.message,
        SEVERITY[p.severity],
      );
      d.source = 'syncscope';
      if (p.rule) d.code = p.rule;
      return d;
    });
    this.collection.set(uri, diagnostics);
    this.findingCount.set(uri.toString(), findings.length);
    void vscode.commands.executeCommand(
      'setContext',
      'syncscope.hasFindings',
      [...this.findingCount.values()].some((n) => n > 0),
    );
  }

  clear(uri: vscode.Uri): void {
    this.collection.delete(uri);
    this.findingCount.delete(uri.toString());
  }

  dispose(): void {
    this.collection.dispose();
  }
}
