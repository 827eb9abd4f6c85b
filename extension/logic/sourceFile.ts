// Where a file named by a trace (a call's site) is on this machine. A trace may come from another
// machine or container, and Kineto names files relative to the sys.path entry they were under, so
// the path as written is tried first, then its tails under each workspace folder, longest first.
import { isAbsolute, join } from 'node:path';

/** The paths to try for `file`, in order. */
export function sourceCandidates(file: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  if (isAbsolute(file)) out.push(file);
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
