// The second lens on a line where the host waited: the op that released those waits, by the short
// name the timeline's lanes give it, and the line of the user's program that launched it, as a
// link. A link opens only a file inside the workspace or the script's tree: a trace is anyone's
// data, and its paths are not a way to open arbitrary files. Free of `vscode`, so it is
// unit-tested under node.
import { isAbsolute, relative, sep } from 'node:path';
import { opShortName, releasingOps } from '../../core/analyze/describe';
import { baseName, type SiteLine } from '../../core/analyze/site-lines';
import type { SiteSource } from '../../core/analyze/types';
import type { Trace } from '../../core/trace/model';
import { formatNs } from '../../core/units';

/** The releasing ops of a line's waits that were launched at one place. */
export interface LaunchLine {
  /** The op's name as the lanes show it (a kernel's short form). */
  name: string;
  /** Its full name. */
  fullName: string;
  source: SiteSource;
  /** How many of the line's waits it released, and how long they blocked together. */
  count: number;
  blockedNs: number;
}

/** At most this many launch lenses per line: the rest are in the timeline. */
export const MAX_LAUNCH_LENSES = 2;

/**
 * Where the ops that released a line's waits were launched, the one that blocked longest first.
 * Left out: ops whose launch has no site (the first lens still names them), and ops the line
 * launched itself (a copy that blocks until it is done), whose link would lead back to it.
 */
export function launchLines(t: Trace, s: SiteLine): LaunchLine[] {
  const byPlace = new Map<string, LaunchLine>();
  for (const call of s.calls) {
    for (const o of releasingOps(t, call) ?? []) {
      if (!o.source || (o.source.file === s.file && o.source.line === s.line)) continue;
      const key = `${o.name}\n${o.source.file}\n${o.source.line}`;
      let g = byPlace.get(key);
      if (!g) {
        g = { name: opShortName(t, o.op), fullName: o.name, source: o.source, count: 0, blockedNs: 0 };
        byPlace.set(key, g);
      }
      g.count++;
      g.blockedNs += t.calls.blockedNs[call];
    }
  }
  return [...byPlace.values()].sort((a, b) => b.blockedNs - a.blockedNs).slice(0, MAX_LAUNCH_LENSES);
}

/**
 * `released by multi_tensor_apply_kernel, launched at line 21`: the line alone when the op was
 * launched from the file the lens is in, else the file's name too; a site known only to its
 * function says so.
 */
export function launchLensTitle(l: LaunchLine, sameFile: boolean): string {
  const s = l.source;
  const at = sameFile ? `line ${s.line}` : `${baseName(s.file)}:${s.line}`;
  const fn = s.function.startsWith('<') ? s.function : `${s.function}()`;
  const where = s.precision === 'line' ? `launched at ${at}` : `launched in ${fn} (${at})`;
  return `released by ${l.name}, ${where}${s.deduced ? ' (deduced)' : ''}`;
}

/** Whether the launch lenses name the releaser of every wait of the line: then the wait's own lens need not. */
export const launchesCoverLine = (s: SiteLine, launches: readonly LaunchLine[]): boolean =>
  launches.reduce((n, l) => n + l.count, 0) === s.count;

/** The lens's tooltip: the full name, how much of the line's waiting it caused, and what a click does. */
export function launchLensTooltip(l: LaunchLine, linked: boolean): string {
  const waits = l.count === 1 ? '1 wait' : `${l.count} waits`;
  const open = linked
    ? `Open ${baseName(l.source.file)} at line ${l.source.line}`
    : `${l.source.file} is outside the workspace and the script's folder: not opened`;
  const deduced = l.source.deduced ? ` Its launch line is deduced: ${l.source.deduced}.` : '';
  return `"${l.fullName}" released ${waits} here (${formatNs(l.blockedNs)} blocked).${deduced} ${open}`;
}

/** Whether `path` (absolute) is `root` or under it. */
export function isInside(path: string, root: string): boolean {
  const r = relative(root, path);
  return r === '' || (r !== '..' && !r.startsWith('..' + sep) && !isAbsolute(r));
}

/** Whether `path` is inside any of `roots`. */
export const isInsideAny = (path: string, roots: readonly string[]): boolean =>
  isAbsolute(path) && roots.some((root) => isInside(path, root));
