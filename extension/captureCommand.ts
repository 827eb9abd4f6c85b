// "Capture a Program…": runs a command line under the capture library through the same typed API
// as `syncscope capture` (the program runs in a process group of its own, never in the extension
// host), with progress and cancellation, then saves and opens the trace.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { captureLibraryPath, findCaptureLibrary } from '../node/capture-library';
import { engines } from './loadEngines';
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
  if (!vscode.workspace.isTrusted)
    throw new UserFacingError('Capturing runs a program, which needs a trusted workspace.');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder || folder.scheme !== 'file')
    throw new UserFacingError('Capturing needs a workspace folder on disk: the program runs there.');
  const library = findCaptureLibrary();
  if (!library.ok)
    throw new UserFacingError(
      'The capture library is not part of this installation (it is built where a CUDA toolkit with CUPTI is present).',
    );
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
  log.info(`capturing: ${line}`);
  const command = ['/bin/sh', '-c', line];
  const { result, cancelled } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Capturing ${line}`, cancellable: true },
    async (progress, token) => {
      const show = (text: string) => {
        const last = text.trim().split('\n').pop() ?? '';
        if (last) progress.report({ message: last.slice(0, 100) });
        for (const l of text.split('\n')) if (l.trim()) log.info(`  ${l}`);
      };
      // Cancelling ends the program; what it recorded until then is still converted and saved.
      const stop = new AbortController();
      const sub = token.onCancellationRequested(() => stop.abort());
      try {
        const result = await engines().capture({
          library,
          command,
          cwd: folder.fsPath,
          stdio: 'pipe',
          onOutput: show,
          signal: stop.signal,
        });
        if (result.ok) {
          show(await engines().saveAnalyzedTrace(result.trace, out.fsPath, command.join(' ')));
          show(`trace written to ${out.fsPath}`);
        }
        return { result, cancelled: stop.signal.aborted };
      } finally {
        sub.dispose();
      }
    },
  );
  // A cancelled capture still saves what ran before the program was ended: say so and show it.
  if (cancelled) {
    log.info('capture cancelled');
    if (!result.ok) return;
    void vscode.window.showInformationMessage(`Capture cancelled; what ran before is in ${name}.`);
  } else if (!result.ok) {
    throw new UserFacingError(result.reason);
  } else if (result.failure) void vscode.window.showWarningMessage(`${result.failure}.`);
  await vscode.commands.executeCommand('vscode.openWith', out, TRACE_EDITOR);
}
