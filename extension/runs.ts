// Turns a scenario or a trace file into a Trace, with progress, cancellation, the log, and the
// Problems panel kept in step. Every timeline (panel, custom editor, restored panel) comes here.
import { userCodeSetting } from './userCode';
import * as vscode from 'vscode';
import type { Analysis } from '../core/analyze/types';
import type { Program } from '../core/scenario/program';
import type { Trace } from '../core/trace/model';
import { chooseBackend, parseBackendSetting } from './logic/backend';
import { resolveProfileSetting } from './logic/profileSetting';
import type { PanelSource } from './logic/restore';
import { RequestCancelledError, WorkerLimitError, type RequestOptions } from './logic/engineClient';
import { WORKER_LIMITS, type EngineOps, type OpName } from './logic/engineOps';
import { callEngine } from './workerEngines';
import type { ScenarioDiagnostics } from './diagnostics';
import type { Gpu } from './gpu';

export interface RunResult {
  trace: Trace;
  analysis?: Analysis;
  title: string;
  origin: string;
}

/** A failure the user caused (bad scenario, no GPU): said plainly, without a stack. */
export class UserFacingError extends Error {}

const fileName = (uri: vscode.Uri): string => uri.path.slice(uri.path.lastIndexOf('/') + 1);

export function titleFor(source: PanelSource): string {
  const name = fileName(vscode.Uri.parse(source.uri));
  return source.kind === 'gpu' ? `GPU: ${name}` : source.kind === 'simulate' ? `Simulated: ${name}` : name;
}

export class Runs {
  constructor(
    private readonly gpu: Gpu,
    private readonly diagnostics: ScenarioDiagnostics,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Reads the editor's text when the file is open (unsaved edits count), the disk otherwise. */
  async text(uri: vscode.Uri): Promise<string> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return open.getText();
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  }

  /**
   * One request to the worker thread. A limit it hits is the file's fault, said plainly; a
   * cancelled one ends as VS Code's CancellationError.
   */
  private async engine<K extends OpName>(
    op: K,
    args: EngineOps[K]['args'],
    opts: RequestOptions,
  ): Promise<EngineOps[K]['result']> {
    try {
      return await callEngine(op, args, opts);
    } catch (e) {
      if (e instanceof RequestCancelledError) throw new vscode.CancellationError();
      // The caller shows and logs it, once.
      if (e instanceof WorkerLimitError) throw new UserFacingError(e.message);
      throw e;
    }
  }

  private parseFailed(uri: vscode.Uri, text: string, errors: EngineOps['parse']['result']['errors']): UserFacingError {
    this.diagnostics.set(uri, text, errors, []);
    const first = errors[0];
    return new UserFacingError(
      `${fileName(uri)} has ${errors.length} error(s)${first ? `; first at line ${first.line}: ${first.detail}` : ''}`,
    );
  }

  /** Parses and updates the Problems panel; throws when the scenario does not compile. */
  async program(uri: vscode.Uri): Promise<{ program: Program; text: string }> {
    const text = await this.text(uri);
    const parsed = await this.engine(
      'parse',
      { text, file: fileName(uri) },
      { subject: fileName(uri), timeoutMs: workerTimeoutMs() },
    );
    if (!parsed.program || parsed.errors.length) throw this.parseFailed(uri, text, parsed.errors);
    return { program: parsed.program, text };
  }

  /** Simulates and analyses the scenario; the Problems panel gets its errors or its findings. */
  async simulate(uri: vscode.Uri, signal?: AbortSignal): Promise<RunResult> {
    const text = await this.text(uri);
    const started = performance.now();
    const result = await this.engine(
      'scenario',
      { text, file: fileName(uri), profile: await this.profile(), simulateUpTo: Infinity },
      { subject: fileName(uri), timeoutMs: workerTimeoutMs(), signal },
    );
    const { trace, analysis, stepCount } = result;
    if (!trace || !analysis || stepCount === undefined) throw this.parseFailed(uri, text, result.errors);
    this.diagnostics.set(uri, text, [], analysis.findings);
    this.logRun(uri, stepCount, analysis, 'simulator', started);
    return { trace, analysis, title: fileName(uri), origin: 'simulator' };
  }

  /**
   * The check while typing: parse errors, or the findings of a background simulation when the
   * scenario has at most `simulateUpTo` steps. A file too costly to check gets one Problems entry
   * saying so; a newer edit aborts `signal`.
   */
  async check(doc: vscode.TextDocument, simulateUpTo: number, signal: AbortSignal): Promise<void> {
    const text = doc.getText();
    const name = fileName(doc.uri);
    try {
      const result = await callEngine(
        'scenario',
        { text, file: name, profile: await this.profile(), simulateUpTo },
        { subject: name, timeoutMs: workerTimeoutMs(), signal },
      );
      this.diagnostics.set(doc.uri, text, result.errors, result.analysis?.findings ?? []);
    } catch (e) {
      if (e instanceof RequestCancelledError) return;
      if (!(e instanceof WorkerLimitError)) throw e;
      this.log.warn(e.message);
      this.diagnostics.set(doc.uri, text, [{ line: 1, column: 1, length: 1, detail: e.message }], []);
    }
  }

  /** The analysis of a trace that has none yet (Compare). */
  analyze(trace: Trace, title: string): Promise<Analysis> {
    return this.engine('analyze', { trace }, { subject: title, timeoutMs: traceWorkTimeoutMs(trace) });
  }

  /** The Chrome/Perfetto JSON of a trace. */
  chromeJson(trace: Trace, title: string): Promise<string> {
    return this.engine('chrome', { trace }, { subject: title, timeoutMs: traceWorkTimeoutMs(trace) });
  }

  /** Simulates the fix of a trace's finding in the worker (no trust needed: nothing runs but the simulator). */
  async whatIf(trace: Trace, finding: number, title: string): Promise<EngineOps['whatIf']['result']> {
    const profile = await this.profile();
    return this.engine('whatIf', { trace, profile, finding }, { subject: title, timeoutMs: traceWorkTimeoutMs(trace) });
  }

  /** The trace's overview, made in the worker: every finding's fix simulated there. */
  async overview(trace: Trace, title: string): Promise<EngineOps['overview']['result']> {
    const profile = await this.profile();
    return this.engine('overview', { trace, profile }, { subject: title, timeoutMs: traceWorkTimeoutMs(trace) });
  }

  /** Every fix of a trace simulated in the worker, largest predicted saving first. */
  async fixSavings(trace: Trace, title: string): Promise<EngineOps['fixSavings']['result']> {
    const profile = await this.profile();
    return this.engine('fixSavings', { trace, profile }, { subject: title, timeoutMs: traceWorkTimeoutMs(trace) });
  }

  /** The trace written as a scenario, in the worker. */
  async scenarioText(trace: Trace, title: string): Promise<string> {
    const profile = await this.profile();
    return this.engine('scenarioText', { trace, profile }, { subject: title, timeoutMs: traceWorkTimeoutMs(trace) });
  }

  /** A language-model tool's arguments, checked in the worker against the tool's schema; a wrong one is said plainly. */
  async agentCheck(tool: string, input: unknown): Promise<Record<string, unknown>> {
    return this.agentCall('agentCheck', { tool, input }, tool);
  }

  /** A language-model tool that reads a trace, answered in the worker as `syncscope mcp` answers it. */
  agentAnswer(args: EngineOps['agentAnswer']['args']): Promise<EngineOps['agentAnswer']['result']> {
    return this.agentCall('agentAnswer', args, args.tool);
  }

  /** What a language-model tool that ran a program says of the trace it wrote. */
  agentRunAnswer(args: EngineOps['agentRunAnswer']['args']): Promise<EngineOps['agentRunAnswer']['result']> {
    return this.agentCall('agentRunAnswer', args, args.path);
  }

  /** A worker request whose failure is the agent's input or the trace's: its message, without a stack. */
  private async agentCall<K extends 'agentCheck' | 'agentAnswer' | 'agentRunAnswer'>(
    op: K,
    args: EngineOps[K]['args'],
    subject: string,
  ): Promise<EngineOps[K]['result']> {
    try {
      const trace = (args as { trace?: Trace }).trace;
      const timeoutMs = trace ? traceWorkTimeoutMs(trace) : workerTimeoutMs();
      return await this.engine(op, args, { subject, timeoutMs });
    } catch (e) {
      throw e instanceof vscode.CancellationError ? e : new UserFacingError((e as Error).message);
    }
  }

  /** The format core would read the file as, from its first bytes (decompressed when gzipped). */
  async sniff(uri: vscode.Uri): Promise<Awaited<EngineOps['sniff']['result']>> {
    // Other schemes (virtual file systems) can only be read whole through VS Code.
    const args = uri.scheme === 'file' ? { path: uri.fsPath } : { bytes: await vscode.workspace.fs.readFile(uri) };
    return this.engine('sniff', args, { subject: fileName(uri), timeoutMs: workerTimeoutMs() });
  }

  async runOnGpu(
    uri: vscode.Uri,
    token: vscode.CancellationToken,
    progress?: vscode.Progress<{ message?: string; increment?: number }>,
  ): Promise<RunResult> {
    if (!vscode.workspace.isTrusted) throw new UserFacingError('Running on the GPU needs a trusted workspace.');
    const { program, text } = await this.program(uri);
    const probe = await this.gpu.probe();
    if (!probe.ok) throw new UserFacingError(`No usable GPU: ${probe.reason}`);
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    const started = performance.now();
    try {
      const seconds = vscode.workspace.getConfiguration('syncscope').get<number>('runnerTimeoutSeconds', 60);
      const trace = await this.gpu.run(program, {
        signal: abort.signal,
        timeoutMs: seconds * 1000,
        onProgress: (message) => progress?.report({ message }),
      });
      const analysis = await this.engine(
        'analyze',
        { trace, program },
        { subject: fileName(uri), timeoutMs: workerTimeoutMs() },
      );
      trace.findings = analysis.findings;
      this.diagnostics.set(uri, text, [], analysis.findings);
      this.logRun(uri, program.stepCount, analysis, probe.name, started);
      return { trace, analysis, title: fileName(uri), origin: probe.name };
    } finally {
      sub.dispose();
    }
  }

  /** The backend the settings and the probe pick for "run this scenario". */
  async backend(): Promise<'gpu' | 'simulator'> {
    const setting = parseBackendSetting(vscode.workspace.getConfiguration('syncscope').get('backend'));
    if (setting === 'simulator') return 'simulator';
    const choice = chooseBackend(
      setting,
      vscode.workspace.isTrusted,
      vscode.workspace.isTrusted ? await this.gpu.probe() : undefined,
    );
    if (choice.fallback) this.log.warn(choice.fallback);
    return choice.use;
  }

  /** Streams the file through core's importer in chunks, so large traces neither stall the host nor hit V8's string limit. */
  async traceFile(
    uri: vscode.Uri,
    progress?: vscode.Progress<{ message?: string; increment?: number }>,
    token?: vscode.CancellationToken,
  ): Promise<RunResult> {
    const started = performance.now();
    let shown = 0;
    const onProgress = (bytes: number, total: number): void => {
      const percent = total > 0 ? Math.floor((bytes / total) * 100) : 0;
      if (percent <= shown) return;
      progress?.report({
        message: `${(bytes / 2 ** 20).toFixed(0)} of ${(total / 2 ** 20).toFixed(0)} MB`,
        increment: percent - shown,
      });
      shown = percent;
    };
    // Cancelling terminates the worker reading it, so a huge trace is not read on in the background.
    const abort = new AbortController();
    const cancelled = token?.onCancellationRequested(() => abort.abort());
    let loaded: EngineOps['loadTrace']['result'];
    try {
      // Local files stream from disk; other schemes (virtual file systems) can only be read whole through VS Code.
      const args =
        uri.scheme === 'file'
          ? { path: uri.fsPath, name: fileName(uri), userCode: userCodeSetting() }
          : { bytes: await vscode.workspace.fs.readFile(uri), name: fileName(uri), userCode: userCodeSetting() };
      const size = args.bytes?.byteLength ?? (await vscode.workspace.fs.stat(uri)).size;
      loaded = await this.engine('loadTrace', args, {
        subject: fileName(uri),
        timeoutMs: WORKER_LIMITS.traceTimeoutMs(size, workerTimeoutMs()),
        signal: abort.signal,
        onProgress,
      });
    } finally {
      cancelled?.dispose();
    }
    const { trace } = loaded;
    if (loaded.analysisError) this.log.warn(`analysis of ${fileName(uri)} failed: ${loaded.analysisError}`);
    this.log.info(
      `opened ${fileName(uri)} (${trace.meta.source}): ${trace.calls.count} calls, ${trace.ops.count} ops, ${trace.findings.length} findings, ${(performance.now() - started).toFixed(0)} ms`,
    );
    return { trace, title: fileName(uri), origin: trace.meta.source };
  }

  async compute(source: PanelSource, token: vscode.CancellationToken): Promise<RunResult> {
    const uri = vscode.Uri.parse(source.uri);
    if (source.kind === 'simulate') return this.simulate(uri);
    if (source.kind === 'gpu') return this.runOnGpu(uri, token);
    return this.traceFile(uri, undefined, token);
  }

  /** The simulator profile: a built-in name or a profile's JSON, checked by the simulator in the worker. */
  private async profile(): Promise<unknown> {
    const setting = vscode.workspace.getConfiguration('syncscope').get<string>('simulatorProfile', 'h200');
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const ref = resolveProfileSetting(setting, root);
    if ('builtIn' in ref) return ref.builtIn;
    // A profile from the workspace is data that steers timings; only trusted workspaces may set it.
    if (!vscode.workspace.isTrusted) {
      this.log.warn('ignoring syncscope.simulatorProfile in an untrusted workspace; using h200');
      return 'h200';
    }
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(ref.path)));
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw new UserFacingError(`Cannot read the simulator profile ${ref.path}: ${(e as Error).message}`);
    }
  }

  private logRun(uri: vscode.Uri, steps: number, analysis: Analysis, origin: string, started: number): void {
    const blocked = analysis.waits.reduce((s, w) => s + w.blockedNs, 0);
    this.log.info(
      `${origin} run of ${fileName(uri)}: ${steps} steps, ${analysis.waits.length} host waits ` +
        `(${(blocked / 1000).toFixed(1)} us blocked), ${analysis.findings.length} findings, ${(performance.now() - started).toFixed(0)} ms`,
    );
    for (const f of analysis.findings)
      this.log.info(`  ${f.severity} ${f.rule} ${f.kind}${f.source ? ` line ${f.source.line}` : ''}: ${f.message}`);
  }
}

/** How long the worker may spend on a request about a trace already read: longer for a larger trace. */
function traceWorkTimeoutMs(trace: Trace): number {
  return WORKER_LIMITS.traceWorkTimeoutMs(trace.calls.count + trace.ops.count, workerTimeoutMs());
}

/** How long the editor's worker may spend on one request (syncscope.workerTimeoutSeconds). */
function workerTimeoutMs(): number {
  const seconds = vscode.workspace.getConfiguration('syncscope').get<number>('workerTimeoutSeconds');
  return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : WORKER_LIMITS.timeoutMs;
}
