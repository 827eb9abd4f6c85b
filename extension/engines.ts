// The one place the extension reaches into core's executors, analyses and converters, so the rest
// of extension/ speaks in Traces and Problems only.
import type { UserCode } from '../core/import/python-sites';
import { analyze } from '../core/analyze';
import type { Analysis } from '../core/analyze/types';
import { parseScenario } from '../core/scenario/parse';
import type { Program } from '../core/scenario/program';
import { loadProfile, simulate, type SimProfile } from '../core/simulate';
import { sniffFormat, type TraceFileFormat } from '../core/import';
import { importTraceBytes, loadTraceFile, readTraceHead, saveTraceFile, traceHeadOfBytes } from '../node/trace-file';
import { captureTrace, type CaptureRequest, type CaptureResult } from '../node/capture-process';
import { processMemoryBudget } from '../node/memory-limits';
import { buildOverview } from '../core/overview/build';
import type { Overview } from '../core/overview/types';
import { buildReport, formatReport } from '../core/report';
import { traceToChrome } from '../core/export/chrome';
import type { Trace } from '../core/trace/model';
import { rankedBySaving, savedNs, whatIf } from '../core/whatif/fixes';
import { beforeAndAfter } from '../core/whatif/before-after';
import { fixId, type FixSavingView } from '../core/whatif/fix-view';
import { replayableScenario } from '../core/whatif/fit';
import type { Answer } from '../core/agent/answer';
import { parseToolInput, ToolError } from '../core/agent/input';
import { runAnswer } from '../core/agent/runs';
import { EDITOR_INPUTS, READ_TOOLS, type ReadToolName, type ToolName } from '../core/agent/schemas';
import { toolSubject } from '../core/agent/subject';
import { readToolAnswer } from '../core/agent/tools';
import { sourceTextReader } from '../node/source-text';
import type { PositionedError } from './logic/problems';
import { WORKER_LIMITS, type WhatIfResult } from './logic/engineOps';
import { useNativeGraph } from '../node/native-kineto';

// The analyses here build their happens-before graphs natively where the trace addon loads.
useNativeGraph();

export interface Parsed {
  program?: Program;
  errors: PositionedError[];
}

export const parseScenarioText = (text: string, file: string): Parsed =>
  parseScenario(text, file, WORKER_LIMITS.scenario);

// The worker checks what it allocates against what its process may still use, as the CLI does.
export const simulateProgram = (program: Program, profile: SimProfile): Trace =>
  simulate(program, profile, processMemoryBudget());

/** A profile JSON (already parsed) or a built-in profile's name, checked by the simulator. */
export const loadSimulatorProfile = (spec: unknown): SimProfile => loadProfile(spec);
export type { SimProfile };

export const analyzeTrace = (trace: Trace, program?: Program): Analysis =>
  analyze(trace, { program, memory: processMemoryBudget() });

/** Streams a trace file (any format core reads, gzipped or not) through its importer. */
export const loadTrace = (
  path: string,
  onProgress?: (bytes: number, total: number) => void,
  signal?: AbortSignal,
  userCode?: UserCode,
): Promise<Trace> => loadTraceFile(path, onProgress, signal, userCode);

/** For files the extension host cannot open by path (a virtual file system): the bytes, read by VS Code. */
export const loadTraceBytes = (
  bytes: Uint8Array,
  name: string,
  onProgress?: (bytes: number, total: number) => void,
  signal?: AbortSignal,
  userCode?: UserCode,
): Promise<Trace> => importTraceBytes(bytes, name, onProgress, signal, userCode);

/** The format core would read the file as, from its first bytes (decompressed when gzipped). */
export const sniffTraceFile = async (path: string): Promise<TraceFileFormat | undefined> =>
  sniffFormat(await readTraceHead(path));
export const sniffTraceBytes = async (bytes: Uint8Array): Promise<TraceFileFormat | undefined> =>
  sniffFormat(await traceHeadOfBytes(bytes));

export const chromeTraceJson = (trace: Trace): string => traceToChrome(trace);

/** Runs a program under the capture library and converts what it recorded, as `syncscope capture` does. */
export const capture = (req: CaptureRequest): Promise<CaptureResult> => captureTrace(req);

/** Saves a trace with its findings, as the CLI's --out does, and returns the report the CLI prints. */
export async function saveAnalyzedTrace(trace: Trace, path: string, name: string): Promise<string> {
  const analysis = analyze(trace);
  trace.findings = analysis.findings;
  await saveTraceFile(trace, path);
  return formatReport(buildReport(trace, analysis), { file: name });
}

/** The trace as a scenario (core/whatif/from-trace.ts), as `syncscope scenario` writes it. */
export const scenarioOfTrace = (trace: Trace, profile: SimProfile): string =>
  replayableScenario(trace, profile).scenario.text;

/** The trace's overview, its findings those its analysis finds now (as the timeline lists them). */
export function overviewOf(trace: Trace, profile: SimProfile): Overview {
  const memory = processMemoryBudget();
  return buildOverview(trace, analyze(trace, { memory }), profile, { memory });
}

/** A simulated trace with its findings, as the timeline of a scenario shows it. */
function analysed(trace: Trace): Trace {
  trace.findings = analyze(trace).findings;
  return trace;
}

/**
 * The fix of the trace's finding at `index` (docs/whatif.md): the replayed scenario and the fixed
 * one, both simulated over the recorded window, as one trace on one time axis with the saved time marked;
 * a fix that cannot apply comes back with its reason only.
 */
export function simulateFix(trace: Trace, profile: SimProfile, index: number): WhatIfResult {
  const expected = trace.findings[index];
  const [r] = whatIf(trace, profile, [fixId(index)]);
  // The trace's findings are those of its analysis, in the same order; a trace whose stored findings differ is said so.
  if (!r || !expected || r.finding.rule !== expected.rule || r.finding.kind !== expected.kind)
    throw new Error(`the trace's finding ${fixId(index)} is not the one its analysis finds now; open the trace again`);
  const summary = {
    id: r.id,
    kind: r.finding.kind,
    edit: r.edit,
    applied: r.applied,
    isCost: r.isCost,
    beforeDoneNs: r.before.doneNs,
    afterDoneNs: r.after?.doneNs ?? r.before.doneNs,
  };
  if (!r.applied || !r.scenario || !r.simulated) return summary;
  // Each run is analysed alone: together, their ops would look unordered against each other.
  const both = beforeAndAfter(analysed(r.simulated.before), analysed(r.simulated.after), r.id);
  return { ...summary, both, scenario: r.scenario };
}

/** Each finding's fix simulated over the recorded window, largest predicted saving first (ids: the findings' order). */
export function fixSavings(trace: Trace, profile: SimProfile): FixSavingView[] {
  return rankedBySaving(whatIf(trace, profile, 'all')).map((r) => ({
    index: parseInt(r.id.slice(1), 10) - 1,
    ...(savedNs(r) !== undefined ? { savedNs: savedNs(r) } : {}),
    isCost: r.isCost,
  }));
}

const isTool = (name: string): name is ToolName => Object.hasOwn(EDITOR_INPUTS, name);
const isReadTool = (name: string): name is ReadToolName => (READ_TOOLS as readonly string[]).includes(name);

/** A language-model tool's arguments as its schema reads them, or a ToolError naming each wrong one. */
export function checkToolInput(tool: string, input: unknown): Record<string, unknown> {
  if (!isTool(tool)) throw new ToolError(`no tool "${tool}"; the tools are ${Object.keys(EDITOR_INPUTS).join(', ')}`);
  return parseToolInput(tool, EDITOR_INPUTS[tool], input);
}

/** The answer of a tool that reads a trace (core/agent/tools.ts), as `syncscope mcp` gives it. */
export function answerReadTool(
  tool: string,
  input: unknown,
  path: string,
  trace: Trace,
  analysis?: Analysis,
  root?: string,
): Answer {
  if (!isReadTool(tool)) throw new ToolError(`${tool} does not read a trace`);
  const args = { ...parseToolInput(tool, EDITOR_INPUTS[tool], input), path };
  const code = sourceTextReader(root ?? process.cwd());
  return readToolAnswer(tool, toolSubject(trace, undefined, analysis ?? analyze(trace)), args, code);
}

/** What a tool that ran a program answers about the trace it wrote. */
export function answerRun(
  trace: Trace,
  path: string,
  failure: string | undefined,
  output: string,
  analysis?: Analysis,
): Answer {
  return runAnswer(path, buildReport(trace, analysis ?? analyze(trace)), failure, output);
}
