// The window of a trace that a scenario is made of, as asked for by --from/--to (ns from the
// trace's start) or --steps a:b (ProfilerStep#a to #b): checked here for the CLI and the agents'
// tools alike, with errors that name the trace's range.
import { traceExtent, type Trace } from '../trace/model';
import { hostCallsIn, profilerStepWindow, windowFromTraceStart, type ScenarioWindow } from './from-trace';

/** A window the trace does not have: bad input, said in the words of the options that asked for it. */
export class WindowError extends Error {
  override name = 'WindowError';
}

export interface WindowAsked {
  steps?: string;
  from?: number;
  to?: number;
}

/** 2345678 -> "2,345,678". */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

/**
 * A scenario is made of host calls, so the trace must have some, and the window must begin before
 * it ends, lie within the trace and hold at least one; otherwise the error names the trace's range.
 * `nothing` says what the caller would have done, for a trace without host calls. No window asked:
 * the whole trace ({}).
 */
export function traceWindow(t: Trace, file: string, nothing: string, asked: WindowAsked): ScenarioWindow {
  const all = hostCallsIn(t);
  if (!all.count) throw new WindowError(`${file}: the trace has no host calls, so there is nothing to ${nothing}`);
  const { start, end } = traceExtent(t);
  const length = Math.ceil(end - start);
  const spans = `this trace spans 0 to ${grouped(length)} ns`;
  const { steps, from, to } = asked;
  let words: string;
  let w: ScenarioWindow;
  if (steps !== undefined) {
    if (from !== undefined || to !== undefined) throw new WindowError('--steps and --from/--to: give one of them');
    const m = /^(\d{1,9}):(\d{1,9})$/.exec(steps);
    if (!m) throw new WindowError(`--steps ${steps}: expected two ProfilerStep numbers, as in 3:5`);
    if (+m[1] > +m[2])
      throw new WindowError(`--steps ${steps}: the first step is after the last; expected a:b with a <= b`);
    const found = profilerStepWindow(t, +m[1], +m[2]);
    if (!found)
      throw new WindowError(`--steps ${steps}: the trace has no ProfilerStep#${m[1]} to #${m[2]}; use --from/--to`);
    [words, w] = [`--steps ${steps}`, found];
  } else {
    if (from === undefined && to === undefined) return {};
    words = [from !== undefined ? `--from ${from}` : '', to !== undefined ? `--to ${to}` : '']
      .filter(Boolean)
      .join(' ');
    if ((from ?? 0) >= (to ?? Infinity)) throw new WindowError(`${words}: the window is empty; ${spans}`);
    if ((from ?? 0) >= length) throw new WindowError(`${words}: the window begins after the trace ends; ${spans}`);
    if ((to ?? 0) > length) throw new WindowError(`${words}: the window ends after the trace does; ${spans}`);
    w = windowFromTraceStart(t, from, to);
  }
  if (!hostCallsIn(t, w).count)
    throw new WindowError(
      `${words}: no host call begins in the window; ${spans}, its host calls beginning from ` +
        `${grouped(Math.floor(all.first - start))} to ${grouped(Math.floor(all.last - start))} ns`,
    );
  return w;
}
