// "Simulate this fix" in one timeline (docs/whatif.md, "In VS Code"): the replayed trace and the fixed
// one as one trace on one time axis, each lane of the one beside the same lane of the other, and a
// lane on top that marks the host time the fix saves (or costs), and the findings of each run as it
// was analysed alone. Both simulations start at 0, so their times need no shifting. Pure, so that the
// extension and the tests build the same trace.
import { formatNs } from '../units';
import {
  CALL_COLUMNS,
  CK,
  EDGE_COLUMNS,
  EDGE_KINDS,
  OP_COLUMNS,
  ACCESS_COLUMNS,
  type CallSite,
  type Finding,
  type Lane,
  type Trace,
} from '../trace/model';
import { StringTable, tableFrom, type ColumnSchema, type Table } from '../trace/table';

/** What each half's lanes are called: `before · stream 13`. */
export const BEFORE = 'before';
export const AFTER = 'after';

/** Where a run's work is done: its last host call returned and its last GPU op ended (fixes.ts's Outcome.doneNs). */
export function doneAt(t: Trace): number {
  let end = -Infinity;
  for (let i = 0; i < t.calls.count; i++) if (t.calls.kind[i] !== CK.context) end = Math.max(end, t.calls.end[i]);
  for (let j = 0; j < t.ops.count; j++) end = Math.max(end, t.ops.end[j]);
  return Number.isFinite(end) ? end : 0;
}

/** Columns that hold a string id, a lane, a call, an op, or a site, per table: these are renumbered. */
const CALL_REFS = {
  strings: ['name', 'event', 'event2', 'status', 'context'],
  lanes: ['lane'],
  laneOrNone: ['stream'],
  ops: ['releasedBy'],
  site: ['site'],
} as const;

/**
 * The replayed trace and the fixed one as one: lanes paired (each of `before` then the same of
 * `after`), calls, ops, edges and accesses of both, and on top a `saved by <id>` lane whose one range
 * runs from where the fixed host is done to where the replayed one was (its name says how much).
 */
export function beforeAndAfter(before: Trace, after: Trace, id: string): Trace {
  // Each half's findings are its own: analysing the two together would pair ops of different runs.
  const strings = new StringTable();
  const lanes: Lane[] = [];
  const laneOf = [new Map<number, number>(), new Map<number, number>()];
  const add = (half: 0 | 1, l: Lane) => {
    laneOf[half].set(l.id, lanes.length);
    lanes.push({ ...l, id: lanes.length, name: `${half ? AFTER : BEFORE} · ${l.name}` });
  };
  const savedLane = lanes.length;
  lanes.push({ id: savedLane, kind: 'thread', name: `saved by ${id}`, device: 0 });
  for (const l of before.lanes) {
    add(0, l);
    const twin = after.lanes.find((m) => m.kind === l.kind && m.name === l.name && !laneOf[1].has(m.id));
    if (twin) add(1, twin);
  }
  for (const l of after.lanes) if (!laneOf[1].has(l.id)) add(1, l);
  // A lane's `thread` (a per-thread default stream's) names a lane of the same half.
  for (const l of lanes) if (l.thread !== undefined) l.thread = laneOf[l.name.startsWith(AFTER) ? 1 : 0].get(l.thread);

  const halves = [before, after] as const;
  const sites: CallSite[] = [];
  const callBase = [0, before.calls.count];
  const opBase = [0, before.ops.count];
  const siteBase = [0, before.sites.length];
  for (const t of halves) sites.push(...t.sites);
  const strId = halves.map((t) => t.strings.map((s) => strings.id(s)));

  const gain = doneAt(before) - doneAt(after);
  const [from, to] = gain >= 0 ? [doneAt(after), doneAt(before)] : [doneAt(before), doneAt(after)];
  const mark = strings.id(gain >= 0 ? `saves ${formatNs(gain)}` : `costs ${formatNs(-gain)}`);

  const calls = concat(CALL_COLUMNS, before.calls, after.calls, 1, (half, key, v) => {
    if ((CALL_REFS.strings as readonly string[]).includes(key)) return strId[half][v] ?? 0;
    if (key === 'lane') return laneOf[half].get(v) ?? 0;
    if (key === 'stream') return v < 0 ? v : (laneOf[half].get(v) ?? -1);
    if (key === 'releasedBy') return v < 0 ? v : v + opBase[half];
    if (key === 'site') return v > 0 ? v + siteBase[half] : 0;
    return v;
  });
  // The mark: a framework range on the saved lane, where the timeline draws ranges.
  const m = calls.count - 1;
  calls.lane[m] = savedLane;
  calls.kind[m] = CK.context;
  calls.begin[m] = from;
  calls.end[m] = to;
  calls.name[m] = mark;
  calls.stream[m] = -1;
  calls.releasedBy[m] = -1;
  calls.unblockNs[m] = NaN;
  calls.value[m] = NaN;
  calls.step[m] = -1;

  const ops = concat(OP_COLUMNS, before.ops, after.ops, 0, (half, key, v) => {
    if (key === 'name' || key === 'event') return strId[half][v] ?? 0;
    if (key === 'lane') return laneOf[half].get(v) ?? 0;
    if (key === 'call') return v < 0 ? v : v + callBase[half];
    return v;
  });
  const LAUNCH = EDGE_KINDS.indexOf('launch');
  const RELEASE = EDGE_KINDS.indexOf('release');
  const edgeKinds = halves.map((t) => t.edges.kind);
  const edges = concat(EDGE_COLUMNS, before.edges, after.edges, 0, (half, key, v, row) => {
    if (key === 'kind') return v;
    const kind = edgeKinds[half][row];
    // launch: call -> op; release: op -> call; the rest op -> op.
    const isCall = (key === 'from' && kind === LAUNCH) || (key === 'to' && kind === RELEASE);
    return v + (isCall ? callBase[half] : opBase[half]);
  });
  const accesses = concat(ACCESS_COLUMNS, before.accesses, after.accesses, 0, (half, key, v) =>
    key === 'op' ? v + opBase[half] : key === 'buffer' ? (strId[half][v] ?? 0) : v,
  );
  return {
    meta: { ...after.meta, scenario: { name: `${id}: before and after` } },
    lanes,
    strings: strings.list,
    calls,
    ops,
    edges,
    accesses,
    findings: [...halfFindings(before, BEFORE, 0, 0), ...halfFindings(after, AFTER, callBase[1], opBase[1])],
    sites,
  };
}

/** A half's findings with its calls and ops renumbered, each message saying which run it is of. */
function halfFindings(t: Trace, half: string, calls: number, ops: number): Finding[] {
  return t.findings.map((f) => ({
    ...f,
    message: `${half}: ${f.message}`,
    calls: f.calls.map((c) => c + calls),
    ops: f.ops.map((o) => o + ops),
  }));
}

/** Both tables' rows, each value through `map` (half 0: `a`, 1: `b`), and `extra` empty rows after. */
function concat<S extends ColumnSchema>(
  schema: S,
  a: Table<S>,
  b: Table<S>,
  extra: number,
  map: (half: 0 | 1, key: string, value: number, row: number) => number,
): Table<S> {
  return tableFrom(schema, a.count + b.count + extra, (cols) => {
    for (const key of Object.keys(schema) as (keyof S & string)[]) {
      const out = cols[key] as unknown as { [i: number]: number };
      ([a, b] as const).forEach((t, half) => {
        const col = t[key] as unknown as ArrayLike<number>;
        const base = half ? a.count : 0;
        for (let i = 0; i < t.count; i++) out[base + i] = map(half as 0 | 1, key, col[i], i);
      });
    }
  });
}
