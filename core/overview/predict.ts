// What fixing each finding is predicted to save over the recorded window (docs/overview.md,
// "Predicted savings"): every fix simulated once on the window's scenario (core/whatif/fixes.ts).
// Where the window is too large to simulate that often, its leading iterations stand for it; where
// even two are too many, no fix is simulated and each finding says why.
import type { Analysis } from '../analyze/types';
import type { MemoryBudget } from '../memory';
import type { SimProfile } from '../simulate/profile';
import type { Trace } from '../trace/model';
import { hostCallsIn } from '../whatif/from-trace';
import { savedNs, savedPerIterationNs, whatIf } from '../whatif/fixes';
import { leadingWindow, recordedWindow, scenarioWindowOf, type RecordedWindow } from './window';

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
 * simulations (one per finding with a fix, the unfixed scenario, and the calibration to the plain
 * step's, CALIBRATION_SIMS, where the trace has one). Above it the fixes are simulated over the
 * window's first iterations that fit, and where two do not, not at all, so that a large trace's
 * overview stays within seconds (bench/results/overview.md measures the cost per simulated call);
 * `syncscope whatif --fix` still simulates any one of them over the whole window.
 */
export const PREDICTION_BUDGET_CALLS = 150_000;

/**
 * The calibration to the plain step (core/whatif/calibrate.ts), counted in simulations of the
 * window: its searches ran 10 to 32 simulations on the what-if truth recordings, each about half
 * of a window's cost, so a trace with a plain step costs about this many simulations more.
 */
export const CALIBRATION_SIMS = 15;

export const NO_FIX = 'no fix to simulate';

/** 4000000 -> "4,000,000" */
const formatCount = (n: number): string => n.toLocaleString('en-US');

/** The findings' predictions and what they were predicted over: what the report prints. */
export interface ReportPredictions {
  /** By finding index. */
  list: FindingPrediction[];
  profile: string;
  /** The recorded window's sentence (recordedWindow), and the part simulated where not all of it. */
  window: string;
}

/** Each finding's prediction, by its index in the analysis, and the window it was simulated over. */
export interface Predicted {
  list: FindingPrediction[];
  /** The recorded window, or its leading iterations where simulating all of it exceeds the budget. */
  over: RecordedWindow;
  /** Why only the leading iterations were simulated, where they were. */
  overWhy?: string;
}

/** The predictions over the trace's recorded window, found here unless given. */
export function windowPredictions(
  t: Trace,
  analysis: Analysis,
  profile: SimProfile,
  memory?: MemoryBudget,
  rw: RecordedWindow = recordedWindow(t),
): ReportPredictions {
  const { list, over, overWhy } = predictSavings(t, analysis, profile, rw, memory);
  const window = overWhy ? `${over.summary.text} (${rw.summary.text}): ${overWhy}` : rw.summary.text;
  return { list, profile: profile.name, window };
}

/**
 * The leading iterations of the window whose simulations fit the budget, at least two (the pace
 * after the first iteration needs a second); undefined where two do not fit.
 */
function fittingWindow(
  t: Trace,
  rw: RecordedWindow,
  calls: number,
  sims: number,
  budgetCalls: number,
): RecordedWindow | undefined {
  if (rw.summary.detectedBy === 'none' || rw.spans.length < 2) return undefined;
  let n = rw.spans.length;
  let lead = rw;
  // Iterations differ in length: shrink by the ratio of cost to budget until it fits.
  for (let tries = 0; tries < 8 && calls * sims > budgetCalls; tries++) {
    n = Math.min(n - 1, Math.floor((n * budgetCalls) / (calls * sims)));
    if (n < 2) return undefined;
    lead = leadingWindow(rw, n);
    calls = hostCallsIn(t, scenarioWindowOf(lead)).count;
  }
  return calls * sims > budgetCalls ? undefined : lead;
}

/** The window simulations a prediction run costs: one per finding with a fix, the unfixed one, the calibration's. */
export const simulationsFor = (t: Trace, analysis: Analysis): number =>
  analysis.findings.filter((f) => f.fix).length + 1 + (t.meta.plainStep !== undefined ? CALIBRATION_SIMS : 0);

/** Each finding's prediction, by its index in the analysis, over the window or its leading iterations. */
export function predictSavings(
  t: Trace,
  analysis: Analysis,
  profile: SimProfile,
  rw: RecordedWindow,
  memory?: MemoryBudget,
  budgetCalls = PREDICTION_BUDGET_CALLS,
): Predicted {
  const fixable = analysis.findings.filter((f) => f.fix).length;
  const out: FindingPrediction[] = analysis.findings.map((f) => ({
    isCost: f.kind === 'race',
    ...(f.fix ? {} : { noSaving: NO_FIX }),
  }));
  if (!fixable) return { list: out, over: rw };
  const calls = hostCallsIn(t, scenarioWindowOf(rw)).count;
  const skip = (why: string) => {
    for (const p of out) p.noSaving ??= why;
    return { list: out, over: rw };
  };
  if (!calls) return skip('not simulated: the window has no host calls');
  const calibrates = t.meta.plainStep !== undefined;
  const sims = simulationsFor(t, analysis);
  const exceeds =
    `${formatCount(sims)} simulations of the window's ${formatCount(calls)} host calls ` +
    (calibrates ? `(${CALIBRATION_SIMS} of them for the calibration to the plain step) ` : '') +
    `exceed the budget of ${formatCount(budgetCalls)} simulated calls`;
  const over = calls * sims > budgetCalls ? fittingWindow(t, rw, calls, sims, budgetCalls) : rw;
  if (!over) return skip(`not simulated: ${exceeds} (syncscope whatif --fix simulates one)`);
  let results;
  try {
    results = whatIf(t, profile, 'all', undefined, analysis, memory, over);
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
  return over === rw
    ? { list: out, over }
    : { list: out, over, overWhy: `${exceeds} (syncscope whatif --fix simulates one over all of it)` };
}
