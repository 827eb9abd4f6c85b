// Shared by the simulator's tests: compile a scenario given as an object, simulate it, and look
// things up in the trace by the names the scenario used.
import { compileScenario } from '../../core/scenario/parse';
import { simulate, type SimProfile } from '../../core/simulate';
import { callKind, edgeKind, opKind, str, type CallKind, type EdgeKind, type Trace } from '../../core/trace';

export function sim(scenario: Record<string, unknown>, profile?: SimProfile): Trace {
  return simulate(
    compileScenario(JSON.stringify({ name: 'test', ...scenario }, null, 1), 'test.scenario.json'),
    profile,
  );
}

/** The id of the only op named `name` (the nth one with `nth`). */
export function op(t: Trace, name: string, nth = 0): number {
  const ids = ops(t, name);
  if (ids.length <= nth)
    throw new Error(
      `no op "${name}" #${nth}; ops: ${[...Array(t.ops.count).keys()].map((i) => str(t, t.ops.name[i])).join(', ')}`,
    );
  return ids[nth];
}

export function ops(t: Trace, name: string): number[] {
  return [...Array(t.ops.count).keys()].filter((i) => str(t, t.ops.name[i]) === name);
}

/** Calls of one kind, in issue order. */
export function calls(t: Trace, kind: CallKind): number[] {
  return [...Array(t.calls.count).keys()].filter((i) => callKind(t, i) === kind);
}

export const start = (t: Trace, o: number): number => t.ops.start[o];
export const end = (t: Trace, o: number): number => t.ops.end[o];
export const lane = (t: Trace, name: string): number => t.lanes.findIndex((l) => l.name === name);

export function edges(t: Trace, kind: EdgeKind): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < t.edges.count; i++) if (edgeKind(t, i) === kind) out.push([t.edges.from[i], t.edges.to[i]]);
  return out;
}

export const hasEdge = (t: Trace, kind: EdgeKind, from: number, to: number): boolean =>
  edges(t, kind).some(([f, x]) => f === from && x === to);

export const opsOfKind = (t: Trace, kind: string): number[] =>
  [...Array(t.ops.count).keys()].filter((i) => opKind(t, i) === kind);
