// What step compilation needs to know: the declared names, the thread being compiled and its
// current device, and the running count of compiled steps that the repeat limit is checked against.
import type { Node } from './jsonc';
import type { BufferDecl, EventDecl, Pos, StreamDecl } from './program';
import type { Reader } from './read';
import { closest, listOf, unknown } from './suggest';
import { RESERVED_STREAMS, type ScenarioBudget } from './kinds';

export interface Scope {
  read: Reader;
  /** User-declared streams by name (not "default" and "legacy"). */
  streams: Map<string, number>;
  /** User-declared events by name. */
  events: Map<string, number>;
  buffers: Map<string, BufferDecl>;
  /** All events, user and internal; waitStream steps append internal ones. */
  eventDecls: EventDecl[];
  /** All streams, declared and built in. */
  streamDecls: StreamDecl[];
  thread: { id: number; name: string; defaultStream: number };
  /** The thread's current device (S21): `setDevice` steps change it, every thread starts on 0. */
  device: number;
  /** The legacy default stream of a device, made when a step first needs it (device 0's is stream 0). */
  legacyStream(device: number): number;
  /** What "default" names on a device: its legacy default stream, or the thread's own per-thread default stream there. */
  defaultStream(device: number): number;
  /** Notes where a device is first named; deviceSync checks and `devices` keys are judged by it. */
  useDevice(device: number, pos: Pos): void;
  /** deviceSync steps that named a device, checked once every use of every device is known. */
  deviceSyncs: { device: number; node: Node }[];
  /** Compiled steps so far, over all threads. */
  emitted: number;
  /** The simulator's estimated work for the steps so far (see stepWork), held to budget.work. */
  work: number;
  /** The most steps and work the scenario may unroll to. */
  budget: ScenarioBudget;
  /** How many repeats enclose the steps being compiled. */
  repeatDepth: number;
}

const listed = (what: string, names: readonly string[]): string =>
  names.length ? `Declared ${what}s: ${listOf(names)}` : `No ${what}s are declared; add one under "${what}s"`;

/** The id a name resolves to, or undefined after reporting it at `node`. */
function resolve<T>(
  scope: Scope,
  node: Node,
  label: string,
  what: string,
  names: Map<string, T>,
  builtins: readonly string[] = [],
): T | string | undefined {
  if (!scope.read.is(node, 'string', label)) return undefined;
  const name = node.value as string;
  if (builtins.includes(name)) return name;
  const found = names.get(name);
  if (found !== undefined) return found;
  scope.read.report.node(node, () => {
    const all = [...builtins, ...names.keys()];
    return unknown(what, name, listed(what, all), closest(name, all));
  });
  return undefined;
}

export function streamId(scope: Scope, node: Node, label: string): number | undefined {
  const r = resolve(scope, node, label, 'stream', scope.streams, RESERVED_STREAMS);
  return r === 'default'
    ? scope.defaultStream(scope.device)
    : r === 'legacy'
      ? scope.legacyStream(scope.device)
      : (r as number | undefined);
}

export const eventId = (scope: Scope, node: Node, label: string): number | undefined =>
  resolve(scope, node, label, 'event', scope.events) as number | undefined;

export const buffer = (scope: Scope, node: Node, label: string): BufferDecl | undefined =>
  resolve(scope, node, label, 'buffer', scope.buffers) as BufferDecl | undefined;
