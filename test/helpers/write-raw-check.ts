// native/capture/check/write_raw_check.cc: the capture library's writer without CUDA, built on
// first use where the capture library was configured (CUPTI present). Shared by
// test/runner/capture-writer.test.ts and bench/capture-writer.bench.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from './paths';

const buildDir = repoPath('build', 'capture');

/** Why the check program cannot be built here, or undefined when it can. */
export function writeRawCheckSkip(): string | undefined {
  const cache = join(buildDir, 'CMakeCache.txt');
  if (!existsSync(cache)) return 'the capture library was not built here (no CUPTI): nothing to check';
  // A build folder carried from another checkout names that checkout's sources; cmake refuses it.
  const source = /^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$/m.exec(readFileSync(cache, 'utf8'))?.[1];
  if (source !== repoPath('native', 'capture')) return `build/capture was configured for ${source}, not this checkout: run node scripts/build.mjs`;
  return undefined;
}

/** Builds the check program (once cmake has nothing to do, at once); its path. */
export function writeRawCheck(): string {
  const r = spawnSync('cmake', ['--build', buildDir, '--target', 'write_raw_check'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building write_raw_check failed: ${r.stdout}${r.stderr}`);
  return join(buildDir, 'write_raw_check');
}
