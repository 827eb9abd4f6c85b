import { simulate } from '../../core/simulate';
import type { Trace } from '../../core/trace/model';
import { processMemoryBudget } from '../../node/memory-limits';
import { RunnerError, runInRunner } from '../../runner/client';
import { checkTraceOutputs } from '../output';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs } from '../args';
import { isScenarioPath, readProfile, readProgram } from '../input';
import { CliIo, UsageError } from '../io';
import { finishRun } from './simulate';

const BACKENDS = ['gpu', 'sim', 'auto'];

export const spec: CommandSpec = {
  name: 'run',
  synopsis: ['<scenario> [options]'],
  summary: 'run a scenario on the GPU, in a separate runner process, and print the wait report',
  options: [
    {
      name: 'backend',
      value: BACKENDS.join('|'),
      help: 'where to run; auto (the default) simulates where there is no GPU',
    },
    OPTIONS.traceOut,
    OPTIONS.parquet,
    OPTIONS.html,
    { ...OPTIONS.profile, help: "the simulator's timing profile, when it simulates" },
    OPTIONS.maxSteps,
    { name: 'timeout', value: 'seconds', help: 'stop a GPU run that takes longer' },
    OPTIONS.json,
    OPTIONS.all,
  ],
};

/**
 * `run <scenario> [--backend gpu|sim|auto]`: run the scenario on the GPU, in a runner process.
 * auto (the default) falls back to the simulator, with a one-line notice, where there is no GPU.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  checkTraceOutputs(args);
  const file = onePositional(args, 'scenario file');
  if (!isScenarioPath(file)) throw new UsageError(`expected a *.scenario.json file, got ${file}`);
  const backend = flagString(args, 'backend') ?? 'auto';
  if (!BACKENDS.includes(backend))
    throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}, got "${backend}"`);
  const timeout = flagString(args, 'timeout');
  const timeoutMs = timeout === undefined ? undefined : Number(timeout) * 1000;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new UsageError(`--timeout takes seconds, got "${timeout}"`);
  const memory = processMemoryBudget(file);
  const program = await readProgram(file, io, flagString(args, 'max-steps'), memory);
  const simulated = async () => simulate(program, await readProfile(flagString(args, 'profile'), io), memory);

  let trace: Trace;
  if (backend === 'sim') trace = await simulated();
  else {
    try {
      trace = await runInRunner(program, { timeoutMs });
    } catch (e) {
      if (backend !== 'auto' || !(e instanceof RunnerError) || e.errorName !== 'GpuUnavailableError') throw e;
      io.stderr(`syncscope run: ${e.message}; simulating instead\n`);
      trace = await simulated();
    }
  }
  return finishRun(trace, program, file, args, io, memory);
}
