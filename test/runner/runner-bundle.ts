import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoPath } from '../helpers/paths';

let built: string | undefined;

/**
 * The runner child bundled fresh from runner/child.ts, so the client tests do not depend on a
 * prior `npm run build`. esbuild is loaded from the repository at run time, not bundled.
 */
export function runnerBundle(): string {
  if (built) return built;
  let esbuild: typeof import('esbuild');
  try {
    esbuild = createRequire(repoPath('package.json'))('esbuild');
  } catch {
    return (built = repoPath('dist', 'runner.js')); // a machine with the built tree but no node_modules
  }
  const out = join(mkdtempSync(join(tmpdir(), 'syncscope-runner-')), 'runner.js');
  esbuild.buildSync({
    entryPoints: [repoPath('runner/child.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: out,
    logLevel: 'error',
  });
  return (built = out);
}
