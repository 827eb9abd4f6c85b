import { resolve } from 'node:path';
import { h200 } from '../../core/simulate/profile';
import type { ScenarioWindow } from '../../core/whatif/from-trace';
import { traceWindow, WindowError } from '../../core/whatif/window';
import type { Trace } from '../../core/trace/model';
import { writeFileAtomic } from '../../node/atomic-write';
import { replayableScenario } from '../../core/whatif/fit';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs, type ParsedArgs } from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { loadInput, readProfile } from '../input';

export const WINDOW_OPTIONS = [
  { name: 'from', value: 'ns', help: 'start of the window, in ns from the start of the trace' },
  { name: 'to', value: 'ns', help: 'end of the window, in ns from the start of the trace' },
  { name: 'steps', value: 'a:b', help: 'the window of ProfilerStep#a to #b (PyTorch traces)' },
];

export const spec: CommandSpec = {
  name: 'scenario',
  synopsis: ['<trace> -o <out.scenario.json> [--from ns --to ns | --steps a:b]'],
  summary: 'turn a trace into a scenario that the simulator can run and you can edit',
  options: [
    { name: 'out', short: 'o', value: 'out.scenario.json', help: 'where to write the scenario' },
    ...WINDOW_OPTIONS,
    OPTIONS.profile,
  ],
};

/** A time of the window: a whole number of ns, exact as a double. */
const nsFlag = (args: ParsedArgs, name: string): number | undefined => {
  const v = flagString(args, name);
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n))
    throw new UsageError(`--${name} ${v}: expected a whole number of ns from 0 to 2^53 - 1, as in 2500000`);
  return n;
};

/**
 * The window asked for on the command line: --from/--to, or --steps a:b of the trace's ProfilerStep
 * ranges, checked by core (traceWindow); a window the trace does not have is a usage error.
 * `nothing` says what the command would have done, for a trace without host calls.
 */
export function windowOf(args: ParsedArgs, t: Trace, file: string, nothing: string): ScenarioWindow {
  const asked = { steps: flagString(args, 'steps'), from: nsFlag(args, 'from'), to: nsFlag(args, 'to') };
  try {
    return traceWindow(t, file, nothing, asked);
  } catch (e) {
    throw e instanceof WindowError ? new UsageError(e.message) : e;
  }
}

/** `scenario <trace> -o x.scenario.json`: the trace as a scenario. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'trace file');
  const out = flagString(args, 'out');
  if (!out) throw new UsageError('say where to write: -o out.scenario.json');
  const { trace } = await loadInput(file, io);
  const profile = (await readProfile(flagString(args, 'profile'), io)) ?? h200;
  // Its kernel durations fitted as the replay fits them, so that simulating it reproduces the trace.
  const g = replayableScenario(trace, profile, windowOf(args, trace, file, 'turn into a scenario')).scenario;
  const full = resolve(io.cwd, out);
  await writeFileAtomic(full, [g.text]);
  const steps = [...g.threads.values()].reduce((n, s) => n + s.length, 0);
  io.stdout(
    `wrote ${full}: ${g.threads.size} host threads, ${steps} steps${g.marked ? `, ${g.marked} marked` : ''}${g.inferred ? `, ${g.inferred} inferred` : ''}${g.marked || g.inferred ? ' (see the comments)' : ''}\n`,
  );
  return EXIT.ok;
}
