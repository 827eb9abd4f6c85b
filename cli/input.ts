// Turns whatever the user points a command at into a Trace: a scenario is compiled and simulated
// (or run on the GPU by `run`), a trace file is loaded whatever its format.
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Program } from '../core/scenario/program';
import { stepBudget, type MemoryBudget } from '../core/memory';
import type { ScenarioBudget } from '../core/scenario/kinds';
import { compileScenario } from '../core/scenario/parse';
import { isScenarioPath } from '../core/scenario/path';
import { simulate } from '../core/simulate';
import { loadProfile, ProfileError } from '../core/simulate/profile';
import type { Trace } from '../core/trace/model';
import { processMemoryBudget } from '../node/memory-limits';
import { loadAnyTrace } from './load-trace';
import type { UserCode } from '../core/import/python-sites';
import { CliIo, UsageError } from './io';

export interface Input {
  trace: Trace;
  /** Present when the input was a scenario. */
  program?: Program;
  file: string;
  /** What the command may allocate for it, taken before the input was read: pass it on to analyze. */
  memory: MemoryBudget;
}

export { isScenarioPath } from '../core/scenario/path';

export async function readProgram(
  path: string,
  io: CliIo,
  maxSteps?: string,
  memory = processMemoryBudget(path),
): Promise<Program> {
  const text = await readText(path, io);
  return compileScenario(text, basename(path), scenarioBudget(maxSteps, memory));
}

/**
 * The CLI's scenario budget: `--max-steps N` (work twice that), else as many steps as the memory
 * the process may still use holds (core/memory.ts). The editor keeps HOSTILE_BUDGET: it parses
 * whatever file is open, on every edit. Either way the simulator checks the trace's rows against
 * the memory before it makes them.
 */
export function scenarioBudget(maxSteps?: string, memory = processMemoryBudget()): ScenarioBudget {
  if (maxSteps !== undefined) {
    const n = Number(maxSteps);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new UsageError(`--max-steps takes a whole number from 1, not "${maxSteps}"`);
    return { steps: n, work: 2 * n, raise: 'raise it with --max-steps' };
  }
  return stepBudget(memory);
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

export async function loadInput(
  path: string,
  io: CliIo,
  opts: { profile?: string; maxSteps?: string; userCode?: UserCode } = {},
): Promise<Input> {
  const memory = processMemoryBudget(path);
  if (isScenarioPath(path)) {
    const program = await readProgram(path, io, opts.maxSteps, memory);
    return { trace: simulate(program, await readProfile(opts.profile, io), memory), program, file: path, memory };
  }
  return { trace: await loadAnyTrace(resolve(io.cwd, path), undefined, opts.userCode), file: path, memory };
}

export async function readText(path: string, io: CliIo): Promise<string> {
  try {
    return await readFile(resolve(io.cwd, path), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${(e as Error).message}`);
  }
}
