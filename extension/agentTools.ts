// The tools of `syncscope mcp` as the editor's language-model tools (package.json's
// languageModelTools), so that a coding agent in VS Code can ask why a line waits, which fix saves
// most and what a fix would change, over the traces open in the editor. Their schemas, limits and
// words are core's (core/agent/); a call's arguments are checked and answered in the worker like
// every other analysis. `profile` and `capture` run a program: only in a trusted workspace, and
// only once the user confirms the command line.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { Answer } from '../core/agent/answer';
import { outputKeeper, RunError } from '../core/agent/runs';
import type { ToolName } from '../core/agent/schemas';
import { findCaptureLibrary } from '../node/capture-library';
import { plainStepsRefusal, profileScript } from '../node/profile-run';
import { engines } from './loadEngines';
import { agentToolName, AGENT_TOOL_NAMES, runConfirmation, runInvocationText } from './logic/agentTools';
import { UserFacingError, type Runs, type RunResult } from './runs';
import type { SourceLines } from './sourceLines';
import { PROFILER_EDITOR, TRACE_EDITOR, type TraceEditorProvider } from './traceEditor';
import { userCodeSetting } from './userCode';

type Input = Record<string, unknown>;

interface Deps {
  runs: Runs;
  editors: TraceEditorProvider;
  sourceLines: SourceLines;
  log: vscode.LogOutputChannel;
}

/** Registers every tool of the catalog; package.json contributes them by the same names. */
export function registerAgentTools(deps: Deps): vscode.Disposable[] {
  return AGENT_TOOL_NAMES.map((name) => vscode.lm.registerTool(agentToolName(name), tool(name, deps)));
}

function tool(name: ToolName, deps: Deps): vscode.LanguageModelTool<Input> {
  if (name === 'profile' || name === 'capture')
    return {
      prepareInvocation: (o) => ({
        invocationMessage: runInvocationText(name, o.input),
        confirmationMessages: runConfirmation(name, o.input, folder()?.fsPath),
      }),
      invoke: (o, token) => answering(() => runTool(name, o.input, token, deps)),
    };
  return { invoke: (o) => answering(() => readTool(name, o.input, deps)) };
}

/** The answer as text for the model; what went wrong as an error whose message says it. */
async function answering(answer: () => Promise<Answer>): Promise<vscode.LanguageModelToolResult> {
  const { text } = await answer();
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

const folder = (): vscode.Uri | undefined =>
  vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri;

async function readTool(name: ToolName, input: Input, deps: Deps): Promise<Answer> {
  const args = await deps.runs.agentCheck(name, input);
  const found = await traceFor(typeof args.path === 'string' ? args.path : undefined, deps);
  return deps.runs.agentAnswer({
    tool: name,
    input,
    path: found.label,
    trace: found.trace,
    analysis: found.analysis,
    root: folder()?.fsPath,
  });
}

interface Found extends Pick<RunResult, 'trace' | 'analysis'> {
  label: string;
}

/** The trace a tool answers over: the file `path` names, else the one the editor shows. */
async function traceFor(path: string | undefined, deps: Deps): Promise<Found> {
  if (path === undefined) return openTrace(deps);
  const root = folder();
  if (!isAbsolute(path) && !root)
    throw new UserFacingError(`${path} is relative and no workspace folder is open; give an absolute path`);
  const full = isAbsolute(path) ? path : resolve(root!.fsPath, path);
  if (!existsSync(full)) throw new UserFacingError(`no such file: ${path} (looked for ${full})`);
  const uri = vscode.Uri.file(full);
  const shown = deps.editors.shown.get(uri.toString())?.trace ?? deps.sourceLines.traceOf(uri);
  if (shown) return { trace: shown, label: path };
  const r = /\.scenario\.jsonc?$/i.test(full) ? await deps.runs.simulate(uri) : await deps.runs.traceFile(uri);
  return { trace: r.trace, analysis: r.analysis, label: path };
}

/** The trace of the active timeline, else the one on the active Python file's lines, else the only one open. */
function openTrace(deps: Deps): Found {
  const shown = [...deps.editors.shown].filter(([, view]) => view.trace);
  const found = (key: string, trace: Found['trace']): Found => ({
    trace,
    label: vscode.workspace.asRelativePath(vscode.Uri.parse(key)),
  });
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const active = tab instanceof vscode.TabInputCustom ? deps.editors.shown.get(tab.uri.toString())?.trace : undefined;
  if (active && tab instanceof vscode.TabInputCustom) return found(tab.uri.toString(), active);
  const doc = vscode.window.activeTextEditor?.document;
  const lines = doc && deps.sourceLines.ownerOf(doc.uri.fsPath);
  if (lines) return found(lines.uri.toString(), lines.trace);
  if (shown.length === 1) return found(shown[0][0], shown[0][1].trace!);
  const names = shown.map(([key]) => vscode.workspace.asRelativePath(vscode.Uri.parse(key)));
  throw new UserFacingError(
    names.length
      ? `${names.length} traces are open (${names.join(', ')}) and none is active; give path: one of them`
      : 'no trace is open in the editor; give path: a trace or *.scenario.json file of the workspace',
  );
}

async function runTool(
  name: 'profile' | 'capture',
  input: Input,
  token: vscode.CancellationToken,
  deps: Deps,
): Promise<Answer> {
  if (!vscode.workspace.isTrusted)
    throw new UserFacingError(`${name} runs a program, which needs a trusted workspace; trust this workspace first`);
  const cwd = folder()?.fsPath;
  if (!cwd) throw new UserFacingError(`${name} runs a program in the workspace folder, and none is open on disk`);
  const args = await deps.runs.agentCheck(name, input);
  const stop = new AbortController();
  const sub = token.onCancellationRequested(() => stop.abort());
  const output = outputKeeper();
  try {
    const ran =
      name === 'profile'
        ? await profile(args, cwd, stop.signal, output.add)
        : await capture(args, cwd, stop.signal, output.add);
    if (!ran.trace) throw new RunError(ran.error ?? 'no trace was written', output.text);
    const uri = vscode.Uri.file(ran.trace);
    const r = await deps.runs.traceFile(uri);
    // The lines of the program's files show the new trace's waits and heat.
    await deps.sourceLines.add(uri, name === 'profile' ? PROFILER_EDITOR : TRACE_EDITOR, r.trace);
    deps.log.info(`${name} for a chat tool wrote ${ran.trace}`);
    return deps.runs.agentRunAnswer({
      trace: r.trace,
      analysis: r.analysis,
      path: ran.trace,
      failure: ran.error,
      output: output.text,
    });
  } finally {
    sub.dispose();
  }
}

/** The trace written (absolute), and what went wrong. */
interface Ran {
  trace?: string;
  error?: string;
}

async function profile(args: Input, cwd: string, signal: AbortSignal, onOutput: (t: string) => void): Promise<Ran> {
  const result = await profileScript({
    python: args.python as string,
    script: args.script as string,
    args: (args.args as string[] | undefined) ?? [],
    out: resolve(cwd, (args.out as string | undefined) ?? 'profile.json.gz'),
    steps: args.steps as number | undefined,
    stepOn: args.stepOn as string | undefined,
    plainSteps: args.plainSteps as number | undefined,
    seconds: args.seconds as number | undefined,
    cwd,
    signal,
    onOutput,
  });
  return { trace: result.trace && resolve(cwd, result.trace), error: result.error };
}

async function capture(args: Input, cwd: string, signal: AbortSignal, onOutput: (t: string) => void): Promise<Ran> {
  const library = findCaptureLibrary();
  if (!library.ok) throw new UserFacingError(library.reason);
  const command = args.command as string[];
  const plainSteps = args.plainSteps as number | undefined;
  const refused = plainSteps ? plainStepsRefusal(command) : undefined;
  if (refused) throw new UserFacingError(`plainSteps: ${refused}`);
  const result = await engines().capture({
    library,
    command,
    cwd,
    stdio: 'pipe',
    onOutput,
    signal,
    userCode: userCodeSetting(),
    ...(plainSteps ? { plain: { steps: plainSteps, stepOn: args.stepOn as string | undefined, onOutput } } : {}),
  });
  if (!result.ok) return { error: result.reason };
  const out = resolve(cwd, (args.out as string | undefined) ?? 'capture.syncscope.json');
  await engines().saveAnalyzedTrace(result.trace, out, command.join(' '));
  const failures = [result.failure, result.plainFailure].filter(Boolean);
  return { trace: out, error: failures.length ? failures.join('; ') : undefined };
}
