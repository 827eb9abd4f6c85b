// Pairs the host waits of two runs of the same work (GPU and simulator, or two saved traces) and
// says how long each blocked in each. Waits pair by scenario step when both runs came from a
// scenario, otherwise by their order among waits of the same kind on the same thread.
import { releasedByText } from '../../core/analyze/describe';
import type { WaitExplanation } from '../../core/analyze/types';

export interface WaitPair {
  key: string;
  a?: WaitExplanation;
  b?: WaitExplanation;
  /** b.blockedNs - a.blockedNs, when both exist. */
  deltaNs?: number;
}

function keys(waits: readonly WaitExplanation[]): string[] {
  const seen = new Map<string, number>();
  return waits.map((w) => {
    const base = w.source ? `line ${w.source.line}` : `${w.thread} ${w.kind} ${w.target}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return `${base} #${n}`;
  });
}

export function pairWaits(a: readonly WaitExplanation[], b: readonly WaitExplanation[]): WaitPair[] {
  const out = new Map<string, WaitPair>();
  keys(a).forEach((k, i) => out.set(k, { key: k, a: a[i] }));
  keys(b).forEach((k, i) => {
    const p = out.get(k) ?? { key: k };
    p.b = b[i];
    if (p.a) p.deltaNs = b[i].blockedNs - p.a.blockedNs;
    out.set(k, p);
  });
  return [...out.values()];
}

const us = (ns: number | undefined): string => (ns === undefined ? '' : (ns / 1000).toFixed(1));
const released = (w: WaitExplanation | undefined): string => (w ? releasedByText(w.releasedBy) : '');

/** A Markdown report: one row per wait, blocked time in each run, and the op that released it. */
export function compareMarkdown(titleA: string, titleB: string, pairs: readonly WaitPair[]): string {
  const cell = (s: string): string => s.replace(/\|/g, '\\|');
  const rows = pairs.map((p) => {
    const w = p.a ?? p.b;
    const what = w ? `${w.kind} ${w.target}` : '';
    return `| ${cell(p.key)} | ${cell(what)} | ${us(p.a?.blockedNs)} | ${us(p.b?.blockedNs)} | ${us(p.deltaNs)} | ${cell(released(p.a))} | ${cell(released(p.b))} |`;
  });
  return [
    `# Host waits: ${titleA} vs ${titleB}`,
    '',
    `| wait | what | blocked A (us) | blocked B (us) | B - A (us) | released A | released B |`,
    `| --- | --- | ---: | ---: | ---: | --- | --- |`,
    ...rows,
    '',
    `A: ${titleA}  `,
    `B: ${titleB}`,
    '',
  ].join('\n');
}
