import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root, found from wherever the bundled test file runs. */
export const repoRoot: string = (() => {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + __dirname);
    dir = up;
  }
  return dir;
})();

export const repoPath = (...parts: string[]): string => join(repoRoot, ...parts);
