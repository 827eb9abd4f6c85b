// Turns a scenario or a trace file into a Trace, with progress, cancellation, the log, and the
// Problems panel kept in step. Every timeline (panel, custom editor, restored panel) comes here.
import * as vscode from 'vscode';
import type { Analysis } from '../core/analyze/types';
import type { Program } from '../core/scenario/program';
import type { Trace } from '../core/trace/model';
import { chooseBackend, parseBackendSetting } from './logic/backend';
import { resolveProfileSetting } from './logic/profileSetting';
import type { PanelSource } from './logic/restore';
import type { SimProfile } from './engines';
import { engines } from './loadEngines';
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

  /** Parses and updates the Problems panel; throws when the scenario does not compile. */
  async program(uri: vscode.Uri): Promise<{ program: Program; text: string }> {
    const text = await this.text(uri);
    const parsed = engines().parseScenarioText(text, fileName(uri));
    if (!parsed.program || parsed.errors.length) {
      this.diagnostics.set(uri, text, parsed.errors, []);
      const first = parsed.errors[0];
      throw new UserFacingError(
        `${fileName(uri)} has ${parsed.errors.length} error(s)${first ? `; first at line ${first.line}: ${first.detail}` : ''}`,
      );
    }
    return { program: parsed.program, text };
  }

  /** `quiet` for the background checks while typing: the log records only runs the user asked for. */
  async simulate(uri: vscode.Uri, quiet = false): Promise<RunResult> {
    const { program, text } = await this.program(uri);
    const started = performance.now();
    const trace = engines().simulateProgram(program, await this.profile());
    return this.finish(uri, text, program, trace, 'simulator', started, quiet);
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
      return this.finish(uri, text, program, trace, probe.name, started);
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
    // Cancelling stops the read at its next chunk, so a huge trace is not read on in the background.
    const abort = new AbortController();
    const cancelled = token?.onCancellationRequested(() => abort.abort(new vscode.CancellationError()));
    let trace: Trace;
    try {
      // Local files stream from disk; other schemes (virtual file systems) can only be read whole through VS Code.
      trace =
        uri.scheme === 'file'
          ? await engines().loadTrace(uri.fsPath, onProgress, abort.signal)
          : await engines().loadTraceBytes(
              await vscode.workspace.fs.readFile(uri),
              fileName(uri),
              onProgress,
              abort.signal,
            );
    } finally {
      cancelled?.dispose();
    }
    let analysis: Analysis | undefined;
    try {
      analysis = engines().analyzeTrace(trace);
      trace.findings = analysis.findings;
    } catch (e) {
      this.log.warn(`analysis of ${fileName(uri)} failed: ${(e as Error).message}`);
    }
    this.log.info(
      `opened ${fileName(uri)} (${trace.meta.source}): ${trace.calls.count} calls, ${trace.ops.count} ops, ${trace.findings.length} findings, ${(performance.now() - started).toFixed(0)} ms`,
    );
    return { trace, analysis, title: fileName(uri), origin: trace.meta.source };
  }

  async compute(source: PanelSource, token: vscode.CancellationToken): Promise<RunResult> {
    const uri = vscode.Uri.parse(source.uri);
    if (source.kind === 'simulate') return this.simulate(uri);
    if (source.kind === 'gpu') return this.runOnGpu(uri, token);
    return this.traceFile(uri, undefined, token);
  }

  private async profile(): Promise<SimProfile> {
    const setting = vscode.workspace.getConfiguration('syncscope').get<string>('simulatorProfile', 'h200');
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const ref = resolveProfileSetting(setting, root);
    if ('builtIn' in ref) return engines().loadSimulatorProfile(ref.builtIn);
    // A profile from the workspace is data that steers timings; only trusted workspaces may set it.
    if (!vscode.workspace.isTrusted) {
      this.log.warn('ignoring syncscope.simulatorProfile in an untrusted workspace; using h200');
      return engines().loadSimulatorProfile('h200');
    }
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(ref.path)));
      return engines().loadSimulatorProfile(JSON.parse(text));
    } catch (e) {
      throw new UserFacingError(`Cannot read the simulator profile ${ref.path}: ${(e as Error).message}`);
    }
  }

  private finish(
    uri: vscode.Uri,
    text: string,
    program: Program,
    trace: Trace,
    origin: string,
    started: number,
    quiet = false,
  ): RunResult {
    const analysis = engines().analyzeTrace(trace, program);
    trace.findings = analysis.findings;
    this.diagnostics.set(uri, text, [], analysis.findings);
    const blocked = analysis.waits.reduce((s, w) => s + w.blockedNs, 0);
    if (quiet) return { trace, analysis, title: fileName(uri), origin };
    this.log.info(
      `${origin} run of ${fileName(uri)}: ${program.stepCount} steps, ${analysis.waits.length} host waits ` +
        `(${(blocked / 1000).toFixed(1)} us blocked), ${analysis.findings.length} findings, ${(performance.now() - started).toFixed(0)} ms`,
    );
    for (const f of analysis.findings)
      this.log.info(`  ${f.severity} ${f.rule} ${f.kind}${f.source ? ` line ${f.source.line}` : ''}: ${f.message}`);
    return { trace, analysis, title: fileName(uri), origin };
  }
}
