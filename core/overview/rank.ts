// The one order of findings by what fixing them is predicted to save (docs/overview.md, "Ranking"):
// the overview, the report's text, the Problems panel, the timeline's findings list and the MCP
// server's `findings` tool all list findings in this order. Their ids stay F1..Fn, the analysis order.
import type { Severity } from '../trace/model';
import { formatNs } from '../units';

const BY_SEVERITY: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export interface Rankable {
  /** The finding's index in the analysis: F(index + 1). */
  index: number;
  severity: Severity;
  /** Negative where the fix costs host time. */
  predictedSavingNs?: number;
  /** The same per iteration of the window's loop, where it holds one: the figure every list shows. */
  perIterationNs?: number;
}

/**
 * Findings with a predicted saving first, the largest first (a cost counts as a negative saving, so
 * it comes after every saving); then those without one, errors before warnings before infos. Ties
 * keep the analysis order. Savings compare per iteration where every one has that figure (the
 * window holds a loop), since that is what the program saves each step once it runs; else over the
 * window.
 */
export function rankFindings<T extends Rankable>(items: readonly T[]): T[] {
  const perIteration = items.every((i) => i.predictedSavingNs === undefined || i.perIterationNs !== undefined);
  const saving = (i: T) => (perIteration && i.predictedSavingNs !== undefined ? i.perIterationNs : i.predictedSavingNs);
  return [...items].sort((a, b) => {
    const x = saving(a);
    const y = saving(b);
    if (x !== undefined && y !== undefined && x !== y) return y - x;
    if ((x === undefined) !== (y === undefined)) return x === undefined ? 1 : -1;
    if (x === undefined && a.severity !== b.severity) return BY_SEVERITY[a.severity] - BY_SEVERITY[b.severity];
    return a.index - b.index;
  });
}

/** `predicted saving 14.4 ms (1.6 ms per iteration)`; a negative saving is the fix's cost. */
export function savingText(ns: number, perIterationNs?: number): string {
  const each = perIterationNs === undefined ? '' : ` (${formatNs(Math.abs(perIterationNs))} per iteration)`;
  return ns >= 0 ? `predicted saving ${formatNs(ns)}${each}` : `the fix costs ${formatNs(-ns)} more host time${each}`;
}
