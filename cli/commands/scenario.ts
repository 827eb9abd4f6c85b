import { resolve } from 'node:path';
import { h200 } from '../../core/simulate/profile';
import {
  hostCallsIn,
  profilerStepWindow,
  windowFromTraceStart,
  type ScenarioWindow,
} from '../../core/whatif/from-trace';
import { traceExtent, type Trace } from '../../core/trace/model';
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

/** 2345678 -> "2,345,678". */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

/**
 * The window asked for on the command line: --from/--to, or --steps a:b of the trace's ProfilerStep
 * ranges. A scenario is made of host calls, so the trace must have some, and the window must begin
 * before it ends, lie within the trace and hold at least one; otherwise the error names the trace's
 * range. `nothing` says what the command would have done, for a trace without host calls.
 */
export function windowOf(args: ParsedArgs, t: Trace, file: string, nothing: string): ScenarioWindow {
  const all = hostCallsIn(t);
  if (!all.count) throw new UsageError(`${file}: the trace has no host calls, so there is nothing to ${nothing}`);
  const { start, end } = traceExtent(t);
  const length = Math.ceil(end - start);
  const spans = `this trace spans 0 to ${grouped(length)} ns`;
  const steps = flagString(args, 'steps');
  const from = nsFlag(args, 'from');
  const to = nsFlag(args, 'to');
  let asked: string;
  let w: ScenarioWindow;
  if (steps !== undefined) {
    if (from !== undefined || to !== undefined) throw new UsageError('--steps and --from/--to: give one of them');
    const m = /^(\d{1,9}):(\d{1,9})$/.exec(steps);
    if (!m) throw new UsageError(`--steps ${steps}: expected two ProfilerStep numbers, as in 3:5`);
    if (+m[1] > +m[2])
      throw new UsageError(`--steps ${steps}: the first step is after the last; expected a:b with a <= b`);
    const found = profilerStepWindow(t, +m[1], +m[2]);
    if (!found)
      throw new UsageError(`--steps ${steps}: the trace has no ProfilerStep#${m[1]} to #${m[2]}; use --from/--to`);
    [asked, w] = [`--steps ${steps}`, found];
  } else {
    if (from === undefined && to === undefined) return {};
    asked = [from !== undefined ? `--from ${from}` : '', to !== undefined ? `--to ${to}` : '']
      .filter(Boolean)
      .join(' ');
    if ((from ?? 0) >= (to ?? Infinity)) throw new UsageError(`${asked}: the window is empty; ${spans}`);
    if ((from ?? 0) >= length) throw new UsageError(`${asked}: the window begins after the trace ends; ${spans}`);
    if ((to ?? 0) > length) throw new UsageError(`${asked}: the window ends after the trace does; ${spans}`);
    w = windowFromTraceStart(t, from, to);
  }
  if (!hostCallsIn(t, w).count)
    throw new UsageError(
      `${asked}: no host call begins in the window; ${spans}, its host calls beginning from ` +
        `${grouped(Math.floor(all.first - start))} to ${grouped(Math.floor(all.last - start))} ns`,
    );
  return w;
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
