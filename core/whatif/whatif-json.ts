// `syncscope whatif --json` (media/schema/whatif.schema.json): each finding's fix, ranked by predicted
// saving, with its edit, the host and GPU time before and after, the saving over the window and per
// iteration, the trace overhead model it used, or why it cannot apply (docs/whatif.md).
import { rankedBySaving, savedNs, savedPerIterationNs, type FixResult, type Outcome } from './fixes';
import type { OverheadUsed } from './overhead';

export interface FixJson {
  id: string;
  /** 1 for the largest predicted saving. */
  rank: number;
  rule: string;
  kind: string;
  message: string;
  calls: number[];
  applies: boolean;
  /** What the edit does; where it cannot apply, why. */
  edit: string;
  before: Outcome;
  after: Outcome | null;
  /** Host time saved over the window; negative for a fix that costs time (a race fix adds a wait). */
  savedNs: number | null;
  savedPerIterationNs: number | null;
  /** The time per iteration after the first, before and after the fix, that savedPerIterationNs is read from; null where it is the saving shared over the iterations. */
  pace: { beforeNs: number; afterNs: number } | null;
  isCost: boolean;
  waits: { call: number; name: string; beforeNs: number; afterNs: number | null }[];
  overhead: OverheadUsed;
}

export interface WhatIfJson {
  trace: string;
  profile: string;
  /** The loop iterations the window holds (0: no loop found), over which savedPerIterationNs is shared. */
  iterations: number;
  overhead: OverheadUsed | null;
  fixes: FixJson[];
}

export function whatIfJson(results: FixResult[], o: { file: string; profile: string }): WhatIfJson {
  const ranked = rankedBySaving(results);
  return {
    trace: o.file,
    profile: o.profile,
    iterations: results[0]?.iterations ?? 0,
    overhead: results[0]?.overhead ?? null,
    fixes: ranked.map((r, k) => ({
      id: r.id,
      rank: k + 1,
      rule: r.finding.rule,
      kind: r.finding.kind,
      message: r.finding.message,
      calls: r.finding.calls,
      applies: r.applied,
      edit: r.edit,
      before: r.before,
      after: r.after ?? null,
      savedNs: savedNs(r) ?? null,
      savedPerIterationNs: savedPerIterationNs(r) ?? null,
      pace: r.pace ?? null,
      isCost: r.isCost,
      waits: r.waits.map((w) => ({ call: w.call, name: w.name, beforeNs: w.beforeNs, afterNs: w.afterNs ?? null })),
      overhead: r.overhead,
    })),
  };
}
