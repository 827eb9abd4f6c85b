// How hot each line of the user's code is, for the editor's heat: the line's share of the trace's
// blocked host time, in HEAT_LEVELS steps (the editor draws one decoration type per level, so a
// file with many waiting lines still costs a handful of types), and the figure at the line's end:
// `blocked 573 µs/step, waits for multi_tensor_apply_kernel<TensorListMetadata> (line 11)`. The
// op is named as the lanes and the lenses name it (describe.ts's opShortName).
import { CK, isWait } from '../trace/kinds';
import type { Trace } from '../trace/model';
import { formatNs } from '../units';
import type { IterationWindow } from '../overview/window';
import { opShortName, releasingOps } from './describe';
import { lineRef, type SiteLine } from './site-lines';
import type { SiteSource } from './types';

/** How many shades the heat has: a line's level is its share of the blocked time, rounded up to a fifth. */
export const HEAT_LEVELS = 5;

/** The op that released the most of a line's blocked time, by its short name, stream and launch place. */
export interface LineReleaser {
  name: string;
  /** The op's whole name (a kernel's, as the driver gives it). */
  fullName: string;
  stream: string;
  /** Found by timing only: said "likely". */
  likely: boolean;
  /** The line of the user's code that launched it, where the trace has it. */
  launch?: SiteSource;
  /** How long the line's waits that it released blocked, together. */
  blockedNs: number;
  /** The work it queued behind in the longest of those waits, where that was most of the wait (ReleasingOp.queuedBehind). */
  queuedBehind?: { name: string; ops: number; launch?: SiteSource };
  /** That longest wait's blocked time. */
  longestNs: number;
}

export interface LineHeat {
  site: SiteLine;
  /** The line's share of the trace's blocked host time, 0 to 1. */
  share: number;
  /** 1 (coolest) to HEAT_LEVELS. */
  level: number;
  /** The line's blocked time per iteration, where the trace has iterations (perStepNs). */
  perStepNs?: number;
  releaser?: LineReleaser;
  /** The figure at the end of the line. */
  text: string;
}

/** Every host wait's blocked time, with or without a line: what the lines' shares are shares of. */
export function blockedHostNs(t: Trace): number {
  let ns = 0;
  for (let i = 0; i < t.calls.count; i++)
    if (t.calls.kind[i] !== CK.context && isWait(t, i)) ns += t.calls.blockedNs[i];
  return ns;
}

/** A share's level: 0 for none, else its fifth rounded up, so any blocked time shows (a share of exactly two fifths is level 2, however floating point rounds it). */
export const heatLevel = (share: number): number =>
  share > 0 ? Math.min(HEAT_LEVELS, Math.ceil(share * HEAT_LEVELS - 1e-9)) : 0;

/** The op that released the most of the line's blocked time; undefined where no wait of it names one. */
export function lineReleaser(t: Trace, s: SiteLine): LineReleaser | undefined {
  const byOp = new Map<string, LineReleaser>();
  for (const call of s.calls) {
    for (const o of releasingOps(t, call) ?? []) {
      const name = opShortName(t, o.op);
      const likely = o.how === 'timing';
      const key = [name, o.stream, likely, o.source?.file, o.source?.line].join('\n');
      const r = byOp.get(key) ?? {
        name,
        fullName: o.name,
        stream: o.stream,
        likely,
        launch: o.source,
        blockedNs: 0,
        longestNs: -1,
      };
      r.blockedNs += t.calls.blockedNs[call];
      if (t.calls.blockedNs[call] > r.longestNs) {
        r.longestNs = t.calls.blockedNs[call];
        const q = o.queuedBehind;
        r.queuedBehind = q && { name: opShortName(t, q.op), ops: q.ops, launch: q.source };
      }
      byOp.set(key, r);
    }
  }
  let best: LineReleaser | undefined;
  for (const r of byOp.values()) if (!best || r.blockedNs > best.blockedNs) best = r;
  return best;
}

const fnName = (f: string): string => (f.startsWith('<') ? f : `${f}()`);

/** ` (line 11)`, ` (train.py:11)` from another file, ` (launched in step())` where only the function is known; '' for none. */
function launchWords(s: SiteLine, l: SiteSource | undefined): string {
  if (!l) return '';
  if (l.precision === 'function') return ` (launched in ${fnName(l.function)})`;
  return ` (${lineRef(l, s.file)})`;
}

/**
 * `waits for X (line 11)`, `its own X` where the line launched it; where X queued behind its
 * stream's work for most of the wait, that work first: `waits for 27 queued ops, the last Y (line
 * 11), then its own X`.
 */
function releaserWords(s: SiteLine, r: LineReleaser): string {
  const op = `${r.likely ? 'likely ' : ''}${r.name}`;
  const l = r.launch;
  const own = l && l.file === s.file && l.line === s.line && l.precision === 'line';
  const released = own ? `its own ${op}` : l ? `${op}${launchWords(s, l)}` : `${op} on ${r.stream}`;
  const q = r.queuedBehind;
  if (!q) return `waits for ${released}`;
  const ahead = q.ops > 1 ? `${q.ops} queued ops, the last ${q.name}` : q.name;
  return `waits for ${ahead}${launchWords(s, q.launch)}, then ${released}`;
}

/** What the line waited for where no wait names an op: nothing, or what the trace cannot say. */
function noReleaserWords(t: Trace, s: SiteLine): string {
  const unknown = s.calls.some((c) => releasingOps(t, c) === null);
  return unknown ? 'the trace does not say for which op' : 'nothing was pending';
}

/**
 * The line's blocked time per iteration: that of its waits that begin within the iterations, over
 * their count (set-up before the loop is not a step's). Undefined without two iterations or more,
 * or where none of its waits is in them.
 */
export function perStepNs(t: Trace, s: SiteLine, steps: IterationWindow | undefined): number | undefined {
  if (!steps || steps.count < 2) return undefined;
  let ns = 0;
  let inside = 0;
  for (const c of s.calls) {
    const begin = t.calls.begin[c];
    if (begin < steps.beginNs || begin > steps.endNs) continue;
    ns += t.calls.blockedNs[c];
    inside++;
  }
  return inside ? ns / steps.count : undefined;
}

/** `blocked 573 µs/step, waits for X (line 11)`; without a per-step figure, `blocked 1.72 ms in all, ...`. */
export function lineHeatText(t: Trace, s: SiteLine, stepNs: number | undefined, r = lineReleaser(t, s)): string {
  const amount = stepNs !== undefined ? `${formatNs(stepNs)}/step` : `${formatNs(s.totalBlockedNs)} in all`;
  return `blocked ${amount}, ${r ? releaserWords(s, r) : noReleaserWords(t, s)}`;
}

/** The heat of each line that blocked the host at all, as siteLines gives them; `steps`: the trace's iterations (iterationWindow), if any. */
export function lineHeats(t: Trace, lines: readonly SiteLine[], steps: IterationWindow | undefined): LineHeat[] {
  const total = blockedHostNs(t);
  const out: LineHeat[] = [];
  for (const site of lines) {
    const share = total > 0 ? site.totalBlockedNs / total : 0;
    const level = heatLevel(share);
    if (!level) continue;
    const releaser = lineReleaser(t, site);
    const stepNs = perStepNs(t, site, steps);
    out.push({ site, share, level, perStepNs: stepNs, releaser, text: lineHeatText(t, site, stepNs, releaser) });
  }
  return out;
}
