// The selection's happens-before cone as per-item marks, ready for drawing: the analysis answers
// with lists of calls and ops, the canvas asks "is this one in it?" for every item it draws.
import { happensBefore, HappensBefore } from '../core/analyze/hb';
import type { Trace } from '../core/trace/model';
import type { Item } from './item';

export const CONE_BEFORE = 1;
export const CONE_AFTER = 2;
export const CONE_SELF = 3;

/** Per call and per op: 0 unrelated, CONE_BEFORE, CONE_AFTER or CONE_SELF. */
export interface Cone {
  calls: Uint8Array;
  ops: Uint8Array;
}

export class ConeFinder {
  private hb: HappensBefore | null = null;
  constructor(private readonly trace: Trace) {}

  of(item: Item): Cone {
    // Built on first use: a trace that is only looked at never pays for its clocks.
    this.hb ??= happensBefore(this.trace);
    const c = this.hb.cone({ kind: item.table === 'calls' ? 'call' : 'op', id: item.id });
    const out: Cone = { calls: new Uint8Array(this.trace.calls.count), ops: new Uint8Array(this.trace.ops.count) };
    for (const i of c.before.calls) out.calls[i] = CONE_BEFORE;
    for (const i of c.before.ops) out.ops[i] = CONE_BEFORE;
    for (const i of c.after.calls) out.calls[i] = CONE_AFTER;
    for (const i of c.after.ops) out.ops[i] = CONE_AFTER;
    (item.table === 'calls' ? out.calls : out.ops)[item.id] = CONE_SELF;
    return out;
  }
}
