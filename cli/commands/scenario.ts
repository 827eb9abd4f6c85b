import { resolve } from 'node:path';
import { h200 } from '../../core/simulate/profile';
import {
  profilerStepWindow,
  scenarioFromTrace,
  windowFromTraceStart,
  type ScenarioWindow,
} from '../../core/whatif/from-trace';
import type { Trace } from '../../core/trace/model';
import { writeFileAtomic } from '../../node/atomic-write';
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

const number = (args: ParsedArgs, name: string): number | undefined => {
  const v = flagString(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(v)) throw new UsageError(`--${name} ${v}: expected a time in ns, as in 2500000`);
  return Number(v);
};

/** The window asked for on the command line: --from/--to, or --steps a:b of the trace's ProfilerStep ranges. */
export function windowOf(args: ParsedArgs, t: Trace): ScenarioWindow {
  const steps = flagString(args, 'steps');
  if (steps === undefined) return windowFromTraceStart(t, number(args, 'from'), number(args, 'to'));
  const m = /^(\d+):(\d+)$/.exec(steps);
  if (!m) throw new UsageError(`--steps ${steps}: expected two ProfilerStep numbers, as in 3:5`);
  const w = profilerStepWindow(t, +m[1], +m[2]);
  if (!w) throw new UsageError(`--steps ${steps}: the trace has no ProfilerStep#${m[1]} to #${m[2]}; use --from/--to`);
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
  const g = scenarioFromTrace(trace, profile, windowOf(args, trace));
  const full = resolve(io.cwd, out);
  await writeFileAtomic(full, [g.text]);
  const steps = [...g.threads.values()].reduce((n, s) => n + s.length, 0);
  io.stdout(
    `wrote ${full}: ${g.threads.size} host threads, ${steps} steps${g.marked ? `, ${g.marked} marked (see the comments)` : ''}\n`,
  );
  return EXIT.ok;
}
