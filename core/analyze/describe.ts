// Words for findings and explanations: what a call or op is called, where it came from.
import type { Program, Step } from '../scenario/program';
import { OP_KINDS, Trace, str } from '../trace/model';
import { HbGraph, lanePrev } from './graph';

/** Whether the trace holds every call of the program: imported profiler traces start mid-run. */
export const holdsEveryCall = (t: Trace): boolean => t.meta.source === 'simulator' || t.meta.source === 'gpu';

export const opName = (t: Trace, op: number): string => str(t, t.ops.name[op]) || OP_KINDS[t.ops.kind[op]];
export const laneName = (t: Trace, lane: number): string => t.lanes[lane]?.name ?? `lane ${lane}`;
export const opStream = (t: Trace, op: number): string => laneName(t, t.ops.lane[op]);

export function callSource(t: Trace, call: number): { line: number; column: number } | undefined {
  return call >= 0 && t.calls.line[call] > 0 ? { line: t.calls.line[call], column: t.calls.column[call] } : undefined;
}

/** " (line 12)" for a call with a scenario position, "" otherwise. */
export function atLine(t: Trace, call: number): string {
  const s = callSource(t, call);
  return s ? ` (line ${s.line})` : '';
}

/** `"produce" on stream side (line 12)` */
export function opLabel(t: Trace, op: number): string {
  return `"${opName(t, op)}" on stream ${opStream(t, op)}${atLine(t, t.ops.call[op])}`;
}

/** A copy or memset call that asked for the asynchronous API (cudaMemcpyAsync, cudaMemsetAsync). */
export function isAsyncCall(t: Trace, call: number, program?: Program): boolean {
  const step = programStep(t, call, program);
  if (step && (step.op === 'copy' || step.op === 'memset')) return step.async;
  return /async/i.test(str(t, t.calls.name[call]));
}

/** The compiled step that made a call, when the trace came from this program. */
export function programStep(t: Trace, call: number, program?: Program): Step | undefined {
  const index = t.calls.step[call];
  if (!program || index < 0) return undefined;
  const thread = program.threads.find((th) => th.name === laneName(t, t.calls.lane[call])) ?? program.threads[0];
  const step = thread?.steps[index];
  return step && step.index === index ? step : thread?.steps.find((s) => s.index === index);
}

/** The op itself, or for an event record or stream wait marker, the real work before it in its stream. */
export function workAt(t: Trace, g: HbGraph, op: number): number {
  const marker = (j: number) => t.ops.kind[j] === OP_KINDS.indexOf('eventRecord') || t.ops.kind[j] === OP_KINDS.indexOf('waitEvent');
  let j = op;
  while (marker(j)) {
    const prev = lanePrev(g, g.calls + j);
    if (prev < 0) return op;
    j = prev - g.calls;
  }
  return j;
}
