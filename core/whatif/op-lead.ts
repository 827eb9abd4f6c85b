// The GPU time before each op that the trace measured and the simulator would not reproduce
// (docs/whatif.md). The simulator starts an op once the op before it on its stream has ended and its
// launch has been submitted; on the GPU, dependent ops on one stream start a little after each other
// (about a microsecond between kernels, more between a copy and a kernel), and a launch reaches the
// GPU a measured time after its call. A scenario from a trace adds that time to the op's duration, so
// that the replay's op ends when the trace's did. None is added where the op may have waited for
// something the scenario models itself: an event another stream records (a stream wait before it),
// SMs another stream's kernel held (one ran in that time), or ordering or a copy engine that another
// stream's op held (one ended in that time). Another stream's copy that ran through the whole time
// neither held SMs nor let the op go, so the time stays the op's.
import { countAtMost } from '../stats';
import { OK } from '../trace/kinds';
import type { Trace } from '../trace/model';

/** Ops whose duration a scenario step carries, so that the next op's wait starts at their end. */
const CARRIED = new Set<number>([OK.kernel, OK.memcpy, OK.hostFunc]);
/** Ops that hold their stream for a time. */
const WORK = new Set<number>([OK.kernel, OK.memcpy, OK.memset, OK.hostFunc]);

export class OpLeads {
  /**
   * Per op, the end of the last op before it on its stream whose duration a step carries
   * (-Infinity for none): a memset or an event's marker between them is part of the lead, since
   * the scenario gives them no time of their own.
   */
  private readonly prevCarriedEnd: Float64Array;
  /** Per op, whether a stream wait on an event lies on its stream between that op and it. */
  private readonly waitsBefore: Uint8Array;
  /** Per stream lane, the spans in which its kernels ran, merged and in time order. */
  private readonly kernelsRan = new Map<number, { from: number[]; to: number[] }>();
  /** Per stream lane, the ends of its work, in time order. */
  private readonly workEnds = new Map<number, number[]>();

  constructor(private readonly t: Trace) {
    const o = t.ops;
    this.prevCarriedEnd = new Float64Array(o.count).fill(-Infinity);
    this.waitsBefore = new Uint8Array(o.count);
    const order = [...Array(o.count).keys()].sort((a, b) => o.start[a] - o.start[b] || a - b);
    const lastEnd = new Map<number, number>();
    const waited = new Set<number>();
    for (const j of order) {
      const lane = o.lane[j];
      this.prevCarriedEnd[j] = lastEnd.get(lane) ?? -Infinity;
      if (waited.has(lane)) this.waitsBefore[j] = 1;
      if (o.kind[j] === OK.waitEvent) waited.add(lane);
      if (CARRIED.has(o.kind[j])) {
        lastEnd.set(lane, Math.max(this.prevCarriedEnd[j], o.end[j]));
        waited.delete(lane);
      }
      if (!WORK.has(o.kind[j]) || !(o.end[j] > o.start[j])) continue;
      (this.workEnds.get(lane) ?? this.workEnds.set(lane, []).get(lane)!).push(o.end[j]);
      if (o.kind[j] !== OK.kernel) continue;
      const spans = this.kernelsRan.get(lane) ?? this.kernelsRan.set(lane, { from: [], to: [] }).get(lane)!;
      const k = spans.to.length - 1;
      if (k >= 0 && o.start[j] <= spans.to[k]) spans.to[k] = Math.max(spans.to[k], o.end[j]);
      else {
        spans.from.push(o.start[j]);
        spans.to.push(o.end[j]);
      }
    }
    for (const ends of this.workEnds.values()) ends.sort((a, b) => a - b);
  }

  /**
   * How long op `j` started after both the end of the op before it on its stream and `ready`, when
   * the replay's host will have submitted it (in the trace's time): 0 where that time may have been
   * a wait for another stream, which the scenario models.
   */
  leadNs(j: number, ready: number): number {
    const o = this.t.ops;
    if (this.waitsBefore[j]) return 0;
    const from = Math.max(this.prevCarriedEnd[j], ready);
    const lead = o.start[j] - from;
    if (!(lead > 0) || this.otherStreamMayHold(o.lane[j], from, o.start[j])) return 0;
    return lead;
  }

  /** Whether a stream other than `lane` ran a kernel, or ended an op, at some time between `from` and `to`. */
  private otherStreamMayHold(lane: number, from: number, to: number): boolean {
    for (const [other, ends] of this.workEnds) {
      if (other === lane) continue;
      const k = countAtMost(ends.length, (n) => ends[n], from);
      if (k < ends.length && ends[k] <= to) return true;
    }
    for (const [other, spans] of this.kernelsRan) {
      if (other === lane) continue;
      // The first span that ends after `from`: it ran in the time if it begins before `to`.
      const lo = countAtMost(spans.to.length, (k) => spans.to[k], from);
      if (lo < spans.to.length && spans.from[lo] < to) return true;
    }
    return false;
  }
}
