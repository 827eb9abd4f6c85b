// native/capture/check/write_raw_check.cc: the capture library's writer without CUDA, built on
// first use where the capture library was configured (CUPTI present). Shared by
// test/runner/capture-writer.test.ts and bench/capture-writer.bench.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from './paths';

const buildDir = repoPath('build', 'capture');
const program = join(buildDir, 'write_raw_check');

/** The cmake that configured build/capture, when this machine has it: a build folder carried to a machine without cmake has a program built before it left, or none. */
function cmakeHere(cache: string): string | undefined {
  const cmake = /^CMAKE_COMMAND:INTERNAL=(.*)$/m.exec(cache)?.[1];
  return cmake && existsSync(cmake) ? cmake : undefined;
}

/** Why the check program cannot be built here, or undefined when it can. */
export function writeRawCheckSkip(): string | undefined {
  const file = join(buildDir, 'CMakeCache.txt');
  if (!existsSync(file)) return 'the capture library was not built here (no CUPTI): nothing to check';
  const cache = readFileSync(file, 'utf8');
  if (!cmakeHere(cache)) {
    return existsSync(program)
      ? undefined
      : 'build/capture came from a machine with cmake, without write_raw_check: build it there (cmake --build build/capture --target write_raw_check)';
  }
  // A build folder carried from another checkout names that checkout's sources; cmake refuses it.
  const source = /^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$/m.exec(cache)?.[1];
  if (source !== repoPath('native', 'capture'))
    return `build/capture was configured for ${source}, not this checkout: run node scripts/build.mjs`;
  return undefined;
}

/** Builds the check program where cmake is (once cmake has nothing to do, at once); its path. */
export function writeRawCheck(): string {
  const cmake = cmakeHere(readFileSync(join(buildDir, 'CMakeCache.txt'), 'utf8'));
  if (!cmake) return program;
  const r = spawnSync(cmake, ['--build', buildDir, '--target', 'write_raw_check'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building write_raw_check failed: ${r.stdout}${r.stderr}`);
  return program;
}
