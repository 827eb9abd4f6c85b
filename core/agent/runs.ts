// What the tools that run a program (`profile`, `capture`) answer, for both adapters: the trace's
// path, its wait and finding counts and metrics, the failure where the program failed after it was
// recorded, and the end of the program's output, which is where errors are. The adapters run it.
import { waitCount, type Report } from '../report';
import { clip, textOf, type Answer } from './answer';
import { ToolError } from './input';
import type * as z from 'zod';
import type { OUTPUTS } from './schemas';

export type RunOut = z.infer<typeof OUTPUTS.run>;

/** How much of the program's output an answer keeps: its end. */
export const OUTPUT_TAIL = 4000;

/** Collects a program's output as it comes, keeping its end. */
export function outputKeeper() {
  let kept = '';
  return {
    add: (text: string) => void (kept = (kept + text).slice(-2 * OUTPUT_TAIL)),
    get text() {
      return kept.length > OUTPUT_TAIL ? '…' + kept.slice(-OUTPUT_TAIL) : kept;
    },
  };
}

/** A run that left no trace: its reason, and the end of the program's output. */
export class RunError extends ToolError {
  constructor(reason: string, output: string) {
    super(output ? `${reason}\nthe end of the program's output:\n${output}` : reason);
  }
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** A run that wrote `trace` (an absolute path): its counts from `report`, and the program's failure and output. */
export function runAnswer(trace: string, report: Report, failure: string | undefined, output: string): Answer<RunOut> {
  const data: RunOut = {
    trace,
    failure: failure === undefined ? undefined : clip(failure, 2000),
    output,
    metrics: report.metrics,
    waits: waitCount(report),
    findings: report.findings.length,
  };
  const text = [
    `trace written to ${trace}: ${count(data.waits, 'host wait')}, ${count(data.findings, 'finding')} (the waits, findings and report tools take this path)`,
    ...(failure ? [failure] : []),
    ...(output ? ["the end of the program's output:", ...output.trimEnd().split('\n')] : []),
  ];
  return { text: textOf(text), data };
}
