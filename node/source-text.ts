// The text of the user's source lines, for the report's sentences ("line 24 (scaler.step(opt))
// waited ..."): each file read once, and only a regular file of modest size, so that a trace that
// names a device or a huge file costs nothing.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SourceText } from '../core/analyze/describe';

/** Larger files are not read: a source line is worth no more than this. */
const MAX_SOURCE_BYTES = 8 * 1024 * 1024;

export function sourceTextReader(cwd: string): SourceText {
  const files = new Map<string, string[] | undefined>();
  return (file, line) => {
    if (!files.has(file)) files.set(file, readLines(resolve(cwd, file)));
    return files.get(file)?.[line - 1];
  };
}

function readLines(path: string): string[] | undefined {
  try {
    const s = statSync(path);
    if (!s.isFile() || s.size > MAX_SOURCE_BYTES) return undefined;
    return readFileSync(path, 'utf8').split(/\r?\n/);
  } catch {
    return undefined;
  }
}
