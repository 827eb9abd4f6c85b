// A simulated trace of a scenario made from a trace, made to read like that trace (docs/whatif.md):
// each op named as the trace op its step stands for, each call carrying the trace call's name, its
// site in the user's program and its framework context instead of the generated scenario's line, and
// each thread and stream lane named as in the trace. The replay and the what-if show their timelines
// this way, so that a wait's "Where" is the user's line and a kernel keeps its name.
import { OK } from '../trace/kinds';
import { str, type CallSite, type Trace } from '../trace/model';
import type { GeneratedScenario, GeneratedStep } from './from-trace';

/** Ops that are work: a marker (an event's record or wait) keeps the simulator's name. */
const WORK = new Set<number>([OK.kernel, OK.memcpy, OK.memset, OK.hostFunc]);

/**
 * The scenario step each call of `sim` (a simulation of `threads`, its lanes still named as the
 * scenario names them) stands for; undefined for a call of no step. A lone thread is the
 * simulator's `main`, whatever the scenario called it.
 */
export function stepsOfSimCalls(threads: Map<string, GeneratedStep[]>, sim: Trace): (GeneratedStep | undefined)[] {
  const single = threads.size === 1;
  const byLane = new Map<number, GeneratedStep[]>();
  for (const [name, steps] of threads) {
    const lane = sim.lanes.find((l) => l.kind === 'thread' && l.name === (single ? 'main' : name));
    if (lane)
      byLane.set(
        lane.id,
        steps.filter((s) => Object.keys(s.step).length),
      );
  }
  const out: (GeneratedStep | undefined)[] = new Array(sim.calls.count);
  for (let i = 0; i < sim.calls.count; i++) out[i] = byLane.get(sim.calls.lane[i])?.[sim.calls.step[i]];
  return out;
}

/**
 * `sim`, a simulation of `g` with these `threads` (g's own or an edit of them), relabelled in place
 * after `t`; `stepOf`: stepsOfSimCalls of them, where the caller made it already.
 */
export function withOrigins(
  t: Trace,
  g: GeneratedScenario,
  sim: Trace,
  threads: Map<string, GeneratedStep[]> = g.threads,
  stepOf = stepsOfSimCalls(threads, sim),
): Trace {
  const ids = new Map<string, number>(sim.strings.map((s, k) => [s, k]));
  const id = (s: string): number => {
    let k = ids.get(s);
    if (k === undefined) {
      k = sim.strings.length;
      sim.strings.push(s);
      ids.set(s, k);
    }
    return k;
  };
  const siteIds = new Map<CallSite, number>(sim.sites.map((s, k) => [s, k + 1]));
  const siteId = (site: CallSite): number => {
    let k = siteIds.get(site);
    if (k === undefined) {
      sim.sites.push(site);
      k = sim.sites.length;
      siteIds.set(site, k);
    }
    return k;
  };
  // Every lane is found by its scenario name before any takes its trace name.
  const single = threads.size === 1;
  const found = [...threads.keys()].map((name) => ({
    name,
    lane: sim.lanes.find((l) => l.kind === 'thread' && l.name === (single ? 'main' : name)),
  }));
  for (const { name, lane } of found) {
    const from = g.laneOf('thread', name);
    if (lane && from !== undefined && t.lanes[from]) lane.name = t.lanes[from].name;
  }
  for (const lane of sim.lanes) {
    if (lane.kind !== 'stream') continue;
    const from = g.laneOf('stream', lane.name);
    const l = from === undefined ? undefined : t.lanes[from];
    if (!l) continue;
    lane.name = l.name;
    if (l.handle !== undefined) lane.handle = l.handle;
  }
  const c = sim.calls;
  const tc = t.calls;
  for (let i = 0; i < c.count; i++) {
    const call = stepOf[i]?.call ?? -1;
    if (call < 0) continue;
    // The generated scenario's position means nothing to the user: the trace's site and context say where.
    c.line[i] = 0;
    c.column[i] = 0;
    const site = t.sites[tc.site[call] - 1];
    if (site) c.site[i] = siteId(site);
    if (tc.context[call]) c.context[i] = id(str(t, tc.context[call]));
    // A step of another kind under the call (an inferred record after a launch) keeps its own name.
    if (c.kind[i] === tc.kind[call] && tc.name[call]) c.name[i] = id(str(t, tc.name[call]));
  }
  for (let j = 0; j < sim.ops.count; j++) {
    if (!WORK.has(sim.ops.kind[j])) continue;
    const call = sim.ops.call[j];
    const op = call >= 0 ? stepOf[call]?.op : undefined;
    // An edited copy (pinned where the trace's was pageable) is no longer the trace's op: it keeps its own name.
    const edited =
      op !== undefined &&
      sim.ops.kind[j] === OK.memcpy &&
      t.ops.hostMemory[op] !== 0 &&
      sim.ops.hostMemory[j] !== t.ops.hostMemory[op];
    const same = op !== undefined && !edited;
    if (same && t.ops.name[op]) sim.ops.name[j] = id(str(t, t.ops.name[op]));
  }
  return sim;
}
