// Builds the capture test programs and captures them, for the GPU test and the benchmark.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCapture } from '../../../core/import/capture-convert';
import { traceToJson } from '../../../core/trace/json';
import type { Trace } from '../../../core/trace/model';
import { captureProgram, type CaptureOutcome } from '../../../node/capture-process';
import { findCaptureLibrary } from '../../../node/capture-library';
import { repoPath } from '../../helpers/paths';
import { assertGpu, noGpu } from '../gpu';

const works = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

const captureLibrary = findCaptureLibrary();

/**
 * Why the C++ capture tests cannot run here, or false. A missing capture library is no reason on a
 * machine with a GPU: the test runs and fails (assertCaptureLibrary).
 */
export const noCaptureCpp: string | false = noGpu
  ? noGpu
  : captureLibrary.ok && !works('nvcc', ['--version'])
    ? 'nvcc not found'
    : false;

/** Why the PyTorch capture test cannot run here, or false (a missing capture library fails it, as above). */
export const noCaptureTorch: string | false = noGpu
  ? noGpu
  : captureLibrary.ok && !works('python3', ['-c', 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'])
    ? 'python3 with CUDA PyTorch not found'
    : false;

/** Fails where the GPU is here but the native runtime or the capture library is not. */
export function assertCaptureLibrary(): void {
  assertGpu();
  if (!captureLibrary.ok) throw new Error(`an NVIDIA GPU is here, but ${captureLibrary.reason}`);
}

let buildDir: string | undefined;

/** Compiles programs/<name>.cu with nvcc for this GPU; returns the executable. */
export function buildProgram(name: string): string {
  buildDir ??= mkdtempSync(join(tmpdir(), 'syncscope-capture-programs-'));
  const exe = join(buildDir, name);
  const r = spawnSync('nvcc', ['-O2', '-arch=native', '-o', exe, repoPath('test/gpu/capture/programs', `${name}.cu`)], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`nvcc failed for ${name}.cu: ${r.stderr}`);
  return exe;
}

export const programPath = (file: string): string => repoPath('test/gpu/capture/programs', file);

/** Eager module loading, so that a kernel's first launch does not load its module and read as a long launch. */
export const CAPTURE_ENV = { ...process.env, CUDA_MODULE_LOADING: 'EAGER' };

export async function capture(
  command: string[],
  label: string,
): Promise<{ trace: Trace; outcome: CaptureOutcome; output: string }> {
  const library = findCaptureLibrary();
  if (!library.ok) throw new Error(library.reason);
  let output = '';
  const outcome = await captureProgram({
    library,
    command,
    cwd: process.cwd(),
    env: CAPTURE_ENV,
    stdio: 'pipe',
    onOutput: (t) => (output += t),
  });
  // For studying captures away from the GPU, failed ones too.
  const dump = process.env.SYNCSCOPE_CAPTURE_DUMP;
  if (dump) {
    mkdirSync(dump, { recursive: true });
    writeFileSync(join(dump, `${label}.log`), output);
    if (outcome.raws.length) writeFileSync(join(dump, `${label}.raw`), outcome.raws[0].bytes);
  }
  if (outcome.exitCode !== 0)
    throw new Error(`${command.join(' ')} exited with ${outcome.exitCode ?? outcome.signal}: ${output}`);
  if (!outcome.raws.length) throw new Error(`${command.join(' ')} left no raw capture: ${output}`);
  const trace = importCapture(outcome.raws[0].bytes, { name: label });
  if (dump) writeFileSync(join(dump, `${label}.syncscope.json`), traceToJson(trace));
  return { trace, outcome, output };
}
