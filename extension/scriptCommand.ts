// "Capture Python Script" and "Profile Python Script": run the script unchanged, under the capture
// library (through the same API as `syncscope capture`, node/capture-process.ts) or under
// torch.profiler (as `syncscope profile`, node/profile-run.ts), with progress and cancellation;
// then open the trace's timeline beside the script and show the waits on its lines
// (sourceLines.ts). Both go through one path: only how the trace is recorded differs.
import { userCodeSetting } from './userCode';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { findCaptureLibrary } from '../node/capture-library';
import { profileScript } from '../node/profile-run';
import { captureAvailable } from './captureCommand';
import { engines } from './loadEngines';
import { pickInterpreter, selectedInterpreter } from './logic/python';
import { runnerChoices, scriptTraceName, type ScriptRunner } from './logic/scriptRun';
import { UserFacingError } from './runs';
import { SourceLines, textHash } from './sourceLines';
import { PROFILER_EDITOR, TRACE_EDITOR } from './traceEditor';

const isPython = (u: vscode.Uri | undefined): u is vscode.Uri => !!u && u.scheme === 'file' && /\.py$/i.test(u.path);

const VERB: Record<ScriptRunner, string> = { capture: 'Capture', profile: 'Profile' };

async function scriptTarget(arg: unknown, verb: string): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri && isPython(arg)) return arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (isPython(active)) return active;
  const found = await vscode.workspace.findFiles('**/*.py', '**/{node_modules,site-packages,.git}/**', 500);
  if (!found.length) throw new UserFacingError('No Python script is open or in the workspace.');
  const pick = await vscode.window.showQuickPick(
    found.map((u) => ({ label: basename(u.fsPath), description: vscode.workspace.asRelativePath(u), uri: u })),
    { placeHolder: `${verb} which script?` },
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

async function scriptArgs(script: vscode.Uri, verb: string): Promise<string[] | undefined> {
  const config = vscode.workspace.getConfiguration('syncscope', script);
  const args = config.get<string[]>('profileArgs') ?? [];
  if (!config.get<boolean>('profileAskForArguments')) return args;
  const line = await vscode.window.showInputBox({
    title: `${verb} ${basename(script.fsPath)}`,
    prompt: 'Arguments for the script, separated by spaces',
    value: args.join(' '),
    ignoreFocusOut: true,
  });
  return line === undefined ? undefined : line.split(/\s+/).filter(Boolean);
}

/** What one recording run needs, whichever way it records. */
interface RunRequest {
  python: string;
  script: string;
  args: string[];
  out: string;
  cwd: string;
  signal: AbortSignal;
  /** A line of progress or of the program's output, for the notification and the log. */
  onLine: (line: string) => void;
}

/** The trace written (also after a failure or a cancel), a warning, or why there is none. */
interface RunOutcome {
  trace?: string;
  warning?: string;
  error?: string;
}

/** What ends a step, and the plain steps to time first (0: none), as the settings say. */
function stepSettings(script: vscode.Uri): { stepOn?: string; plainSteps: number } {
  const config = vscode.workspace.getConfiguration('syncscope', script);
  const stepOn = config.get<string>('profileStepOn')?.trim() || undefined;
  return { stepOn, plainSteps: Math.max(0, Math.floor(config.get<number>('plainSteps') ?? 0)) };
}

async function profile(r: RunRequest, script: vscode.Uri): Promise<RunOutcome> {
  const steps = vscode.workspace.getConfiguration('syncscope', script).get<number>('profileSteps') ?? 10;
  const { stepOn, plainSteps } = stepSettings(script);
  const result = await profileScript({ ...r, steps, stepOn, plainSteps, onProgress: r.onLine });
  return { trace: result.trace, error: result.error };
}

async function capture(r: RunRequest, script: vscode.Uri): Promise<RunOutcome> {
  const library = findCaptureLibrary();
  if (!library.ok) return { error: library.reason };
  const { stepOn, plainSteps } = stepSettings(script);
  const command = [r.python, r.script, ...r.args];
  const onOutput = (text: string) => text.split('\n').forEach(r.onLine);
  const result = await engines().capture({
    library,
    command,
    cwd: r.cwd,
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
    stdio: 'pipe',
    onOutput,
    signal: r.signal,
    userCode: userCodeSetting(),
    ...(plainSteps ? { plain: { steps: plainSteps, stepOn, onProgress: r.onLine, onOutput } } : {}),
  });
  if (!result.ok) return { error: result.reason };
  const report = await engines().saveAnalyzedTrace(result.trace, r.out, command.join(' '));
  report.split('\n').forEach(r.onLine);
  const warnings = [result.failure, result.plainFailure].filter(Boolean);
  return { trace: r.out, warning: warnings.length ? `${warnings.join('; ')}.` : undefined };
}

/** Runs the script the chosen way, then shows its trace beside it with its lenses and Problems entries. */
async function recordScript(
  context: vscode.ExtensionContext,
  sourceLines: SourceLines,
  log: vscode.LogOutputChannel,
  script: vscode.Uri,
  runner: ScriptRunner,
): Promise<void> {
  const verb = VERB[runner];
  const args = await scriptArgs(script, verb);
  if (!args) return;
  const python = await interpreter(script);
  const dir = vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'profiles');
  await mkdir(dir.fsPath, { recursive: true });
  const out = vscode.Uri.joinPath(dir, scriptTraceName(script.fsPath, new Date(), runner));
  // The trace is stale once the script's text differs from this.
  const sha256 = textHash(await readFile(script.fsPath, 'utf8'));
  const cwd = vscode.workspace.getWorkspaceFolder(script)?.uri.fsPath ?? dirname(script.fsPath);
  log.info(`${verb.toLowerCase()} ${script.fsPath} with ${python}${args.length ? ': ' + args.join(' ') : ''}`);
  const { result, cancelled } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `${verb}: ${basename(script.fsPath)}`, cancellable: true },
    async (progress, token) => {
      // Cancelling stops the recording; what it recorded until then is still written.
      const stop = new AbortController();
      const sub = token.onCancellationRequested(() => stop.abort());
      const onLine = (line: string) => {
        if (!line.trim()) return;
        progress.report({ message: line.trim().slice(0, 100) });
        log.info(`  ${line}`);
      };
      try {
        const request = { python, script: script.fsPath, args, out: out.fsPath, cwd, signal: stop.signal, onLine };
        const result = runner === 'capture' ? await capture(request, script) : await profile(request, script);
        return { result, cancelled: stop.signal.aborted };
      } finally {
        sub.dispose();
      }
    },
  );
  if (result.trace) {
    const trace = vscode.Uri.file(result.trace);
    const viewType = runner === 'capture' ? TRACE_EDITOR : PROFILER_EDITOR;
    await sourceLines.recordProfile(script.fsPath, { trace: trace.fsPath, viewType, sha256 });
    await vscode.commands.executeCommand('vscode.openWith', trace, viewType, { viewColumn: vscode.ViewColumn.Beside });
  } else {
    await rm(out.fsPath, { force: true });
  }
  if (cancelled) log.info(`${verb.toLowerCase()} cancelled`);
  // The trace, when there is one, keeps what was recorded before the failure: it is open all the same.
  if (result.error) throw new UserFacingError(result.error);
  if (result.warning && !cancelled) void vscode.window.showWarningMessage(result.warning);
}

const needsTrust = (verb: string): void => {
  if (!vscode.workspace.isTrusted) throw new UserFacingError(`${verb} runs a script, which needs a trusted workspace.`);
};

/** "Profile Python Script": where the capture library is built, capture is offered first; profiling stays for ROCm and machines without CUPTI. */
export async function profilePythonCommand(
  context: vscode.ExtensionContext,
  sourceLines: SourceLines,
  log: vscode.LogOutputChannel,
  arg: unknown,
): Promise<void> {
  needsTrust('Profiling');
  const script = await scriptTarget(arg, 'Profile');
  if (!script) return;
  const choices = runnerChoices(captureAvailable());
  const pick =
    choices.length === 1
      ? choices[0]
      : await vscode.window.showQuickPick(choices, {
          title: `Record ${basename(script.fsPath)}`,
          placeHolder: 'Capture with CUPTI, or profile with torch.profiler?',
        });
  if (!pick) return;
  await recordScript(context, sourceLines, log, script, pick.runner);
}

/** "Capture Python Script": runs the script under the capture library. */
export async function capturePythonCommand(
  context: vscode.ExtensionContext,
  sourceLines: SourceLines,
  log: vscode.LogOutputChannel,
  arg: unknown,
): Promise<void> {
  needsTrust('Capturing');
  const library = findCaptureLibrary();
  if (!library.ok)
    throw new UserFacingError(
      'The capture library is not part of this installation (it is built where a CUDA toolkit with CUPTI is present); Profile Python Script records with torch.profiler instead.',
    );
  const script = await scriptTarget(arg, 'Capture');
  if (!script) return;
  await recordScript(context, sourceLines, log, script, 'capture');
}
