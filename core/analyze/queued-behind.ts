// What a releasing op queued behind on its stream. A wait at `.item()` is released by a copy of a
// few microseconds, yet it blocks for milliseconds: the copy was launched while the stream still
// had work queued, and by stream order (S1) it could start only when the op before it ended. That
// op, and how many ops the stream ran while the host waited, say what the host really waited for.
import type { Trace } from '../trace/model';

export interface QueuedBehind {
  /** The op that ran just before the releaser on its stream. */
  op: number;
  /** How many ops of that stream ended while the host waited, before the releaser started. */
  ops: number;
  /** The GPU time of those ops within the wait. */
  busyNs: number;
}

/** Each lane's ops in start order, and each op's position there. */
interface LaneOrder {
  byLane: Map<number, number[]>;
  position: Int32Array;
}

const orders = new WeakMap<Trace, LaneOrder>();

function laneOrder(t: Trace): LaneOrder {
  let order = orders.get(t);
  if (order) return order;
  const byLane = new Map<number, number[]>();
  for (let j = 0; j < t.ops.count; j++) {
    let list = byLane.get(t.ops.lane[j]);
    if (!list) byLane.set(t.ops.lane[j], (list = []));
    list.push(j);
  }
  const position = new Int32Array(t.ops.count);
  for (const list of byLane.values()) {
    list.sort((a, b) => t.ops.start[a] - t.ops.start[b] || a - b);
    list.forEach((j, k) => (position[j] = k));
  }
  order = { byLane, position };
  orders.set(t, order);
  return order;
}

/**
 * The op `released` queued behind when a wait that began at `waitBegin` ended with it: the op
 * before it on its stream, where the releaser was launched before that op ended and that op ended
 * after the wait began. Undefined where the releaser started on its own (launched on an idle
 * stream, or after the op before it ended), where it ran longer within the wait than the ops ahead
 * of it, or where the trace does not say when it was launched.
 */
export function queuedBehind(t: Trace, released: number, waitBegin: number): QueuedBehind | undefined {
  const launch = t.ops.call[released];
  if (launch < 0 || launch >= t.calls.count) return undefined;
  const { byLane, position } = laneOrder(t);
  const list = byLane.get(t.ops.lane[released])!;
  const k = position[released];
  const before = k > 0 ? list[k - 1] : -1;
  if (before < 0) return undefined;
  const ended = t.ops.end[before];
  if (ended <= waitBegin || ended <= t.calls.begin[launch]) return undefined;
  let ops = 0;
  let busyNs = 0;
  for (let i = k - 1; i >= 0 && t.ops.end[list[i]] > waitBegin; i--) {
    ops++;
    busyNs += t.ops.end[list[i]] - Math.max(t.ops.start[list[i]], waitBegin);
  }
  // Where the releaser itself ran longer than the work ahead of it, that work is not what the host
  // waited for.
  const own = t.ops.end[released] - Math.max(t.ops.start[released], waitBegin);
  return busyNs > own ? { op: before, ops, busyNs } : undefined;
}
