// The tools of `syncscope mcp` that run a program: `profile` (a Python script under torch.profiler)
// and `capture` (any command under the capture library), through the same runners as the CLI. A
// client may call tools on its own, so they run only when the server was started with --allow-run.
// The program's output is kept (its end goes into the answer) and never reaches the server's
// stdout, which carries the protocol.
import { saveTraceFile } from '../../node/trace-file';
import { resolve } from 'node:path';
import { captureTrace } from '../../node/capture-process';
import { findCaptureLibrary } from '../../node/capture-library';
import { plainStepsRefusal, profileScript } from '../../node/profile-run';
import type { Answer } from '../../core/agent/answer';
import { outputKeeper, RunError, runAnswer, type RunOut } from '../../core/agent/runs';
import type { INPUTS } from '../../core/agent/schemas';
import { UsageError } from '../io';
import { loadForTool } from './load';
import type * as z from 'zod';

/** What a run is given besides its arguments. */
export interface RunContext {
  cwd: string;
  /** Whether the server was started with --allow-run. */
  allowed: boolean;
  /** Aborted when the client cancels the call or the server stops: the program is stopped, what it recorded kept. */
  signal: AbortSignal;
  /** A line of progress (the launcher's "step 2/5"), for a client that asked for progress. */
  progress(line: string): void;
}

export function refuseUnlessAllowed(tool: string, ctx: RunContext): void {
  if (!ctx.allowed)
    throw new UsageError(
      `${tool} runs a program, and this server was started without --allow-run; to let it run programs, ` +
        `start it as "syncscope mcp --allow-run" (add "--allow-run" to the server's args in the client's configuration)`,
    );
}

export async function profileAnswer(args: z.infer<typeof INPUTS.profile>, ctx: RunContext): Promise<Answer<RunOut>> {
  refuseUnlessAllowed('profile', ctx);
  const output = outputKeeper();
  const result = await profileScript({
    python: args.python,
    script: args.script,
    args: args.args ?? [],
    out: args.out ?? 'profile.json.gz',
    steps: args.steps,
    seconds: args.seconds,
    stepOn: args.stepOn,
    plainSteps: args.plainSteps,
    cwd: ctx.cwd,
    signal: ctx.signal,
    onProgress: ctx.progress,
    onOutput: output.add,
  });
  if (!result.trace) throw new RunError(result.error ?? 'no trace was written', output.text);
  return answer(resolve(ctx.cwd, result.trace), result.error, output.text, ctx.cwd);
}

export async function captureAnswer(args: z.infer<typeof INPUTS.capture>, ctx: RunContext): Promise<Answer<RunOut>> {
  refuseUnlessAllowed('capture', ctx);
  if (args.stepOn !== undefined && !args.plainSteps)
    throw new UsageError('stepOn says what a plain step is: give plainSteps too');
  const refused = args.plainSteps ? plainStepsRefusal(args.command) : undefined;
  if (refused) throw new UsageError(`plainSteps: ${refused}`);
  const library = findCaptureLibrary();
  if (!library.ok) throw new UsageError(library.reason);
  const output = outputKeeper();
  ctx.progress(`running ${args.command.join(' ')}`);
  const result = await captureTrace({
    library,
    command: args.command,
    cwd: ctx.cwd,
    stdio: 'pipe',
    onOutput: output.add,
    signal: ctx.signal,
    ...(args.plainSteps
      ? { plain: { steps: args.plainSteps, stepOn: args.stepOn, onProgress: ctx.progress, onOutput: output.add } }
      : {}),
  });
  if (!result.ok) throw new RunError(result.reason, output.text);
  const trace = resolve(ctx.cwd, args.out ?? 'capture.syncscope.json');
  await saveTraceFile(result.trace, trace);
  const failures = [result.failure, result.plainFailure].filter(Boolean);
  return answer(trace, failures.length ? failures.join('; ') : undefined, output.text, ctx.cwd);
}

async function answer(
  trace: string,
  failure: string | undefined,
  output: string,
  cwd: string,
): Promise<Answer<RunOut>> {
  const { report } = await loadForTool(trace, cwd);
  return runAnswer(trace, report, failure, output);
}
