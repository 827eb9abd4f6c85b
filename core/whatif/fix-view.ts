// What the editor shows of a simulated fix (docs/whatif.md, "In VS Code"): which findings offer
// "Simulate this fix", the titles of the before and after timelines, and the scenario file's name.
// Pure and free of the simulator, so that the timeline page can import it.
import type { Finding, Trace } from '../trace/model';
import { formatNs } from '../units';

/** The finding kinds fixes.ts has an edit for; test/core/whatif-fix-view.test.ts keeps the two in step. */
export const FIX_EDIT_KINDS: ReadonlySet<string> = new Set([
  'loop-sync',
  'redundant-wait',
  'stale-wait',
  'no-op-wait',
  'pageable-async-copy',
  'hidden-sync',
  'device-wide-wait',
  'race',
  'legacy-serialization',
]);

export const simulatesFix = (f: Finding): boolean => FIX_EDIT_KINDS.has(f.kind);

/** The id `syncscope whatif` and fixes.ts give the finding at `index` of a trace's findings. */
export const fixId = (index: number): string => `F${index + 1}`;

/** A fix's predicted saving (negative: a cost), absent where it cannot apply. */
export interface FixSavingView {
  index: number;
  savedNs?: number;
  isCost: boolean;
}

/**
 * The quick pick's items: each finding that has a fix the simulator runs, in the order of `savings`
 * (largest predicted saving first), with what the fix saves, costs, or that it cannot apply.
 * Findings that were not simulated come last, in the analysis order.
 */
export function rankedFixItems(
  findings: readonly Finding[],
  savings: readonly FixSavingView[],
): { label: string; description: string; detail: string; index: number }[] {
  const byIndex = new Map(savings.map((s) => [s.index, s]));
  const order = [...savings.map((s) => s.index), ...findings.map((_, k) => k)];
  const seen = new Set<number>();
  const out: { label: string; description: string; detail: string; index: number }[] = [];
  for (const index of order) {
    const f = findings[index];
    if (!f || seen.has(index) || !simulatesFix(f)) continue;
    seen.add(index);
    const s = byIndex.get(index);
    const saved = s?.savedNs;
    const description = !s
      ? 'not simulated'
      : saved === undefined
        ? 'cannot apply'
        : s.isCost || saved < 0
          ? `costs ${formatNs(Math.max(0, -saved))}`
          : `saves ${formatNs(saved)}`;
    out.push({ label: `${fixId(index)} ${f.kind}`, description, detail: f.message, index });
  }
  return out;
}

/** What the title needs of a simulated fix (fixes.ts's FixResult). */
export interface FixSummary {
  id: string;
  kind: string;
  isCost: boolean;
  beforeDoneNs: number;
  afterDoneNs: number;
}

/** "What if F2 loop-sync: done 110 ms -> 105 ms (saves 5 ms)"; a race fix, or one that slows the host, says what it costs. */
export function fixTitle(r: FixSummary): string {
  const delta = r.beforeDoneNs - r.afterDoneNs;
  const effect = r.isCost || delta < 0 ? `costs ${formatNs(Math.max(0, -delta))}` : `saves ${formatNs(delta)}`;
  return `What if ${r.id} ${r.kind}: done ${formatNs(r.beforeDoneNs)} -> ${formatNs(r.afterDoneNs)} (${effect})`;
}

/** `run.syncscope.json.gz` -> `run.scenario.json`; with a fix id, `run.F2.scenario.json`. */
export function scenarioFileName(traceFile: string, id?: string): string {
  const base = traceFile
    .replace(/\.gz$/i, '')
    .replace(/\.json$/i, '')
    .replace(/\.(syncscope|pt\.trace|trace)$/i, '');
  return `${base || 'trace'}${id ? `.${id}` : ''}.scenario.json`;
}

/** The time range that holds every call and op of the traces. */
export function sharedRange(...traces: Trace[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of traces) {
    for (let i = 0; i < t.calls.count; i++) {
      lo = Math.min(lo, t.calls.begin[i]);
      hi = Math.max(hi, t.calls.end[i]);
    }
    for (let j = 0; j < t.ops.count; j++) {
      lo = Math.min(lo, t.ops.start[j]);
      hi = Math.max(hi, t.ops.end[j]);
    }
  }
  return lo < hi ? [lo, hi] : [0, 1];
}
