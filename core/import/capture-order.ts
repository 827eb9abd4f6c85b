// Stream order (S1) and the legacy default stream's implicit order (S3, S4) over a trace's stream
// lanes, as edges, for producers that learn streams as they go (the capture converter). The GPU
// runner's assembler does the same over a scenario's streams.
import type { Lane, TraceBuilder } from '../trace/model';

export class LaneOrder {
  private readonly lastOp = new Map<number, number>();
  /** Per stream: its last op that legacy work was already ordered after, and the last legacy op it was ordered after. */
  private readonly intoLegacy = new Map<number, number>();
  private readonly fromLegacy = new Map<number, number>();

  constructor(private readonly b: TraceBuilder) {}

  /** The ops that `op` on `lane` is ordered after (its stream predecessor and S3 predecessors). */
  predecessors(lane: number): number[] {
    const preds: number[] = [];
    const prev = this.lastOp.get(lane);
    if (prev !== undefined) preds.push(prev);
    const s = this.b.lanes[lane];
    if (s.nonBlocking) return preds;
    const legacy = this.legacyOf(s);
    if (s.legacyDefault) {
      for (const [other, last] of this.lastOp) {
        const o = this.b.lanes[other];
        if (other === lane || o.nonBlocking || o.device !== s.device || this.intoLegacy.get(other) === last) continue;
        preds.push(last);
      }
    } else if (legacy !== undefined) {
      const last = this.lastOp.get(legacy);
      if (last !== undefined && this.fromLegacy.get(lane) !== last) preds.push(last);
    }
    return preds;
  }

  /** Adds the ordering edges into `op`, just issued on `lane`, and makes it the lane's last op. */
  issue(lane: number, op: number): void {
    const prev = this.lastOp.get(lane);
    if (prev !== undefined) this.b.edge('stream', prev, op);
    const s = this.b.lanes[lane];
    if (!s.nonBlocking) {
      if (s.legacyDefault) {
        for (const [other, last] of [...this.lastOp]) {
          const o = this.b.lanes[other];
          if (other === lane || o.nonBlocking || o.device !== s.device || this.intoLegacy.get(other) === last) continue;
          this.intoLegacy.set(other, last);
          this.b.edge('legacy', last, op);
        }
      } else {
        const legacy = this.legacyOf(s);
        const last = legacy === undefined ? undefined : this.lastOp.get(legacy);
        if (last !== undefined && this.fromLegacy.get(lane) !== last) {
          this.fromLegacy.set(lane, last);
          this.b.edge('legacy', last, op);
        }
      }
    }
    this.lastOp.set(lane, op);
  }

  last(lane: number): number[] {
    const o = this.lastOp.get(lane);
    return o === undefined ? [] : [o];
  }

  /** The last op of every stream of `device` (S14). */
  lastOfDevice(device: number): number[] {
    return [...this.lastOp].filter(([l]) => this.b.lanes[l].device === device).map(([, o]) => o);
  }

  private legacyOf(s: Lane): number | undefined {
    return this.b.lanes.find((l) => l.kind === 'stream' && l.legacyDefault && l.device === s.device)?.id;
  }
}
