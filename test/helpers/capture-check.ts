// The capture library's check programs (native/capture/check/), built on first use where the capture
// library was configured (CUPTI present): write_raw_check, its writer without CUDA, and
// python_stack_check, its Python stack reader without CUDA. Shared by test/runner/ and bench/.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from './paths';

const buildDir = repoPath('build', 'capture');
const OUTPUTS = { write_raw_check: 'write_raw_check', python_stack_check: 'libpython_stack_check.so' } as const;
export type CheckTarget = keyof typeof OUTPUTS;

/** The cmake that configured build/capture, when this machine has it: a build folder carried to a machine without cmake has a program built before it left, or none. */
function cmakeHere(cache: string): string | undefined {
  const cmake = /^CMAKE_COMMAND:INTERNAL=(.*)$/m.exec(cache)?.[1];
  return cmake && existsSync(cmake) ? cmake : undefined;
}

/** Why `target` cannot be built here, or undefined when it can. */
export function captureCheckSkip(target: CheckTarget): string | undefined {
  const file = join(buildDir, 'CMakeCache.txt');
  if (!existsSync(file)) return 'the capture library was not built here (no CUPTI): nothing to check';
  const cache = readFileSync(file, 'utf8');
  if (!cmakeHere(cache)) {
    return existsSync(join(buildDir, OUTPUTS[target]))
      ? undefined
      : `build/capture came from a machine with cmake, without ${target}: build it there (cmake --build build/capture --target ${target})`;
  }
  // A build folder carried from another checkout names that checkout's sources; cmake refuses it.
  const source = /^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$/m.exec(cache)?.[1];
  if (source !== repoPath('native', 'capture'))
    return `build/capture was configured for ${source}, not this checkout: run node scripts/build.mjs`;
  return undefined;
}

/** Builds `target` where cmake is (once cmake has nothing to do, at once); the path of what it built. */
export function captureCheck(target: CheckTarget): string {
  const cmake = cmakeHere(readFileSync(join(buildDir, 'CMakeCache.txt'), 'utf8'));
  const built = join(buildDir, OUTPUTS[target]);
  if (!cmake) return built;
  const r = spawnSync(cmake, ['--build', buildDir, '--target', target], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building ${target} failed: ${r.stdout}${r.stderr}`);
  return built;
}

export const writeRawCheckSkip = (): string | undefined => captureCheckSkip('write_raw_check');
export const writeRawCheck = (): string => captureCheck('write_raw_check');
