// What fixing each finding is predicted to save over the recorded window (docs/overview.md,
// "Predicted savings"): every fix simulated once on the window's scenario (core/whatif/fixes.ts),
// unless the window is too large to simulate that often, which the finding then says.
import type { Analysis } from '../analyze/types';
import type { MemoryBudget } from '../memory';
import type { SimProfile } from '../simulate/profile';
import type { Trace } from '../trace/model';
import { hostCallsIn } from '../whatif/from-trace';
import { savedNs, savedPerIterationNs, whatIf } from '../whatif/fixes';
import { recordedWindow, scenarioWindowOf, type RecordedWindow } from './window';

export interface FindingPrediction {
  /** Host time the fix saves over the window; negative where it costs time. */
  predictedSavingNs?: number;
  /** The saving over each iteration the window spans; absent where no iterations were found. */
  perIterationNs?: number;
  /** Why there is no prediction. */
  noSaving?: string;
  /** A race fix adds a wait: its figure is a cost. */
  isCost: boolean;
  /** What the simulated edit did. */
  edit?: string;
}

/**
 * The most simulated host calls a prediction run may take: the window's host calls times the
 * simulations (one per finding with a fix, and the unfixed scenario). Above it no fix is simulated,
 * so that a large trace's overview stays within seconds (bench/results/overview.md measures the
 * cost per simulated call); `syncscope whatif --fix` still simulates any one of them.
 */
export const PREDICTION_BUDGET_CALLS = 150_000;

export const NO_FIX = 'no fix to simulate';

/** 4000000 -> "4,000,000" */
const formatCount = (n: number): string => n.toLocaleString('en-US');

/** The findings' predictions and what they were predicted over: what the report prints. */
export interface ReportPredictions {
  /** By finding index. */
  list: FindingPrediction[];
  profile: string;
  /** The recorded window's sentence (recordedWindow). */
  window: string;
}

/** The predictions over the trace's recorded window, found here unless given. */
export function windowPredictions(
  t: Trace,
  analysis: Analysis,
  profile: SimProfile,
  memory?: MemoryBudget,
  rw: RecordedWindow = recordedWindow(t),
): ReportPredictions {
  return { list: predictSavings(t, analysis, profile, rw, memory), profile: profile.name, window: rw.summary.text };
}

/** Each finding's prediction, by its index in the analysis. */
export function predictSavings(
  t: Trace,
  analysis: Analysis,
  profile: SimProfile,
  rw: RecordedWindow,
  memory?: MemoryBudget,
  budgetCalls = PREDICTION_BUDGET_CALLS,
): FindingPrediction[] {
  const fixable = analysis.findings.filter((f) => f.fix).length;
  const out: FindingPrediction[] = analysis.findings.map((f) => ({
    isCost: f.kind === 'race',
    ...(f.fix ? {} : { noSaving: NO_FIX }),
  }));
  if (!fixable) return out;
  const w = scenarioWindowOf(rw);
  const calls = hostCallsIn(t, w).count;
  const skip = (why: string) => {
    for (const p of out) p.noSaving ??= why;
    return out;
  };
  if (!calls) return skip('not simulated: the window has no host calls');
  const cost = calls * (fixable + 1);
  if (cost > budgetCalls)
    return skip(
      `not simulated: ${formatCount(fixable + 1)} simulations of the window's ${formatCount(calls)} host calls ` +
        `exceed the budget of ${formatCount(budgetCalls)} simulated calls (syncscope whatif --fix simulates one)`,
    );
  let results;
  try {
    results = whatIf(t, profile, 'all', undefined, analysis, memory, rw);
  } catch (e) {
    return skip(`not simulated: ${(e as Error).message}`);
  }
  for (const r of results) {
    const p = out[Number(r.id.slice(1)) - 1];
    const saved = savedNs(r);
    p.edit = r.edit;
    if (saved === undefined) {
      p.noSaving = r.edit;
      continue;
    }
    p.predictedSavingNs = saved;
    const each = savedPerIterationNs(r);
    if (each !== undefined) p.perIterationNs = each;
  }
  return out;
}
