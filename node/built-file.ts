// Where the native build's outputs are: build/Release/ in the first folder above the running bundle
// (or source file) that has the file, in a checkout and in the installed extension alike.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `override` (an environment variable's value) when given, else `build/Release/<file>` where it is found. */
export function builtFile(file: string, override?: string, from = __dirname): string {
  if (override) return override;
  const relative = join('build', 'Release', file);
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative);
    if (dirname(dir) === dir) return join(from, '..', relative);
  }
}
