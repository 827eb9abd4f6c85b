// Turns whatever the user points a command at into a Trace: a scenario is compiled and simulated
// (or run on the GPU by `run`), a trace file is loaded whatever its format.
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Program } from '../core/scenario/program';
import { compileScenario } from '../core/scenario/parse';
import { isScenarioPath } from '../core/scenario/path';
import { simulate } from '../core/simulate';
import { loadProfile, ProfileError } from '../core/simulate/profile';
import type { Trace } from '../core/trace/model';
import { loadAnyTrace } from './load-trace';
import { CliIo, UsageError } from './io';

export interface Input {
  trace: Trace;
  /** Present when the input was a scenario. */
  program?: Program;
  file: string;
}

export { isScenarioPath } from '../core/scenario/path';

export async function readProgram(path: string, io: CliIo): Promise<Program> {
  const text = await readText(path, io);
  return compileScenario(text, basename(path));
}

/** `--profile h200` or `--profile my-gpu.json`: the simulator's cost model. */
export async function readProfile(spec: string | undefined, io: CliIo) {
  if (!spec) return undefined;
  if (!/\.json$/i.test(spec)) return loadProfile(spec);
  const text = await readText(spec, io);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProfileError(
      `${spec}: not valid JSON; expected a profile object, as \`syncscope calibrate --out\` writes`,
    );
  }
  try {
    return loadProfile(json);
  } catch (e) {
    if (e instanceof ProfileError) e.message = `${spec}: ${e.message}`;
    throw e;
  }
}

export async function loadInput(path: string, io: CliIo, opts: { profile?: string } = {}): Promise<Input> {
  if (isScenarioPath(path)) {
    const program = await readProgram(path, io);
    return { trace: simulate(program, await readProfile(opts.profile, io)), program, file: path };
  }
  return { trace: await loadAnyTrace(resolve(io.cwd, path)), file: path };
}

export async function readText(path: string, io: CliIo): Promise<string> {
  try {
    return await readFile(resolve(io.cwd, path), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${(e as Error).message}`);
  }
}
