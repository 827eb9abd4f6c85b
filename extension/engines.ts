// The one place the extension reaches into core's executors, analyses and converters, so the rest
// of extension/ speaks in Traces and Problems only.
import { analyze } from '../core/analyze';
import type { Analysis } from '../core/analyze/types';
import { parseScenario } from '../core/scenario/parse';
import type { Program } from '../core/scenario/program';
import { loadProfile, simulate, type SimProfile } from '../core/simulate';
import { importPytorch } from '../core/import/pytorch';
import { traceToChrome } from '../core/export/chrome';
import { parseTrace } from '../core/trace/json';
import type { Trace } from '../core/trace/model';
import type { PositionedError } from './logic/problems';

export interface Parsed {
  program?: Program;
  errors: PositionedError[];
}

export const parseScenarioText = (text: string, file: string): Parsed => parseScenario(text, file);

export const simulateProgram = (program: Program, profile: SimProfile): Trace =>
  simulate(program, profile);

/** A profile JSON (already parsed) or a built-in profile's name, checked by the simulator. */
export const loadSimulatorProfile = (spec: unknown): SimProfile => loadProfile(spec);
export type { SimProfile };

export const analyzeTrace = (trace: Trace, program?: Program): Analysis => analyze(trace, { program });

export function loadTraceText(text: string, kind: 'syncscope' | 'profiler' | 'unknown'): Trace {
  if (kind === 'syncscope') return parseTrace(text);
  if (kind === 'profiler') return importPytorch(text);
  throw new Error('this is neither a Syncscope trace nor a profiler trace (no "format" or "traceEvents" near the start)');
}

export const chromeTraceJson = (trace: Trace): string => traceToChrome(trace);
