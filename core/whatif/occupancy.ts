// How many blocks of a kernel an SM held at once, where the trace shows it (docs/whatif.md). The
// simulator places blocks by their threads only; a kernel's registers and shared memory may allow
// fewer, and a kernel on another stream then waits for SMs. The trace shows that wait: a kernel
// ready to run (issued, its stream's earlier work done) that started only when a kernel on another
// stream entered its last wave of blocks, when SMs began to free. That kernel's duration over the
// time from then to its end is its number of waves, and its grid over the waves and the SMs is how
// many of its blocks an SM held. A kernel of the same name, grid and block runs the same code with
// the same resources, so the answer holds for each of its launches.
import { LIMITS } from '../scenario/kinds';
import { OK } from '../trace/kinds';
import { EDGE_KINDS, str, type Trace } from '../trace/model';

const LAUNCH = EDGE_KINDS.indexOf('launch');
const RELEASE = EDGE_KINDS.indexOf('release');

/** A kernel that started this much later than it could have was waiting for SMs, not for its stream. */
const QUEUED_NS = 20_000;
/** How close the waves must come to a whole number for the start to be a wave boundary. */
const WAVE_FIT = 0.1;

/** How many kernels that started before a queued one was ready are looked at: only the last few of each stream can still be running. */
const SCANNED = 256;

/** The index of the last kernel (sorted by start) that started before `time`, or -1. */
function lastBefore(sorted: number[], start: Float64Array, time: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (start[sorted[mid]] < time) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** What makes two launches the same kernel with the same resources. */
export const kernelSignature = (t: Trace, j: number): string =>
  `${str(t, t.ops.name[j])}\u0000${t.ops.grid[j]}\u0000${t.ops.block[j]}`;

/** Per kernel signature, the blocks per SM the trace shows; signatures without evidence, or with evidence that disagrees, are left out. */
export function occupancyFromQueueing(t: Trace, sms: number): Map<string, number> {
  const o = t.ops;
  const kernels: number[] = [];
  for (let j = 0; j < o.count; j++)
    if (o.kind[j] === OK.kernel && o.grid[j] > 0 && o.end[j] > o.start[j]) kernels.push(j);
  const ready = readyTimes(t);
  kernels.sort((a, b) => o.start[a] - o.start[b] || a - b);
  const found = new Map<string, Set<number>>();
  for (const k of kernels) {
    if (!(o.start[k] - ready[k] > QUEUED_NS)) continue;
    // The kernels that started last before it was ready: those still running hold its SMs.
    let at = lastBefore(kernels, o.start, ready[k]);
    for (let seen = 0; at >= 0 && seen < SCANNED; at--, seen++) {
      const j = kernels[at];
      if (o.lane[j] === o.lane[k] || !(o.end[j] > o.start[k])) continue;
      const perSm = blocksPerSm(o.grid[j], o.end[j] - o.start[j], o.end[j] - o.start[k], sms);
      if (perSm === undefined) continue;
      const sig = kernelSignature(t, j);
      (found.get(sig) ?? found.set(sig, new Set()).get(sig)!).add(perSm);
    }
  }
  const out = new Map<string, number>();
  for (const [sig, values] of found) if (values.size === 1) out.set(sig, [...values][0]);
  return out;
}

/**
 * A kernel of `grid` blocks lasting `duration`, whose last wave took `lastWave`: its blocks per SM,
 * where the waves come to a whole number and one value fits them; undefined otherwise.
 */
function blocksPerSm(grid: number, duration: number, lastWave: number, sms: number): number | undefined {
  const w = duration / lastWave;
  const waves = Math.round(w);
  if (waves < 2 || Math.abs(w - waves) > WAVE_FIT) return undefined;
  const perSm = Math.ceil(grid / (waves * sms));
  // With that many per SM, one wave fewer must not have held the grid; no GPU holds more than LIMITS' blocks per SM.
  return grid > (waves - 1) * sms * perSm && perSm <= LIMITS.blocksPerSm ? perSm : undefined;
}

/** When each op could have started: its issuing call's end, and the end of the op before it on its stream and of every op an edge orders it after. */
function readyTimes(t: Trace): Float64Array {
  const o = t.ops;
  const ready = new Float64Array(o.count).fill(-Infinity);
  for (let j = 0; j < o.count; j++) if (o.call[j] >= 0) ready[j] = t.calls.end[o.call[j]];
  const order = [...Array(o.count).keys()].sort((a, b) => o.start[a] - o.start[b] || a - b);
  const lastEnd = new Map<number, number>();
  for (const j of order) {
    ready[j] = Math.max(ready[j], lastEnd.get(o.lane[j]) ?? -Infinity);
    lastEnd.set(o.lane[j], Math.max(lastEnd.get(o.lane[j]) ?? -Infinity, o.end[j]));
  }
  // Op-to-op edges (events, the legacy stream's order): the op waited for the one before it.
  for (let e = 0; e < t.edges.count; e++) {
    const from = t.edges.from[e];
    const to = t.edges.to[e];
    if (
      from >= 0 &&
      to >= 0 &&
      from < o.count &&
      to < o.count &&
      t.edges.kind[e] !== LAUNCH &&
      t.edges.kind[e] !== RELEASE
    )
      ready[to] = Math.max(ready[to], o.end[from]);
  }
  return ready;
}
