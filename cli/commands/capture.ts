import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { importCapture } from '../../core/import/capture-convert';
import { writeFileAtomic } from '../../node/atomic-write';
import { captureTrace, type CaptureResult } from '../../node/capture-process';
import { findCaptureLibrary } from '../../node/capture-library';
import { STEP_ON_HELP } from '../../core/import/step-on';
import { plainStepsRefusal } from '../../node/profile-run';
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
import { finishRun } from './simulate';

const DEFAULT_OUT = 'capture.syncscope.json';

export const spec: CommandSpec = {
  name: 'capture',
  synopsis: ['[options] -- <command...>', '--raw <file.raw> [options]'],
  summary: 'run a CUDA program with CUPTI recording every call and GPU op, and report its waits (exit 1 if it failed)',
  options: [
    { ...OPTIONS.traceOut, help: `where to write the trace (default ${DEFAULT_OUT})` },
    OPTIONS.parquet,
    OPTIONS.html,
    OPTIONS.json,
    { name: 'keep-raw', value: 'file.raw', help: 'also keep the raw stream the capture library wrote' },
    { name: 'raw', value: 'file.raw', help: 'convert a raw stream written earlier instead of running a command' },
    {
      name: 'plain-steps',
      value: 'P',
      help: 'for a Python script: first run it alone for 2 + P steps, timing its own speed for the what-if (default 0: none)',
    },
    { name: 'step-on', value: 'WHAT', help: `with --plain-steps: ${STEP_ON_HELP}` },
    {
      name: 'seconds',
      value: 'S',
      help: 'with --plain-steps: how long the script may take to end its first step (default 60)',
    },
    OPTIONS.userCode,
  ],
};

/**
 * `capture [--out t.syncscope.json] [--plain-steps P [--step-on WHAT]] -- <command...>`: run the
 * command with CUPTI recording every CUDA call and GPU op, then convert, report and save the trace.
 * With --plain-steps, a Python script is first run alone for its plain steps (TraceMeta.plainStep),
 * to which the what-if scales the capture. `capture --raw f.raw` converts a raw stream written
 * earlier (by a run with the environment set by hand, or a SIGUSR2 snapshot).
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  if (!args.flags.has('out')) args.flags.set('out', DEFAULT_OUT);
  const rawFile = flagString(args, 'raw');
  const userCode = userCodeFlag(args);
  if (rawFile) {
    if (args.positional.length) throw new UsageError('--raw converts a raw capture; it takes no command');
    const bytes = await readFile(resolve(io.cwd, rawFile)).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(e.code === 'ENOENT' ? `no such file: ${rawFile}` : `cannot read ${rawFile}: ${e.message}`);
    });
    return finishRun(importCapture(bytes, { name: basename(rawFile), userCode }), undefined, rawFile, args, io);
  }
  const command = args.positional;
  if (!command.length)
    throw new UsageError('expected the command to capture after --, e.g. syncscope capture -- python3 train.py');
  const plainSteps = countFlag(args, 'plain-steps');
  const stepOn = stepOnFlag(args);
  if (stepOn !== undefined && !plainSteps)
    throw new UsageError('--step-on says what a plain step is: give --plain-steps too');
  const seconds = positiveFlag(args, 'seconds', false);
  if (seconds !== undefined && !plainSteps)
    throw new UsageError('--seconds bounds the plain run: give --plain-steps too');
  const refused = plainSteps ? plainStepsRefusal(command) : undefined;
  if (refused) throw new UsageError(`--plain-steps: ${refused}`);
  const library = findCaptureLibrary();
  if (!library.ok) {
    io.stderr(`syncscope capture: ${library.reason}\n`);
    return EXIT.usage;
  }
  // Ctrl-C is passed on to the program (it runs in a process group of its own); the capture
  // outlives it to save what was recorded. SIGTERM (a cancelled run in the editor) ends the
  // program's whole group with us.
  const stop = new AbortController();
  const terminate = () => stop.abort();
  process.on('SIGTERM', terminate);
  let result: CaptureResult;
  try {
    result = await captureTrace({
      library,
      command,
      cwd: io.cwd,
      stdio: 'inherit',
      signal: stop.signal,
      forward: ['SIGINT'],
      userCode,
      ...(plainSteps
        ? {
            plain: {
              steps: plainSteps,
              stepOn,
              seconds,
              onProgress: (line: string) => io.stderr(`syncscope capture: ${line}\n`),
              onOutput: io.stderr,
            },
          }
        : {}),
    });
  } finally {
    process.off('SIGTERM', terminate);
  }
  if (!result.ok) {
    io.stderr(`syncscope capture: ${result.reason}\n`);
    return EXIT.usage;
  }
  if (result.plainFailure) io.stderr(`syncscope capture: ${result.plainFailure}; captured without them\n`);
  if (result.failure) io.stderr(`syncscope capture: ${result.failure}\n`);
  const keep = flagString(args, 'keep-raw');
  if (keep) {
    await writeFileAtomic(resolve(io.cwd, keep), [result.raw.bytes]);
    io.stderr(`raw capture written to ${resolve(io.cwd, keep)}\n`);
  }
  const code = await finishRun(result.trace, undefined, command.join(' '), args, io);
  return result.failure ? EXIT.findings : code;
}
