// Declared buffer accesses grouped by op (the trace lists them in any order).
import type { Trace } from '../trace/model';

export interface AccessIndex {
  /** Access rows of op j: rows[start[j] .. start[j + 1]). */
  start: Int32Array;
  rows: Int32Array;
}

export function accessIndex(t: Trace): AccessIndex {
  const a = t.accesses;
  const O = t.ops.count;
  const start = new Int32Array(O + 1);
  for (let i = 0; i < a.count; i++) if (a.op[i] >= 0 && a.op[i] < O) start[a.op[i] + 1]++;
  for (let j = 0; j < O; j++) start[j + 1] += start[j];
  const fill = start.slice(0, O);
  const rows = new Int32Array(start[O]);
  for (let i = 0; i < a.count; i++) if (a.op[i] >= 0 && a.op[i] < O) rows[fill[a.op[i]]++] = i;
  return { start, rows };
}
