// The scale of the what-if: a 10^5-op trace converted to a scenario and replayed (core/whatif/replay.ts),
// and, in the same run, the path that printed the generated scenario and parsed its text back.
import { cpus, loadavg } from 'node:os';
import { compileScenario, compileTree } from '../core/scenario/parse';
import { h200 } from '../core/simulate/profile';
import { simulate } from '../core/simulate/simulate';
import type { Trace } from '../core/trace/model';
import { scenarioFromTrace } from '../core/whatif/from-trace';
import { compileGenerated, GENERATED_FILE, replay } from '../core/whatif/replay';

export const SCALE_BOUND_S = 3;

/** 33,334 iterations of five steps: a copy, a launch, a record, host work and a wait; 10^5 ops. */
export function scaleTrace(): Trace {
  const text = `{ "name": "scale", "streams": { "s": { "nonBlocking": true } }, "events": { "e": {} },
    "buffers": { "h": { "bytes": 4096, "host": "pinned" }, "d": { "bytes": 4096 } },
    "steps": [ { "repeat": 33334, "steps": [
      { "copy": "h", "to": "d", "async": true, "stream": "s" }, { "launch": "k", "stream": "s", "us": 5 },
      { "record": "e", "stream": "s" }, { "hostWork": { "us": 3 } }, { "eventSync": "e" } ] } ] }`;
  return simulate(compileScenario(text), h200);
}

/**
 * The CPU time this process used (garbage collection threads included): the measure that does not depend
 * on what else runs on a shared machine; the wall time is given with it.
 */
export function timed<T>(f: () => T): { value: T; cpuS: number; wallS: number } {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const value = f();
  const used = process.cpuUsage(cpu);
  return { value, cpuS: (used.user + used.system) / 1e6, wallS: (performance.now() - start) / 1000 };
}

type Path = 'values' | 'unrolled' | 'text';

/**
 * Convert and simulate, compiling the scenario from its values (identical iterations folded, or all
 * unrolled, as a trace whose iterations differ is) or, as before, from its printed, unrolled text.
 */
function convertAndSimulate(t: Trace, path: Path): Trace {
  const g = scenarioFromTrace(t, h200);
  const unrolled = { repeat: false };
  const program =
    path === 'text'
      ? compileScenario(g.render(g.threads, unrolled), GENERATED_FILE)
      : path === 'unrolled'
        ? compileTree(g.tree(g.threads, unrolled), GENERATED_FILE).program!
        : compileGenerated(g);
  return simulate(program, h200);
}

/** The Scale section's table rows. */
export function scaleRows(): string[] {
  const t = scaleTrace();
  const r = timed(() => replay(t, h200));
  const load = `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`;
  const tree = timed(() => convertAndSimulate(t, 'values'));
  const unrolled = timed(() => convertAndSimulate(t, 'unrolled'));
  const text = timed(() => convertAndSimulate(t, 'text'));
  const s = (x: number) => `${x.toFixed(2)} s`;
  return [
    '| trace | what | CPU time | wall time | | bound |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${t.ops.count} ops, ${t.calls.count} calls | convert + replay (\`replay\`) | ${s(r.cpuS)} | ${s(r.wallS)} (${load}) | ${r.value.waits.length} waits compared | ${r.cpuS <= SCALE_BOUND_S ? 'within' : 'over'} ${SCALE_BOUND_S} s |`,
    `| same | convert + compile + simulate, the scenario's values compiled | ${s(tree.cpuS)} | ${s(tree.wallS)} | | |`,
    `| same | the same, every iteration unrolled (as for a trace whose iterations differ) | ${s(unrolled.cpuS)} | ${s(unrolled.wallS)} | | |`,
    `| same | the same, unrolled, its text printed and parsed back (the old path) | ${s(text.cpuS)} | ${s(text.wallS)} | ${(text.cpuS / tree.cpuS).toFixed(2)}x the values' CPU time, ${(text.cpuS / unrolled.cpuS).toFixed(2)}x unrolled | |`,
  ];
}
