// "Profile Python Script": runs the script unchanged under torch.profiler through the same API as
// `syncscope profile` (node/profile-run.ts), with progress and cancellation, then opens the trace's
// timeline and shows the waits on the script's lines (sourceLines.ts).
import { mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { profileScript } from '../node/profile-run';
import { pickInterpreter, selectedInterpreter } from './logic/python';
import { UserFacingError } from './runs';
import { SourceLines, textHash } from './sourceLines';
import { PROFILER_EDITOR } from './traceEditor';

const isPython = (u: vscode.Uri | undefined): u is vscode.Uri => !!u && u.scheme === 'file' && /\.py$/i.test(u.path);

async function scriptTarget(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri && isPython(arg)) return arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (isPython(active)) return active;
  const found = await vscode.workspace.findFiles('**/*.py', '**/{node_modules,site-packages,.git}/**', 500);
  if (!found.length) throw new UserFacingError('No Python script is open or in the workspace.');
  const pick = await vscode.window.showQuickPick(
    found.map((u) => ({ label: basename(u.fsPath), description: vscode.workspace.asRelativePath(u), uri: u })),
    { placeHolder: 'Profile which script?' },
  );
  return pick?.uri;
}

async function interpreter(script: vscode.Uri): Promise<string> {
  const python = vscode.extensions.getExtension('ms-python.python');
  let api: unknown;
  try {
    api = python && (python.isActive ? python.exports : await python.activate());
  } catch {
    /* a Python extension that fails to start leaves the setting */
  }
  const setting = vscode.workspace.getConfiguration('syncscope', script).get<string>('pythonPath');
  return pickInterpreter(await selectedInterpreter(api, script), setting);
}

async function scriptArgs(script: vscode.Uri): Promise<string[] | undefined> {
  const config = vscode.workspace.getConfiguration('syncscope', script);
  const args = config.get<string[]>('profileArgs') ?? [];
  if (!config.get<boolean>('profileAskForArguments')) return args;
  const line = await vscode.window.showInputBox({
    title: `Profile ${basename(script.fsPath)}`,
    prompt: 'Arguments for the script, separated by spaces',
    value: args.join(' '),
    ignoreFocusOut: true,
  });
  return line === undefined ? undefined : line.split(/\s+/).filter(Boolean);
}

/** A file name for a new profile that sorts by time: train-20261202-143005.json.gz. */
export function profileFileName(script: string, d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stem = basename(script).replace(/\.py$/i, '');
  return `${stem}-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}.json.gz`;
}

export async function profilePythonCommand(
  context: vscode.ExtensionContext,
  sourceLines: SourceLines,
  log: vscode.LogOutputChannel,
  arg: unknown,
): Promise<void> {
  if (!vscode.workspace.isTrusted)
    throw new UserFacingError('Profiling runs a script, which needs a trusted workspace.');
  const script = await scriptTarget(arg);
  if (!script) return;
  const args = await scriptArgs(script);
  if (!args) return;
  const python = await interpreter(script);
  const steps = vscode.workspace.getConfiguration('syncscope', script).get<number>('profileSteps') ?? 10;
  const dir = vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'profiles');
  await mkdir(dir.fsPath, { recursive: true });
  const out = vscode.Uri.joinPath(dir, profileFileName(script.fsPath, new Date()));
  // The profile is stale once the script's text differs from this.
  const sha256 = textHash(await readFile(script.fsPath, 'utf8'));
  const cwd = vscode.workspace.getWorkspaceFolder(script)?.uri.fsPath ?? dirname(script.fsPath);
  log.info(`profiling ${script.fsPath} with ${python} (${steps} steps)${args.length ? ': ' + args.join(' ') : ''}`);
  const { result, cancelled } = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Profiling ${basename(script.fsPath)}`,
      cancellable: true,
    },
    async (progress, token) => {
      // Cancelling stops the profiler; what it recorded until then is still written.
      const stop = new AbortController();
      const sub = token.onCancellationRequested(() => stop.abort());
      try {
        const result = await profileScript({
          python,
          script: script.fsPath,
          args,
          out: out.fsPath,
          steps,
          cwd,
          signal: stop.signal,
          onProgress: (line) => {
            if (line.trim()) progress.report({ message: line.trim().slice(0, 100) });
            log.info(`  ${line}`);
          },
        });
        return { result, cancelled: stop.signal.aborted };
      } finally {
        sub.dispose();
      }
    },
  );
  if (result.trace) {
    const trace = vscode.Uri.file(result.trace);
    await sourceLines.recordProfile(script.fsPath, { trace: trace.fsPath, viewType: PROFILER_EDITOR, sha256 });
    await vscode.commands.executeCommand('vscode.openWith', trace, PROFILER_EDITOR, {
      viewColumn: vscode.ViewColumn.Beside,
    });
  } else {
    await rm(out.fsPath, { force: true });
  }
  if (cancelled) log.info('profile cancelled');
  // The trace, when there is one, keeps what was recorded before the failure: it is open all the same.
  if (result.error) throw new UserFacingError(result.error);
}
