// "Capture a Program…": runs a command line under the capture library, through the CLI in a child
// process (never in the extension host), with progress and cancellation, then opens the trace.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { captureLibraryPath } from '../node/capture-library';
import { UserFacingError } from './runs';
import { TRACE_EDITOR } from './traceEditor';

const LAST_COMMAND = 'syncscope.captureCommand';

/** Whether this installation can capture: the library was built (it needs CUPTI at build time). The CLI finds it the same way. */
export const captureAvailable = (): boolean => existsSync(captureLibraryPath());

/** A file name for a new capture that sorts by time: capture-20261202-143005.syncscope.json. */
export function captureFileName(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `capture-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}.syncscope.json`;
}

export async function captureCommand(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.isTrusted) throw new UserFacingError('Capturing runs a program, which needs a trusted workspace.');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder || folder.scheme !== 'file') throw new UserFacingError('Capturing needs a workspace folder on disk: the program runs there.');
  if (!captureAvailable()) throw new UserFacingError('The capture library is not part of this installation (it is built where a CUDA toolkit with CUPTI is present).');
  const line = await vscode.window.showInputBox({
    title: 'Capture a Program',
    prompt: `Command line to run in ${folder.fsPath}; every CUDA call and GPU op it makes is recorded`,
    placeHolder: 'python3 train.py --steps 10',
    value: context.workspaceState.get<string>(LAST_COMMAND),
    ignoreFocusOut: true,
  });
  if (!line?.trim()) return;
  await context.workspaceState.update(LAST_COMMAND, line);
  const name = captureFileName(new Date());
  const out = vscode.Uri.joinPath(folder, name);
  const cli = join(context.extensionPath, 'dist', 'cli.js');
  log.info(`capturing: ${line}`);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Capturing ${line}`, cancellable: true },
    (progress, token) => new Promise<{ code: number | null; verdict: string; cancelled: boolean }>((resolve) => {
      // process.execPath is Electron here; ELECTRON_RUN_AS_NODE makes it plain node for the CLI.
      const child = spawn(process.execPath, [cli, 'capture', '--out', out.fsPath, '--', '/bin/sh', '-c', line], {
        cwd: folder.fsPath,
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // The CLI's verdict is its last "syncscope capture:" line; the library in the program writes
      // earlier ones of its own (a CUPTI warning), on the same stream.
      let verdict = '';
      let partial = '';
      let cancelled = false;
      const show = (text: string) => {
        const last = text.trim().split('\n').pop() ?? '';
        if (last) progress.report({ message: last.slice(0, 100) });
        for (const l of text.split('\n')) if (l.trim()) log.info(`  ${l}`);
      };
      child.stdout.setEncoding('utf8').on('data', show);
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const l of lines) if (l.startsWith('syncscope capture:')) verdict = l;
        show(text);
      });
      const sub = token.onCancellationRequested(() => {
        cancelled = true;
        child.kill('SIGTERM');
      });
      child.on('error', (e) => resolve({ code: null, verdict: e.message, cancelled }));
      child.on('close', (code) => {
        sub.dispose();
        if (partial.startsWith('syncscope capture:')) verdict = partial;
        resolve({ code, verdict, cancelled });
      });
    }),
  );
  const verdict = result.verdict.replace(/^syncscope capture: /, '');
  // A cancelled capture still saves what ran before the program was ended: say so and show it.
  if (result.cancelled) {
    log.info('capture cancelled');
    if (!existsSync(out.fsPath)) return;
    void vscode.window.showInformationMessage(`Capture cancelled; what ran before is in ${name}.`);
  } else if (result.code !== 0 && result.code !== 1) {
    // 0: captured; 1: the program failed but what it did before is in the trace; 2: nothing to show.
    throw new UserFacingError(verdict || `capture failed (exit ${result.code})`);
  } else if (result.code === 1) void vscode.window.showWarningMessage(`${verdict}.`);
  await vscode.commands.executeCommand('vscode.openWith', out, TRACE_EDITOR);
}
