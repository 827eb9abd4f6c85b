// The what-if truth benchmark's pure parts (bench/whatif-truth.bench.ts): the recorded timings and
// the manifest read with errors that say what is wrong, the measured saving (median buggy less median
// fixed), the predictions of the findings of a program's fix kind, and the error.
import { median } from '../core/stats';

export interface MeasuredProgram {
  /** iter_ns of each plain run of the buggy program. */
  buggy: number[];
  /** iter_ns of each plain run of the fixed program. */
  fixed: number[];
  failedRuns: string[];
}

export interface Measured {
  recordedWith: string;
  /** The arguments the plain runs were timed with (record.sh's TIME_ITERS may time more steps than recordArgs); older recordings do not say. */
  timedWith?: string[];
  programs: Record<string, MeasuredProgram>;
}

export interface ManifestProgram {
  name: string;
  /** Finding kinds whose fix is this program's fix, the one to take first first. */
  kinds: string[];
  fix: string;
  /** `syncscope profile --step-on` for a loop with no optimizer step, so that its profile has steps and a plain one. */
  stepOn?: string;
  /**
   * The program's lines whose waits the fix removes, where the trace has findings of the same kind
   * that the fix leaves (GradScaler's read in both variants): only findings made at one of them count.
   */
  lines?: number[];
}

export interface Manifest {
  recordArgs: string[];
  profileSteps: number;
  /** The plain steps the profile and the capture time first, to which the what-if scales each trace. */
  plainSteps: number;
  programs: ManifestProgram[];
}

/** Bad input, said as `file: what is wrong; what would be valid`. */
export class InputError extends Error {
  override name = 'InputError';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: not JSON (${(e as Error).message}); expected the file record.sh writes`);
  }
}

const numbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number' && x > 0);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** measured.json as bench/whatif-truth/record.sh writes it. */
export function parseMeasured(text: string, file: string): Measured {
  const m = parseJson(text, file);
  if (!isObject(m) || !isObject(m.programs))
    throw new InputError(
      `${file}: no "programs" object; expected {"recordedWith": ..., "programs": {"<name>": {...}}}`,
    );
  const programs: Record<string, MeasuredProgram> = {};
  for (const [name, p] of Object.entries(m.programs)) {
    if (!isObject(p) || !numbers(p.buggy) || !numbers(p.fixed))
      throw new InputError(
        `${file}: programs.${name} needs "buggy" and "fixed" arrays of positive ns per iteration; expected {"buggy": [..], "fixed": [..], "failedRuns": [..]}`,
      );
    programs[name] = { buggy: p.buggy, fixed: p.fixed, failedRuns: strings(p.failedRuns) ? p.failedRuns : [] };
  }
  return {
    recordedWith: typeof m.recordedWith === 'string' ? m.recordedWith : 'unknown',
    ...(strings(m.timedWith) && m.timedWith.length ? { timedWith: m.timedWith } : {}),
    programs,
  };
}

/** bench/whatif-truth/manifest.json. */
export function parseManifest(text: string, file: string): Manifest {
  const m = parseJson(text, file);
  const ok =
    isObject(m) &&
    strings(m.recordArgs) &&
    typeof m.profileSteps === 'number' &&
    typeof m.plainSteps === 'number' &&
    Array.isArray(m.programs) &&
    m.programs.every(
      (p) =>
        isObject(p) &&
        typeof p.name === 'string' &&
        strings(p.kinds) &&
        p.kinds.length > 0 &&
        typeof p.fix === 'string' &&
        (p.stepOn === undefined || typeof p.stepOn === 'string') &&
        (p.lines === undefined || numbers(p.lines)),
    );
  if (!ok)
    throw new InputError(
      `${file}: expected {"recordArgs": [..], "profileSteps": n, "plainSteps": n, "programs": [{"name", "kinds": [finding kinds], "fix", optional "stepOn", optional "lines": [line numbers]}]}`,
    );
  return m as unknown as Manifest;
}

/** Median buggy and fixed iteration times and their difference: the saving the fix measured (negative: it cost time). */
export function measuredSaving(p: MeasuredProgram): { buggyNs: number; fixedNs: number; savingNs: number } {
  const buggyNs = median(p.buggy);
  const fixedNs = median(p.fixed);
  return { buggyNs, fixedNs, savingNs: buggyNs - fixedNs };
}

/**
 * The saving of each pair of plain runs (buggy run k less fixed run k, run alternately), least and
 * most: how far one pair strays from the medians' difference, which is the saving measured.
 */
export function pairedSavings(p: MeasuredProgram): { leastNs: number; mostNs: number } | undefined {
  const n = Math.min(p.buggy.length, p.fixed.length);
  if (n < 2) return undefined;
  const each = p.buggy.slice(0, n).map((b, k) => b - p.fixed[k]);
  return { leastNs: Math.min(...each), mostNs: Math.max(...each) };
}

/** One fix as `whatif --json` gives it. */
export interface FixPrediction {
  /** F1, F2, ...: the finding's id, by which several are simulated together. */
  id: string;
  kind: string;
  applies: boolean;
  edit: string;
  /** The saving over the recorded window shared by its iterations. */
  perIterationNs: number | null;
  /** The lines of the user's program its calls were made at, in the program's own file. */
  lines: number[];
}

export interface KindPrediction {
  /** The finding kind taken: the first of the program's kinds that the trace has. */
  kind?: string;
  /** Findings of that kind whose fix applied. */
  applied: number;
  found: number;
  /**
   * Their ids, one per distinct edit (findings with the same edit and the same saving are one fix:
   * one stream made non-blocking, found at each of its waits): the program's one change makes them
   * all, so a prediction of several simulates them together in one scenario (F1+F2).
   */
  ids?: string[];
  /** The saving per iteration of the one finding, where only one applied (the caller simulates several together). */
  perIterationNs?: number;
  /** Why there is no prediction. */
  why?: string;
}

/**
 * The prediction for a program's fix: the findings of its first kind that the trace has, made at one
 * of `lines` where they are given.
 */
export function predictionFor(fixes: FixPrediction[], kinds: string[], lines?: number[]): KindPrediction {
  if (lines) fixes = fixes.filter((f) => f.lines.some((l) => lines.includes(l)));
  const kind = kinds.find((k) => fixes.some((f) => f.kind === k));
  if (!kind)
    return {
      applied: 0,
      found: 0,
      why: `no ${kinds.join(' or ')} finding${lines ? ` at line ${lines.join(' or ')}` : ''}`,
    };
  const of = fixes.filter((f) => f.kind === kind);
  const applied = of.filter((f) => f.applies);
  if (!applied.length) return { kind, applied: 0, found: of.length, why: of[0].edit };
  const edits = applied.filter(
    (f, k) => applied.findIndex((g) => g.edit === f.edit && g.perIterationNs === f.perIterationNs) === k,
  );
  const out: KindPrediction = { kind, applied: applied.length, found: of.length, ids: edits.map((f) => f.id) };
  if (edits.some((f) => f.perIterationNs === null)) out.why = 'no loop iterations found to share the saving over';
  else if (edits.length === 1) out.perIterationNs = edits[0].perIterationNs!;
  return out;
}

/** (predicted − measured) / |measured|, in percent; NaN where nothing was measured. */
export const errorPercent = (predictedNs: number, measuredNs: number): number =>
  measuredNs === 0 || !Number.isFinite(measuredNs) ? NaN : ((predictedNs - measuredNs) / Math.abs(measuredNs)) * 100;
