import { resolve } from 'node:path';
import { STEP_ON_HELP } from '../../core/import/step-on';
import { profileScript } from '../../node/profile-run';
import {
  CommandSpec,
  countFlag,
  flagString,
  OPTIONS,
  parseArgs,
  positiveFlag,
  stepOnFlag,
  userCodeFlag,
} from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { loadAnyTrace } from '../load-trace';
import { finishRun } from './simulate';

const DEFAULT_OUT = 'profile.json.gz';

export const spec: CommandSpec = {
  name: 'profile',
  synopsis: ['[options] -- <python> <script.py> [args...]'],
  summary:
    'run a Python script unchanged under torch.profiler, with the line of every host wait, and report its waits (exit 1 if it failed)',
  options: [
    {
      name: 'out',
      short: 'o',
      value: 'trace.json.gz',
      help: `where to write the profiler trace (default ${DEFAULT_OUT})`,
    },
    { name: 'steps', value: 'N', help: 'steps to record after a warm-up of 2 (default 5)' },
    {
      name: 'plain-steps',
      value: 'P',
      help: "steps run first with the profiler off, timing the script's own speed for the what-if (default 0: none)",
    },
    {
      name: 'step-on',
      value: 'WHAT',
      help: STEP_ON_HELP,
    },
    { name: 'seconds', value: 'S', help: 'until the first step ends, record the run up to S seconds (default 60)' },
    OPTIONS.html,
    OPTIONS.json,
    OPTIONS.userCode,
  ],
};

/**
 * `profile [--out t.json.gz] [--steps N] [--plain-steps P] [--step-on WHAT] [--seconds S] -- python train.py args...`: run the script
 * under the launcher, then import its trace and print the same report as `report` does. Ctrl-C
 * stops the script; the trace keeps what was recorded.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const [python, script, ...scriptArgs] = args.positional;
  if (!python || !script)
    throw new UsageError(
      'expected the interpreter and the script after --, e.g. syncscope profile -- python3 train.py',
    );
  const out = flagString(args, 'out') ?? DEFAULT_OUT;
  const stop = new AbortController();
  const cancel = () => stop.abort();
  process.on('SIGINT', cancel);
  process.on('SIGTERM', cancel);
  let result;
  try {
    result = await profileScript({
      python,
      script,
      args: scriptArgs,
      out,
      steps: positiveFlag(args, 'steps', true),
      seconds: positiveFlag(args, 'seconds', false),
      plainSteps: countFlag(args, 'plain-steps'),
      stepOn: stepOnFlag(args),
      cwd: io.cwd,
      signal: stop.signal,
      onProgress: (line) => io.stderr(`syncscope profile: ${line}\n`),
      onOutput: io.stderr,
    });
  } finally {
    process.off('SIGINT', cancel);
    process.off('SIGTERM', cancel);
  }
  if (!result.trace) {
    io.stderr(`syncscope profile: ${result.error ?? 'no trace was written'}\n`);
    return EXIT.usage;
  }
  const trace = await loadAnyTrace(result.trace, undefined, userCodeFlag(args));
  // --out names the profiler trace, which the launcher wrote: the report writes no second file.
  const reportArgs = { positional: args.positional, flags: new Map(args.flags) };
  reportArgs.flags.delete('out');
  const code = await finishRun(trace, undefined, script, reportArgs, io);
  io.stderr(`profiler trace written to ${resolve(io.cwd, result.trace)}\n`);
  if (result.error) io.stderr(`syncscope profile: ${result.error}\n`);
  return result.error ? EXIT.findings : code;
}
