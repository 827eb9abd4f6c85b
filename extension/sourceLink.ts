// Opens a file of the user's program named by an imported trace (the details pane's Source link),
// only inside the workspace folders or the profiled script's folder (logic/sourceFile.ts).
import * as vscode from 'vscode';
import { statSync } from 'node:fs';
import { sourceToOpen } from './logic/sourceFile';

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Opens `file` at a 1-based `line` (0: its top), or says why it does not; `scriptRoots`: folders besides the workspace's. */
export async function openSource(file: string, line: number, scriptRoots: readonly string[] = []): Promise<void> {
  const roots = (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === 'file')
    .map((f) => f.uri.fsPath)
    .concat(scriptRoots);
  const choice = sourceToOpen(file, roots, isFile);
  if ('refused' in choice) {
    void vscode.window.showWarningMessage(`Syncscope: ${choice.refused}`);
    return;
  }
  await showLine(vscode.Uri.file(choice.path), line, vscode.ViewColumn.One);
}

/** Shows a file with the cursor at the start of a 1-based `line` (0: its top), clamped to the file. */
export async function showLine(uri: vscode.Uri, line: number, viewColumn: vscode.ViewColumn): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const pos = new vscode.Position(Math.min(Math.max(line - 1, 0), Math.max(doc.lineCount - 1, 0)), 0);
  const editor = await vscode.window.showTextDocument(doc, { viewColumn, preserveFocus: false });
  editor.selection = new vscode.Selection(pos, pos);
  editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
