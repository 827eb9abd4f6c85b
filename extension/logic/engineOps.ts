// The requests the extension sends to its worker thread (worker.ts), and what each answers.
import type { UserCode } from '../../core/import/python-sites';
import type { Analysis } from '../../core/analyze/types';
import { HOSTILE_BUDGET } from '../../core/scenario/kinds';
import type { TraceFileFormat } from '../../core/import';
import type { Program } from '../../core/scenario/program';
import type { Overview } from '../../core/overview/types';
import type { Trace } from '../../core/trace/model';
import type { FixSavingView } from '../../core/whatif/fix-view';
import type { PositionedError } from './problems';
import type { Answer } from '../../core/agent/answer';

export interface ScenarioResult {
  errors: PositionedError[];
  /** Absent when the scenario does not compile. */
  stepCount?: number;
  /** Absent when it does not compile, or has more steps than `simulateUpTo`. */
  trace?: Trace;
  analysis?: Analysis;
}

/** One fix simulated: the replayed (unfixed) trace and the fixed one as one trace, or why it cannot apply. */
export interface WhatIfResult {
  id: string;
  kind: string;
  /** What the edit does, or why it cannot apply. */
  edit: string;
  applied: boolean;
  isCost: boolean;
  beforeDoneNs: number;
  afterDoneNs: number;
  /** Both simulations on one time axis, each lane beside its twin, the saved time marked (core/whatif/before-after.ts). */
  both?: Trace;
  /** The fixed scenario's text. */
  scenario?: string;
}

export interface EngineOps {
  /** Parse, then simulate and analyse when it compiles with at most `simulateUpTo` steps. */
  scenario: {
    args: { text: string; file: string; profile: unknown; simulateUpTo: number };
    result: ScenarioResult;
  };
  parse: { args: { text: string; file: string }; result: { program?: Program; errors: PositionedError[] } };
  analyze: { args: { trace: Trace; program?: Program }; result: Analysis };
  /** A trace file by path, or its bytes (a virtual file system), imported and analysed: its findings on the trace. */
  loadTrace: {
    args: { path?: string; bytes?: Uint8Array; name: string; userCode?: UserCode };
    result: { trace: Trace; analysisError?: string };
  };
  sniff: { args: { path?: string; bytes?: Uint8Array }; result: TraceFileFormat | undefined };
  chrome: { args: { trace: Trace }; result: string };
  /** Simulates the fix of the finding at `finding` of the trace's findings (docs/whatif.md). */
  whatIf: { args: { trace: Trace; profile: unknown; finding: number }; result: WhatIfResult };
  /** The trace's overview (docs/overview.md): its window, host and GPU time, lines and findings ranked by predicted saving. */
  overview: { args: { trace: Trace; profile: unknown }; result: Overview };
  /** Every fix the simulator can run, simulated: each finding's predicted saving, for ranking them (docs/whatif.md). */
  fixSavings: { args: { trace: Trace; profile: unknown }; result: FixSavingView[] };
  /** The trace written as a scenario. */
  scenarioText: { args: { trace: Trace; profile: unknown }; result: string };
  /** A language-model tool's arguments checked against its input schema (core/agent/schemas.ts): as the schema reads them. */
  agentCheck: { args: { tool: string; input: unknown }; result: Record<string, unknown> };
  /** A tool that reads a trace, answered over `trace` (core/agent/tools.ts); `path` names it, `root` is where its source lines are read. */
  agentAnswer: {
    args: { tool: string; input: unknown; path: string; trace: Trace; analysis?: Analysis; root?: string };
    result: Answer;
  };
  /** What a tool that ran a program answers about the trace it wrote, at `path`. */
  agentRunAnswer: {
    args: { trace: Trace; analysis?: Analysis; path: string; failure?: string; output: string };
    result: Answer;
  };
}
export type OpName = keyof EngineOps;

/** Limits per request; docs/extension.md explains them. */
export const WORKER_LIMITS = {
  memoryMb: 1024,
  concurrency: 2,
  /** Parsing, simulating and analysing a scenario, analysing or exporting a trace (the default of syncscope.workerTimeoutSeconds). */
  timeoutMs: 20_000,
  /** Importing a trace file: as long, plus a second per 10 MB, so that a large genuine trace still opens. */
  traceTimeoutMs: (bytes: number, baseMs = 20_000): number => baseMs + Math.ceil(bytes / 10_000_000) * 1000,
  /**
   * Work on a trace already read (its analysis, overview, a fix's simulation, an export): as long,
   * plus a second per 100,000 calls and ops, since each walks them at least once.
   */
  traceWorkTimeoutMs: (rows: number, baseMs = 20_000): number => baseMs + Math.ceil(rows / 100_000) * 1000,
  /** How far a scenario may unroll: the editor parses whatever file is open, on every edit. */
  scenario: HOSTILE_BUDGET,
};
