// Where a file named by a trace (a call's site) is on this machine, and whether it may be opened.
// A trace may come from another machine or container, and Kineto names files relative to the
// sys.path entry they were under, so the path as written is tried first, then its tails under each
// allowed folder, longest first. The trace may be anyone's, so only files inside the allowed folders
// (the workspace folders and the profiled script's folder) are ever opened: a path that steps out with
// "..", names a URI (`vscode://`, `command:`) or lies elsewhere is refused, with the reason.
import { isAbsolute, join, relative } from 'node:path';

/** A file to open, or why none is opened. */
export type SourceChoice = { path: string } | { refused: string };

const ALLOWED = "the workspace folders and the profiled script's folder";

/** True when `path` is `root` or below it. */
export function isInside(root: string, path: string): boolean {
  const r = relative(root, path);
  return r === '' || (!isAbsolute(r) && r.split(/[\\/]/)[0] !== '..');
}

/** The paths to try for `file`, in order: each inside one of `roots`. */
export function sourceCandidates(file: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  if (isAbsolute(file) && roots.some((r) => isInside(r, file))) out.push(file);
  const parts = file.split(/[\\/]+/).filter((p) => p && p !== '.' && p !== '..');
  for (let k = 0; k < parts.length; k++) for (const root of roots) out.push(join(root, ...parts.slice(k)));
  return [...new Set(out)];
}

/** The first candidate that exists, or undefined. */
export function findSourceFile(
  file: string,
  roots: readonly string[],
  exists: (path: string) => boolean,
): string | undefined {
  return sourceCandidates(file, roots).find(exists);
}

/**
 * The file to open for a site's `file`, found inside `roots` (the allowed folders), or why none is.
 * A drive letter (`C:\`) is a path; a scheme of two letters or more is a URI.
 */
export function sourceToOpen(file: string, roots: readonly string[], exists: (path: string) => boolean): SourceChoice {
  if (/^[a-z][a-z0-9+.-]+:/i.test(file))
    return { refused: `${file}: a URI, not a file path; only files inside ${ALLOWED} are opened` };
  if (file.split(/[\\/]/).includes('..'))
    return { refused: `${file}: the path steps out of its folder (".."); only files inside ${ALLOWED} are opened` };
  if (!roots.length)
    return { refused: `${file}: no workspace folder is open; open the folder the profile was made in` };
  const found = findSourceFile(file, roots, exists);
  if (found) return { path: found };
  if (isAbsolute(file) && exists(file))
    return { refused: `${file}: outside ${ALLOWED}, so it is not opened; open the folder that holds it` };
  return { refused: `${file}: not found inside ${ALLOWED}; open the folder the profile was made in` };
}
