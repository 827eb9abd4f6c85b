// Search by name over calls and ops: the matching strings are found once in the string table, so
// the scan of the columns compares integers only.
import type { Trace } from '../core/trace/model';
import type { Item } from './view';

export const MAX_MATCHES = 10000;

/** Items whose name contains `query` (case-insensitive), in time order. */
export function findMatches(t: Trace, query: string): Item[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const hit = new Uint8Array(t.strings.length);
  let any = false;
  t.strings.forEach((s, k) => {
    if (k && s.toLowerCase().includes(q)) {
      hit[k] = 1;
      any = true;
    }
  });
  if (!any) return [];
  const out: { item: Item; at: number }[] = [];
  for (let i = 0; i < t.ops.count && out.length < MAX_MATCHES; i++)
    if (hit[t.ops.name[i]]) out.push({ item: { table: 'ops', id: i }, at: t.ops.start[i] });
  for (let i = 0; i < t.calls.count && out.length < 2 * MAX_MATCHES; i++)
    if (hit[t.calls.name[i]]) out.push({ item: { table: 'calls', id: i }, at: t.calls.begin[i] });
  return out
    .sort((a, b) => a.at - b.at)
    .slice(0, MAX_MATCHES)
    .map((m) => m.item);
}
