// What the timeline shows, row by row: host threads (one track per call nesting depth, a Python
// stack folded to the user's frames by fold.ts), then per device its streams and copy engines.
// Each track carries its level-of-detail index.
import type { Lane, Trace } from '../core/trace/model';
import { foldPythonStacks } from './fold';
import { indexTracks, runningEnd, TrackIndex, TrackIndexes, trackOf, TrackOf } from './lod';

export interface Track extends TrackIndex {
  table: 'calls' | 'ops';
  lane: number;
  depth: number;
  /** An item of the kind most common on this track: merged runs take its colour. */
  typical: number;
  /** Layout: top of the track in content pixels, and its height. */
  y: number;
  h: number;
  /** The track of a folded thread's hidden Python frames: never drawn. */
  hidden?: boolean;
}

export interface Row {
  lane: Lane;
  title: string;
  /** Stream flags in words: legacy default, non-blocking, priority, per-thread. */
  flags: string[];
  tracks: Track[];
  group: number;
  y: number;
  h: number;
  /** A host thread with Python frames of libraries or the launcher: whether they are folded away, and how many tracks that saves. */
  fold?: { folded: boolean; saves: number };
}

export interface Group {
  key: string;
  title: string;
  rows: Row[];
  collapsed: boolean;
  y: number;
}

export const TRACK_H = 20;
export const ROW_PAD = 6;
export const GROUP_H = 24;

export interface Rows {
  groups: Group[];
  rows: Row[];
  tracks: Track[];
  /** Where each call and op goes (index into `tracks`), computed on demand. */
  callTrack(i: number): number;
  opTrack(i: number): number;
  /** The trace's time span (as traceExtent gives it), read off the tracks' indexes. */
  extent: { start: number; end: number };
  height: number;
}

export function streamFlags(l: Lane, trace: Trace): string[] {
  if (l.kind !== 'stream') return l.kind === 'copyEngine' ? ['copy engine'] : [];
  const f: string[] = [];
  if (l.legacyDefault) f.push('legacy default');
  if (l.perThreadDefault)
    f.push(
      `per-thread${l.thread !== undefined && trace.lanes[l.thread] ? ' (' + trace.lanes[l.thread].name + ')' : ''}`,
    );
  // A flag the trace does not state (imported profiler traces) is not shown as either.
  if (l.nonBlocking) f.push('non-blocking');
  else if (l.nonBlocking === false && !l.legacyDefault) f.push('blocking');
  if (l.priority) f.push(`priority ${l.priority}`);
  return f;
}

/** `unfolded`: the lanes whose Python frames are all shown (fold.ts); the others fold theirs. */
export function buildRows(
  trace: Trace,
  collapsed: ReadonlySet<string>,
  unfolded: ReadonlySet<number> = new Set(),
): Rows {
  const L = trace.lanes.length;
  const C = trace.calls.count;
  const O = trace.ops.count;
  const fold = foldPythonStacks(trace, unfolded);
  const hasOps = new Uint8Array(L);
  for (let i = 0; i < O; i++) hasOps[trace.ops.lane[i]] = 1;

  // Track numbering: per lane, its call depths, then its ops.
  const callBase = new Int32Array(L);
  const opSlot = new Int32Array(L).fill(-1);
  let n = 0;
  for (let l = 0; l < L; l++) {
    callBase[l] = n;
    n += fold.tracks[l];
    if (hasOps[l] || fold.tracks[l] === 0) opSlot[l] = n++;
  }
  const callWhere: TrackOf = { lane: trace.calls.lane, depth: fold.slot, base: callBase };
  const opWhere: TrackOf = { lane: trace.ops.lane, depth: null, base: opSlot };
  const gc = indexTracks(callWhere, C, n, trace.calls.begin, trace.calls.end, trace.calls.kind);
  const go = indexTracks(opWhere, O, n, trace.ops.start, trace.ops.end, trace.ops.kind);

  const tracks: Track[] = [];
  const rowOf: Row[] = trace.lanes.map((lane) => ({
    lane,
    title: lane.name,
    flags: streamFlags(lane, trace),
    tracks: [],
    group: 0,
    y: 0,
    h: 0,
  }));
  for (let l = 0; l < L; l++) {
    if (fold.foldable[l]) rowOf[l].fold = { folded: fold.hiddenSlot[l] >= 0, saves: fold.saved[l] };
    for (let d = 0; d < fold.tracks[l]; d++) {
      const t = callBase[l] + d;
      tracks[t] = {
        ...trackAt(gc, t),
        table: 'calls',
        lane: l,
        depth: d,
        y: 0,
        h: TRACK_H,
      };
      if (d === fold.hiddenSlot[l]) tracks[t].hidden = true;
      rowOf[l].tracks.push(tracks[t]);
    }
    const t = opSlot[l];
    if (t >= 0) {
      tracks[t] = {
        ...trackAt(go, t),
        table: 'ops',
        lane: l,
        depth: 0,
        y: 0,
        h: TRACK_H,
      };
      rowOf[l].tracks.push(tracks[t]);
    }
  }

  const groups: Group[] = [];
  const groupOf = (key: string, title: string): number => {
    let g = groups.findIndex((x) => x.key === key);
    if (g < 0) g = groups.push({ key, title, rows: [], collapsed: collapsed.has(key), y: 0 }) - 1;
    return g;
  };
  // A run on several GPUs names each one; otherwise the trace's one device names them all.
  const deviceName = (d: number): string | undefined =>
    trace.meta.devices ? trace.meta.devices.find((x) => x.device === d)?.name : trace.meta.device?.name;
  const order = [...rowOf].sort(
    (a, b) =>
      host(a.lane) - host(b.lane) ||
      a.lane.device - b.lane.device ||
      rank(a.lane) - rank(b.lane) ||
      a.lane.id - b.lane.id,
  );
  for (const row of order) {
    const g =
      row.lane.kind === 'thread'
        ? groupOf('host', 'Host threads')
        : groupOf(
            `device${row.lane.device}`,
            `GPU ${row.lane.device}${deviceName(row.lane.device) ? ' · ' + deviceName(row.lane.device) : ''}`,
          );
    row.group = g;
    groups[g].rows.push(row);
  }
  const out: Rows = {
    groups,
    rows: groups.flatMap((g) => g.rows),
    tracks,
    callTrack: (i) => trackOf(callWhere, i),
    opTrack: (i) => trackOf(opWhere, i),
    extent: extentOf(tracks, trace),
    height: 0,
  };
  layoutRows(out);
  return out;
}

/** Places groups, rows and tracks top to bottom; a collapsed group keeps only its header, a hidden track takes no room. */
export function layoutRows(r: Rows): void {
  let y = 0;
  for (const g of r.groups) {
    g.y = y;
    y += GROUP_H;
    for (const row of g.rows) {
      row.y = y;
      let k = 0;
      for (const t of row.tracks) {
        t.y = y + ROW_PAD + k * TRACK_H;
        t.h = g.collapsed || t.hidden ? 0 : TRACK_H;
        if (t.h) k++;
      }
      // A thread whose every frame is folded away keeps one track's height for its header.
      row.h = g.collapsed ? 0 : Math.max(k, 1) * TRACK_H + 2 * ROW_PAD;
      y += row.h;
    }
  }
  r.height = y;
}

/** Each track's first start and last running end: the span without another pass over every item. */
function extentOf(tracks: Track[], trace: Trace): { start: number; end: number } {
  let start = Infinity;
  let end = -Infinity;
  for (const t of tracks) {
    const n = t.ids.length;
    if (!n) continue;
    const [s, e] = t.table === 'calls' ? [trace.calls.begin, trace.calls.end] : [trace.ops.start, trace.ops.end];
    start = Math.min(start, s[t.ids[0]]);
    end = Math.max(end, runningEnd(t, e, n - 1));
  }
  return start <= end ? { start, end } : { start: 0, end: 0 };
}

function trackAt(x: TrackIndexes, t: number): TrackIndex & { typical: number } {
  return { ids: x.ids.subarray(x.first[t], x.first[t + 1]), maxEnd: x.maxEnd[t], typical: x.typical[t] };
}

const host = (l: Lane): number => (l.kind === 'thread' ? 0 : 1);
const rank = (l: Lane): number => (l.kind === 'thread' ? 0 : l.kind === 'stream' ? 1 : 2);
