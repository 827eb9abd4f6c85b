// Which GPU op released a host wait (S16), decided in one place so that every executor names the
// same op. The awaited op that completed last is the answer, except that an eventRecord or
// waitEvent marker is only a stand-in for the work it captured: users ask "what is this
// synchronize waiting for?", and "record event" answers nothing. So a marker is followed back,
// through its ordering edges (stream, legacy, event) and through any markers behind it, to the
// real op (kernel, copy, memset, host function) that completed last among those still pending when
// the wait began. The marker stays the answer only when no such op is behind it.
import { OK } from './kinds';
import { EDGE_KINDS, RELEASED_NONE, type TraceBuilder } from './model';

const RECORD = OK.eventRecord;
const KERNEL = OK.kernel;
const WAIT = OK.waitEvent;
const RELEASE = EDGE_KINDS.indexOf('release');
const LAUNCH = EDGE_KINDS.indexOf('launch');

const isMarker = (kind: number): boolean => kind === RECORD || kind === WAIT;

/** In a measured trace, a launch this much slower than the usual few µs waited for room in the launch queue (S19). */
const QUEUE_BLOCKED_NS = 50_000;

/**
 * Names releasing ops on a trace while it is being built. It finds a marker's predecessors without
 * an index, because both executors add an op's `launch` edge when they create the op and its
 * ordering edges right after: so launch edges come in op order, and an op's incoming ordering edges
 * sit between its launch edge and the next op's. A binary search finds them, so a producer may ask
 * after every wait (a million-op simulation asks thousands of times) at no cost per edge. Where a
 * producer breaks that order, its markers find no work behind them and stay the answer.
 */
export class ReleaseRule {
  /** The walk's ops to expand, and those it has met: a handful, however large the trace. */
  private readonly stack: number[] = [];
  private readonly seen: number[] = [];
  private readonly one = [0];
  /**
   * For S19: each lane's ops in issue order, how many of them had completed when the last slow
   * launch began, and how many ops are filed. Ops of a stream complete in order and launches are
   * met in begin order, so each op is passed over once however many launches wait.
   */
  private readonly laneOps = new Map<number, number[]>();
  private readonly laneDone = new Map<number, number>();
  private filed = 0;

  /**
   * `kernelLagNs`: how long after a kernel's end the host can see it complete. The simulator's
   * kernels end when the host can see them (0); on the GPU a kernel's end is its last instruction,
   * and its completion event lands a measured latency later, so a wait that began in between still
   * waited for that kernel.
   */
  constructor(
    private readonly b: TraceBuilder,
    private readonly kernelLagNs = 0,
  ) {}

  private pending(o: number, since: number): boolean {
    const { kind, end } = this.b.ops.cols;
    return end[o] + (kind[o] === KERNEL ? this.kernelLagNs : 0) > since;
  }

  /**
   * The releasing op of a host wait on `awaited` that began at `since`, or RELEASED_NONE when
   * none of them was still pending then (completed after `since`). Ties go to a real op over a
   * marker, then to the op issued later. `count`: how many of `awaited` to read.
   */
  releasingOp(awaited: ArrayLike<number>, since: number, count = awaited.length): number {
    const { kind, end } = this.b.ops.cols;
    let best = -1;
    for (let i = 0; i < count; i++) {
      const o = awaited[i];
      if (!this.pending(o, since)) continue;
      if (best < 0 || end[o] > end[best] || (end[o] === end[best] && later(o, best, kind))) best = o;
    }
    return best < 0 ? RELEASED_NONE : this.named(best, since);
  }

  /**
   * The op that a wait which began at `since` names for `op`, an op it waited for: `op` itself, or
   * for a marker the latest-ending real op behind it still pending at `since` (the later-issued on a
   * tie), or the marker when there is none.
   */
  named(op: number, since: number): number {
    return isMarker(this.b.ops.cols.kind[op]) ? this.workBehind(op, since) : op;
  }

  /**
   * Records what released `call`, a wait on `awaited` since `since` (by default the call's begin):
   * releasedBy, the unblock latency (return time minus that op's end) and the `release` edge. The
   * call's end must be final. Returns the op, or RELEASED_NONE (no edge, latency NaN).
   */
  release(
    call: number,
    awaited: ArrayLike<number>,
    count = awaited.length,
    since = this.b.calls.cols.begin[call],
  ): number {
    return this.settle(call, this.releasingOp(awaited, since, count));
  }

  /**
   * Records `op` as what released `call`, whose end must be final: releasedBy, the unblock latency
   * (return time minus the op's end) and the `release` edge; for RELEASED_NONE, no edge and a NaN
   * latency. Returns `op`.
   */
  settle(call: number, op: number): number {
    const c = this.b.calls.cols;
    c.releasedBy[call] = op;
    if (op < 0) {
      c.unblockNs[call] = NaN;
      return op;
    }
    c.unblockNs[call] = c.end[call] - this.b.ops.cols.end[op];
    this.b.edge('release', op, call);
    return op;
  }

  /**
   * S19 in a measured trace: a launch that took over QUEUE_BLOCKED_NS waited for room in its
   * stream's launch queue, and was let go by the first op of its device to complete after it began
   * (later completions happened while the host woke up). The whole call is blocked.
   * `pendingAtLeast`: name nothing unless that many ops of its stream (of its device, where the call
   * names no stream) were still queued when it began (without them the time went elsewhere, such as
   * loading a module). Call it before adding the launch's own op.
   */
  releaseQueuedLaunch(call: number, pendingAtLeast = 0): number {
    const c = this.b.calls.cols;
    const begin = c.begin[call];
    const stop = c.end[call];
    if (!(stop - begin > QUEUE_BLOCKED_NS)) return RELEASED_NONE;
    const { lane: opLane, end } = this.b.ops.cols;
    for (; this.filed < this.b.ops.count; this.filed++) {
      const l = opLane[this.filed];
      const list = this.laneOps.get(l);
      if (list) list.push(this.filed);
      else this.laneOps.set(l, [this.filed]);
    }
    const lanes = this.b.lanes;
    const own = c.stream[call];
    const device = own >= 0 ? lanes[own].device : undefined;
    let pending = 0;
    let best = -1;
    for (const [l, list] of this.laneOps) {
      if (device !== undefined && lanes[l].device !== device) continue;
      let k = this.laneDone.get(l) ?? 0;
      while (k < list.length && !(end[list[k]] > begin)) k++;
      this.laneDone.set(l, k);
      if (own < 0 || l === own) pending += list.length - k;
      const first = list[k];
      if (k < list.length && end[first] <= stop && (best < 0 || end[first] < end[best])) best = first;
    }
    if (pending < pendingAtLeast) return RELEASED_NONE;
    c.blockedNs[call] = stop - begin;
    if (best < 0) return RELEASED_NONE;
    this.one[0] = best;
    return this.release(call, this.one);
  }

  /** The latest-ending real op behind `marker` that ended after `since`; the marker itself if none. */
  private workBehind(marker: number, since: number): number {
    const { kind, end } = this.b.ops.cols;
    const { stack, seen } = this;
    let best = -1;
    stack.length = 0;
    seen.length = 0;
    stack.push(marker);
    const edges = this.b.edges;
    const { kind: ek, from, to } = edges.cols;
    while (stack.length > 0) {
      const m = stack.pop() as number;
      const launch = this.launchEdge(m);
      if (launch < 0) continue;
      for (let e = launch + 1; e < edges.count && ek[e] !== LAUNCH; e++) {
        if (ek[e] === RELEASE || to[e] !== m) continue;
        const o = from[e];
        // What ended by `since` was not pending, and neither was anything ordered before it.
        if (!this.pending(o, since) || seen.includes(o)) continue;
        seen.push(o);
        if (isMarker(kind[o])) stack.push(o);
        else if (best < 0 || end[o] > end[best] || (end[o] === end[best] && o > best)) best = o;
      }
    }
    return best >= 0 ? best : marker;
  }

  /** The index of `op`'s launch edge, or -1. */
  private launchEdge(op: number): number {
    const n = this.b.edges.count;
    const { kind, to } = this.b.edges.cols;
    // The first launch edge to `op` or a later op. Searching from any index, the first launch edge
    // at or after it goes to a later op the further on the index is: so that is monotone. Producers
    // mostly ask about ops issued lately, so the search gallops back from the end, then halves.
    let lo = 0;
    let hi = n;
    for (let step = 1; step < n; step *= 2) {
      let e = n - step;
      while (e < hi && kind[e] !== LAUNCH) e++;
      if (e < hi && to[e] < op) {
        lo = e + 1;
        break;
      }
      hi = n - step;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      let e = mid;
      while (e < hi && kind[e] !== LAUNCH) e++;
      if (e === hi || to[e] >= op) hi = mid;
      else lo = e + 1;
    }
    while (lo < n && kind[lo] !== LAUNCH) lo++;
    return lo < n && to[lo] === op ? lo : -1;
  }
}

/** `a` wins a tie with `b`: a real op beats a marker, then the later-issued op. */
function later(a: number, b: number, kind: ArrayLike<number>): boolean {
  const ma = isMarker(kind[a]);
  return ma !== isMarker(kind[b]) ? !ma : a > b;
}
