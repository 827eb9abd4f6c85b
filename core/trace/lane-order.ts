// Stream order (S1) and the legacy default stream's implicit order (S3, S4) over a trace's stream
// lanes, as edges: the GPU runner's assembler and the capture converter both issue ops through it.
import type { Lane, TraceBuilder } from './model';

export class LaneOrder {
  private readonly lastOp = new Map<number, number>();
  /** Per stream: its last op that legacy work was already ordered after, and the last legacy op it was ordered after. */
  private readonly intoLegacy = new Map<number, number>();
  private readonly fromLegacy = new Map<number, number>();
  /** Per device, its legacy default stream lane, once one exists. */
  private readonly legacy = new Map<number, number>();

  constructor(private readonly b: TraceBuilder) {}

  /** The ops that an op issued now on `lane` is ordered after (its stream predecessor and S3 predecessors). */
  predecessors(lane: number): number[] {
    const prev = this.lastOp.get(lane);
    const preds = prev === undefined ? [] : [prev];
    this.forS3(lane, (last) => preds.push(last));
    return preds;
  }

  /** Adds the ordering edges into `op`, just issued on `lane`, and makes it the lane's last op. */
  issue(lane: number, op: number): void {
    const prev = this.lastOp.get(lane);
    if (prev !== undefined) this.b.edge('stream', prev, op);
    this.forS3(lane, (last, other) => {
      if (this.b.lanes[lane].legacyDefault) this.intoLegacy.set(other, last);
      else this.fromLegacy.set(lane, last);
      this.b.edge('legacy', last, op);
    });
    this.lastOp.set(lane, op);
  }

  last(lane: number): number[] {
    const o = this.lastOp.get(lane);
    return o === undefined ? [] : [o];
  }

  /** The last op of every stream of `device` (S14, S21). */
  lastOfDevice(device: number): number[] {
    return [...this.lastOp].filter(([l]) => this.b.lanes[l].device === device).map(([, o]) => o);
  }

  /**
   * S3 within a device: each (last op, its lane) that an op on `lane` is ordered after and not yet
   * ordered after: for the legacy stream every other blocking stream's last op, for a blocking
   * stream the legacy stream's last op.
   */
  private forS3(lane: number, each: (last: number, other: number) => void): void {
    const s = this.b.lanes[lane];
    if (s.nonBlocking) return;
    if (s.legacyDefault) {
      for (const [other, last] of this.lastOp) {
        const o = this.b.lanes[other];
        if (other !== lane && !o.nonBlocking && o.device === s.device && this.intoLegacy.get(other) !== last)
          each(last, other);
      }
      return;
    }
    const legacy = this.legacyOf(s);
    const last = legacy === undefined ? undefined : this.lastOp.get(legacy);
    if (last !== undefined && this.fromLegacy.get(lane) !== last) each(last, legacy!);
  }

  private legacyOf(s: Lane): number | undefined {
    let id = this.legacy.get(s.device);
    if (id === undefined) {
      id = this.b.lanes.find((l) => l.kind === 'stream' && l.legacyDefault && l.device === s.device)?.id;
      if (id !== undefined) this.legacy.set(s.device, id);
    }
    return id;
  }
}
