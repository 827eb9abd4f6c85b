// Declared buffer accesses grouped by op (the trace lists them in any order).
import type { Trace } from '../trace/model';
import { groupByKey } from './csr';

export interface AccessIndex {
  /** Access rows of op j: rows[start[j] .. start[j + 1]). */
  start: Int32Array;
  rows: Int32Array;
}

export function accessIndex(t: Trace): AccessIndex {
  const { start, ids } = groupByKey(t.accesses.op, t.accesses.count, t.ops.count);
  return { start, rows: ids };
}
