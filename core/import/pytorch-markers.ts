// Call-site markers of `syncscope profile`: a zero-length record_function named
// `syncscope.site:{"stack":[["file",line,"function"],...]}`, emitted on the calling thread just
// before a synchronizing call. Each names the line of the first host wait after it on its thread,
// before that thread's next marker, and of the later waits inside the same framework op (the
// stream sync after aten::item's copy); the marker itself is not a call.
import { CK, isWait, TraceBuilder } from '../trace/model';
import { parseMarker, SiteTable } from './python-sites';

export interface Marker {
  /** Staging lane (before lanes are ordered). */
  lane: number;
  /** Kineto time in ns, before the trace's time origin is taken off. */
  time: number;
  /** String id of the record_function name. */
  name: number;
}

export interface SiteMarkers {
  malformed: number;
  unjoined: number;
}

/** Gives each marker's site (precision 'line') to the wait it precedes; waits resolved already. */
export function attachMarkers(
  b: TraceBuilder,
  sites: SiteTable,
  markers: Marker[],
  laneMap: Int32Array,
  t0: number,
): SiteMarkers {
  const counts: SiteMarkers = { malformed: 0, unjoined: 0 };
  if (!markers.length) return counts;
  // Per lane, markers in time order, each with its site (-1: malformed or no user frame).
  const byLane = new Map<number, { time: number; site: number }[]>();
  for (const m of markers) {
    const stack = parseMarker(b.strings.get(m.name));
    if (typeof stack === 'string') counts.malformed++;
    const site = typeof stack === 'string' ? -1 : sites.add(stack, 'line');
    const lane = laneMap[m.lane];
    let list = byLane.get(lane);
    if (!list) byLane.set(lane, (list = []));
    list.push({ time: m.time - t0, site });
  }
  for (const list of byLane.values()) list.sort((x, y) => x.time - y.time);

  // Calls are in time order: walk them once, keeping each lane's next marker and the pending one.
  const c = b.calls.cols;
  const next = new Map<number, number>();
  const pending = new Map<number, number>();
  /** The site a lane's last marker gave, and the enclosing ops of the wait that took it. */
  const joined = new Map<number, { site: number; context: number }>();
  for (let i = 0; i < b.calls.count; i++) {
    if (c.kind[i] === CK.context) continue;
    const lane = c.lane[i];
    const list = byLane.get(lane);
    if (!list) continue;
    let k = next.get(lane) ?? 0;
    for (; k < list.length && list[k].time <= c.begin[i]; k++) {
      if ((pending.get(lane) ?? -1) >= 0) counts.unjoined++;
      pending.set(lane, list[k].site);
      joined.delete(lane);
    }
    next.set(lane, k);
    if (!isWait({ calls: c }, i)) continue;
    const site = pending.get(lane);
    if (site !== undefined) {
      if (site >= 0) c.site[i] = site + 1;
      pending.delete(lane);
      joined.set(lane, { site, context: c.context[i] });
    } else {
      // The same framework op's later waits (aten::item's copy, then its stream sync) share the line.
      const last = joined.get(lane);
      if (last && last.site >= 0 && last.context !== 0 && last.context === c.context[i]) c.site[i] = last.site + 1;
    }
  }
  for (const [lane, list] of byLane) {
    for (let k = next.get(lane) ?? 0; k < list.length; k++) if (list[k].site >= 0) counts.unjoined++;
    if ((pending.get(lane) ?? -1) >= 0) counts.unjoined++;
  }
  return counts;
}
