// PyTorch profiler (Kineto) Chrome-trace JSON -> Trace. Events arrive in chunks and are kept as a few
// typed columns; lanes, ids, edges and wait explanations are worked out once, in finish(), because
// Kineto writes events out of time order (its cuda_sync "Stream Wait Event" records come last).
// How each wait is resolved, and why that is sound, is in docs/import.md.
import { StringTable, Table, TableBuilder } from '../trace/table';
import { CK, OK } from '../trace/kinds';
import { COPY_KINDS, HOST_MEMORY, Lane, Trace, TraceBuilder, TraceMeta } from '../trace/model';
import { createEventScanner, Utf8Decoder } from './scan';
import { callKindOf, copyOf } from './cuda-api';
import { issueIndex } from './issue-order';
import { arrangeInput, arrangeNatively, type Arrange, type RowIndex } from './pytorch-arranged';
import { corrIndex } from './corr-index';
import { resolveWaits, type StreamLane, Sync } from './pytorch-waits';
import { inferReleases } from './pytorch-infer';
import { attachMarkers, Marker, SiteMarkers } from './pytorch-markers';
import { launcherRole, markerKind, SITE_MARKER, SiteTable, type LauncherRole, type UserCode } from './python-sites';

/** A name or kind from the trace as text: only strings and numbers are names; an object (which may
 * carry its own `toString`) is not converted. */
const textOf = (v: unknown, fallback = ''): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : fallback;

export interface ImportOptions {
  /** Bytes consumed so far, after each chunk. */
  onProgress?: (bytes: number) => void;
  /**
   * A UTF-8 decoder to use instead of TextDecoder. Node's (ASCII copied as Latin-1) was a fifth
   * faster when whole chunks were decoded at once; with the fast path's 32 KiB texts the two measure alike.
   */
  decodeUtf8?: Utf8Decoder;
  /** The file's name, for error messages. */
  file?: string;
  /** Paths added to or taken out of the user's code, for the calls' sites. */
  userCode?: UserCode;
  /**
   * Saved traces only: false when the caller can read the document again. The reader then keeps
   * none of it, and a document that fails a check throws ReadAgain (see saved.ts).
   */
  keepDocument?: boolean;
}

export interface TraceImporter {
  push(chunk: string | Uint8Array): void;
  finish(): Trace;
}

type Json = Record<string, unknown>;

/** HOST_ROWS.context: an API call, an enclosing op, or a Python frame (also an enclosing op). */
export const API = 0;
export const CONTEXT = 1;
export const PYTHON = 2;

export const HOST_ROWS = {
  lane: Uint32Array,
  context: Uint8Array,
  begin: Float64Array,
  end: Float64Array,
  name: Int32Array,
  corr: Float64Array,
};
export const GPU_ROWS = {
  lane: Uint32Array,
  kind: Uint8Array,
  begin: Float64Array,
  end: Float64Array,
  name: Int32Array,
  corr: Float64Array,
  grid: Uint32Array,
  block: Uint32Array,
  bytes: Float64Array,
  copy: Uint8Array,
  hostMemory: Uint8Array,
};

/** What each Kineto category is to the importer. */
export type CategoryRole = 'api' | 'context' | 'python' | 'kernel' | 'memcpy' | 'memset' | 'sync' | 'skip';

/**
 * Kineto's categories, lower-cased; older versions used the capitalized names on the right. A Map,
 * so that a category named like an Object property ("constructor") is no category.
 */
export const KINETO_CATEGORIES: ReadonlyMap<string, CategoryRole> = new Map<string, CategoryRole>([
  ['cuda_runtime', 'api'],
  ['runtime', 'api'],
  ['cuda_driver', 'api'],
  ['driver', 'api'],
  ['cpu_op', 'context'],
  ['operator', 'context'],
  ['user_annotation', 'context'],
  ['python_function', 'python'],
  ['kernel', 'kernel'],
  ['gpu_memcpy', 'memcpy'],
  ['memcpy', 'memcpy'],
  ['gpu_memset', 'memset'],
  ['memset', 'memset'],
  ['cuda_sync', 'sync'],
  // Known and not needed: flows (we use correlation ids), profiler spans, overhead, GPU-side ranges.
  ['ac2g', 'skip'],
  ['trace', 'skip'],
  ['overhead', 'skip'],
  ['gpu_user_annotation', 'skip'],
  ['cuda_profiler_range', 'skip'],
  ['fwdbwd', 'skip'],
]);

/**
 * Kineto times are microseconds, since boot or since the epoch. A time that is not finite or is
 * beyond 2^53 µs (some 285 years) cannot be one, and would turn every time of the trace into
 * Infinity or NaN once times are taken from the earliest.
 */
const MAX_TIME_US = 2 ** 53;
const isTime = (v: unknown): v is number => typeof v === 'number' && Math.abs(v) <= MAX_TIME_US;

const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const product = (v: unknown): number => (Array.isArray(v) ? v.reduce((p: number, x) => p * num(x, 1), 1) : num(v, 0));

export function createPytorchImporter(opts: ImportOptions = {}): TraceImporter {
  const staging = new Staging();
  const scanner = createEventScanner(
    (list) => {
      for (const e of list) {
        if (typeof e === 'object' && e !== null && !Array.isArray(e)) staging.onEvent(e as Json);
        else staging.malformed++;
      }
    },
    opts.onProgress,
    opts.decodeUtf8,
  );

  return {
    push: (chunk) => scanner.push(chunk),
    finish() {
      const root = scanner.finish();
      return buildPytorchTrace(staging.staged(root, scanner.events), opts.userCode);
    },
  };
}

/** The events' rows as they stream in, in columns: calls (host) and ops (gpu), with their lanes and syncs. */
class Staging {
  readonly strings = new StringTable();
  readonly host = new TableBuilder(HOST_ROWS, 1 << 16);
  readonly gpu = new TableBuilder(GPU_ROWS, 1 << 16);
  // Lane ids by (pid, tid) for threads and (device, stream) for streams: numeric keys, because a
  // string key built per event costs more than the rest of the event's bookkeeping.
  private readonly laneIds = [new Map<number, Map<number, number>>(), new Map<number, Map<number, number>>()];
  readonly lanes: { key: string; thread: boolean; a: number; b: number }[] = [];
  readonly threadNames = new Map<string, string>();
  readonly syncs = new Map<number, Sync>();
  /** Call-site markers (not calls): staging lane, time and name. */
  readonly markers: Marker[] = [];
  readonly unknown = new Map<string, number>();
  malformed = 0;
  noDuration = 0;

  private lane(thread: boolean, a: number, c: number): number {
    const byA = this.laneIds[thread ? 1 : 0];
    let byC = byA.get(a);
    if (!byC) byA.set(a, (byC = new Map()));
    let id = byC.get(c);
    if (id === undefined) {
      id = this.lanes.length;
      this.lanes.push({ key: (thread ? 't' : 's') + a + '/' + c, thread, a, b: c });
      byC.set(c, id);
    }
    return id;
  }

  onEvent(e: Json): void {
    const ph = e.ph;
    if (ph === 'M') {
      if (e.name === 'thread_name')
        this.threadNames.set(`t${e.pid}/${e.tid}`, textOf((e.args as Json | undefined)?.name).trim());
      return;
    }
    if (ph !== 'X') return; // flows, instants, counters: nothing the model needs
    const rawCat = textOf(e.cat, typeof e.cat);
    const cat = KINETO_CATEGORIES.get(rawCat) ?? KINETO_CATEGORIES.get(rawCat.toLowerCase());
    if (cat === 'skip') return;
    if (cat === undefined) {
      this.unknown.set(rawCat, (this.unknown.get(rawCat) ?? 0) + 1);
      return;
    }
    const ts = e.ts;
    const dur = e.dur ?? 0;
    if (!isTime(ts) || !isTime(dur) || dur < 0) {
      this.malformed++;
      return;
    }
    if (e.dur === undefined) this.noDuration++;
    const args = (typeof e.args === 'object' && e.args !== null ? e.args : {}) as Json;
    const begin = Math.round(ts * 1000);
    const end = begin + Math.round(dur * 1000);
    const name = this.strings.id(textOf(e.name));
    const corr = num(args.correlation, -1);
    if (cat === 'sync') this.sync(e, args, corr);
    else if (cat === 'context' && markerKind(this.strings.get(name)))
      this.markers.push({
        lane: this.lane(true, num(e.pid, 0), num(e.tid, 0)),
        time: begin,
        name,
        after: markerKind(this.strings.get(name)) === 'after',
      });
    else if (cat === 'api' || cat === 'context' || cat === 'python')
      this.call(e, cat === 'api' ? API : cat === 'context' ? CONTEXT : PYTHON, begin, end, name, corr);
    else this.op(e, args, cat, begin, end, name, corr);
  }

  private sync(e: Json, args: Json, corr: number): void {
    const s: Sync = {
      kind: textOf(args.cuda_sync_kind ?? e.name),
      stream: num(args.stream, -1),
      device: num(args.device, -1),
      event: num(args.wait_on_cuda_event_id, -1),
      recordCorr: num(args.wait_on_cuda_event_record_corr_id, -1),
      waitOnStream: num(args.wait_on_stream, -1),
    };
    if (corr >= 0) this.syncs.set(corr, s);
    if (s.stream >= 0 && s.device >= 0) this.lane(false, s.device, s.stream);
  }

  private call(e: Json, context: number, begin: number, end: number, name: number, corr: number): void {
    const i = this.host.add();
    const h = this.host.cols;
    h.lane[i] = this.lane(true, num(e.pid, 0), num(e.tid, 0));
    h.context[i] = context;
    h.begin[i] = begin;
    h.end[i] = end;
    h.name[i] = name;
    h.corr[i] = corr;
  }

  private op(e: Json, args: Json, cat: string, begin: number, end: number, name: number, corr: number): void {
    const i = this.gpu.add();
    const g = this.gpu.cols;
    g.lane[i] = this.lane(false, num(args.device, num(e.pid, 0)), num(args.stream, num(e.tid, 0)));
    g.kind[i] = OK[cat as 'kernel' | 'memcpy' | 'memset'];
    g.begin[i] = begin;
    g.end[i] = end;
    g.name[i] = name;
    g.corr[i] = corr;
    g.grid[i] = cat === 'kernel' ? product(args.grid) : 0;
    g.block[i] = cat === 'kernel' ? product(args.block) : 0;
    g.bytes[i] = num(args.bytes, 0);
    if (cat === 'memcpy') [g.copy[i], g.hostMemory[i]] = copyCodes(this.strings.get(name));
  }

  staged(root: Json, events: number): Staged {
    const { strings, host, gpu, lanes, threadNames, syncs, markers, unknown, malformed, noDuration } = this;
    return {
      root,
      strings,
      host: { ...host.cols, count: host.count },
      gpu: { ...gpu.cols, count: gpu.count },
      lanes,
      threadNames,
      syncs,
      markers,
      unknown,
      malformed,
      noDuration,
      events,
    };
  }
}

/** The GPU_ROWS copy and hostMemory codes of a copy, from its name. */
export function copyCodes(name: string): [number, number] {
  const c = copyOf(name);
  return [COPY_KINDS.indexOf(c.copy), HOST_MEMORY.indexOf(c.hostMemory)];
}

/** Imports a whole Kineto trace held in memory. */
export function importPytorch(text: string | Uint8Array): Trace {
  const imp = createPytorchImporter();
  imp.push(text);
  return imp.finish();
}

/**
 * What a reader stages from a Kineto trace before the Trace is built: the JavaScript reader here,
 * or the native one (pytorch-columns.ts). The same Staged gives the same Trace.
 */
export interface Staged {
  root: Json;
  strings: StringTable;
  /** The staging columns as they are (longer than `count`: no trimming copy). */
  host: Table<typeof HOST_ROWS>;
  gpu: Table<typeof GPU_ROWS>;
  lanes: { key: string; thread: boolean; a: number; b: number }[];
  threadNames: Map<string, string>;
  syncs: Map<number, Sync>;
  markers: Marker[];
  unknown: Map<string, number>;
  malformed: number;
  noDuration: number;
  events: number;
  /**
   * The native reader's build of its own rows (pytorch-arranged.ts), which are then in time order,
   * and by name id what each name is used for (1: an API call's, 2: a Python frame's).
   */
  arrange?: Arrange;
  nameUse?: Uint8Array;
}

/**
 * Row numbers in `cmp` order, ties by row. Rows already in that order (the native reader stages
 * them so) cost one pass; otherwise a plain array's sort, which merges the sorted runs Kineto
 * writes in linear time.
 */
function sortedRows(count: number, cmp: (a: number, b: number) => number): ArrayLike<number> & Iterable<number> {
  let ordered = true;
  for (let i = 1; i < count && ordered; i++) ordered = cmp(i - 1, i) <= 0;
  if (ordered) {
    const rows = new Int32Array(count);
    for (let i = 0; i < count; i++) rows[i] = i;
    return rows;
  }
  const order = new Array<number>(count);
  for (let i = 0; i < count; i++) order[i] = i;
  return order.sort((a, c) => cmp(a, c) || a - c);
}

/** The Trace of a staged Kineto trace: lanes, ids, edges and wait explanations. */
export function buildPytorchTrace(s: Staged, userCode?: UserCode): Trace {
  const { host, gpu } = s;
  let apiCalls = 0;
  for (let i = 0; i < host.count; i++) apiCalls += host.context[i] === API ? 1 : 0;
  // Exact sizes spare the tables regrowing. Edges: a launch and a stream edge per op at most, and a
  // release or event edge per API call.
  const edgeRoom = 2 * gpu.count + apiCalls;
  // The native build fills columns of its own: the builder's calls and ops need no room.
  const b = s.arrange
    ? new TraceBuilder(s.strings.list, { calls: 0, ops: 0, edges: 0 })
    : new TraceBuilder(s.strings.list, { calls: host.count, ops: gpu.count, edges: edgeRoom });
  const lanes = addLanes(b, s);
  const t0 = timeOrigin(host, gpu);
  let maxCorr = -1;
  for (let i = 0; i < host.count; i++) if (host.corr[i] > maxCorr) maxCorr = host.corr[i];
  const sites = new SiteTable(b.sites, (id) => b.strings.get(id), userCode);
  const rows = s.arrange
    ? arrangeNatively(
        b,
        s.arrange,
        arrangeInput(b, s.nameUse!, lanes.laneMap, t0, maxCorr, {
          syncs: s.syncs,
          streams: lanes.streams,
          devices: lanes.devices,
          gpu,
        }),
        {
          hostCount: host.count,
          gpu,
          edgeRoom,
        },
        sites,
      )
    : arrangeHere(b, s, lanes.laneMap, t0, maxCorr, sites);
  const counts =
    'counts' in rows
      ? rows.counts
      : resolveWaits(b, rows.order, rows.callCorr, rows.opByCorr, s.syncs, lanes.streams, lanes.devices);
  inferReleases(b, lanes.devices.size === 1 ? [...lanes.devices][0] : -1, counts);
  const markers = attachMarkers(b, sites, s.markers, lanes.laneMap, t0);
  const m = meta(s.root, b, importNotes(counts, markers, s));
  if (markers.lines) m.python = { read: true, text: 'line markers of syncscope profile', markers: true };
  if (markers.plain) m.plainStep = markers.plain;
  return b.finish(m);
}

/** The ops and calls with their ids, the launch and stream edges and the ops' issue order. */
function arrangeHere(
  b: TraceBuilder,
  s: Staged,
  laneMap: Int32Array,
  t0: number,
  maxCorr: number,
  sites: SiteTable,
): RowIndex {
  const { opCorr, opByCorr } = addOps(b, s.gpu, laneMap, t0, maxCorr);
  const ops = b.ops.cols;
  const order = issueIndex(
    b.ops.count,
    opCorr,
    ops.end,
    (op) => ops.lane[op],
    (op) => b.lanes[ops.lane[op]].device,
  );
  const { callCorr, callByCorr } = addCalls(b, s.host, laneMap, t0, maxCorr, sites);
  // Launch edges, then stream order.
  for (let op = 0; op < b.ops.count; op++) {
    const call = callByCorr.get(opCorr[op]);
    if (call < 0) continue;
    ops.call[op] = call;
    b.calls.cols.stream[call] = ops.lane[op];
    b.edge('launch', call, op);
  }
  for (const list of order.byStream.values())
    for (let k = 1; k < list.ops.length; k++) b.edge('stream', list.ops[k - 1], list.ops[k]);
  return { order, callCorr, opByCorr };
}

/**
 * CUPTI's number for the legacy default stream (CUDA's stream 0): PyTorch's default stream in a
 * CUDA trace. Kineto states no other stream flag, so imported streams carry none.
 */
const LEGACY_STREAM = 7;

/** Lanes: host threads by (pid, tid), then streams by (device, stream). */
function addLanes(
  b: TraceBuilder,
  s: Staged,
): {
  laneMap: Int32Array;
  streams: StreamLane[];
  devices: Set<number>;
} {
  const pids = new Set(s.lanes.filter((l) => l.thread).map((l) => l.a));
  const devices = new Set(s.lanes.filter((l) => !l.thread).map((l) => l.a));
  const laneOrder = s.lanes
    .map((_, i) => i)
    .sort((x, y) => {
      const p = s.lanes[x],
        q = s.lanes[y];
      return Number(q.thread) - Number(p.thread) || p.a - q.a || p.b - q.b;
    });
  // Kineto does not say which device a thread made current; with one device it is that one.
  let hostDevice = Infinity;
  for (const d of devices) hostDevice = Math.min(hostDevice, d);
  if (hostDevice === Infinity) hostDevice = 0;
  const cuda = s.root.cuda_runtime_version !== undefined || s.root.cuda_driver_version !== undefined;
  const laneMap = new Int32Array(s.lanes.length);
  const streams: StreamLane[] = [];
  for (const i of laneOrder) {
    const l = s.lanes[i];
    const init: Omit<Lane, 'id'> = l.thread
      ? {
          kind: 'thread',
          name: (s.threadNames.get(l.key) || `thread ${l.b}`) + (pids.size > 1 ? ` [pid ${l.a}]` : ''),
          device: hostDevice,
        }
      : { kind: 'stream', name: `stream ${l.b}` + (devices.size > 1 ? ` (GPU ${l.a})` : ''), device: l.a, handle: l.b };
    if (!l.thread && l.b === LEGACY_STREAM && cuda) init.legacyDefault = true;
    laneMap[i] = b.lane(init);
    if (!l.thread) streams.push({ device: l.a, handle: l.b, lane: laneMap[i] });
  }
  return { laneMap, streams, devices };
}

/** The earliest begin of any call or op: the trace's time 0. */
function timeOrigin(host: Staged['host'], gpu: Staged['gpu']): number {
  let t0 = Infinity;
  for (let i = 0; i < host.count; i++) if (host.begin[i] < t0) t0 = host.begin[i];
  for (let i = 0; i < gpu.count; i++) if (gpu.begin[i] < t0) t0 = gpu.begin[i];
  return t0 === Infinity ? 0 : t0;
}

/** Ops in time order, with each op's correlation id and an index from correlation ids to ops. */
function addOps(b: TraceBuilder, gpu: Staged['gpu'], laneMap: Int32Array, t0: number, maxCorr: number) {
  const opOrder = sortedRows(gpu.count, (x, y) => gpu.begin[x] - gpu.begin[y]);
  const opCorr = new Float64Array(gpu.count);
  const opByCorr = corrIndex(maxCorr, gpu.count);
  const t = b.ops.cols;
  for (let k = 0; k < opOrder.length; k++) {
    const r = opOrder[k];
    const id = b.opRow(laneMap[gpu.lane[r]], gpu.kind[r], gpu.begin[r] - t0, gpu.end[r] - t0);
    t.name[id] = gpu.name[r];
    t.grid[id] = gpu.grid[r];
    t.block[id] = gpu.block[r];
    t.bytes[id] = gpu.bytes[r];
    t.copy[id] = gpu.copy[r];
    t.hostMemory[id] = gpu.hostMemory[r];
    opCorr[id] = gpu.corr[r];
    opByCorr.add(gpu.corr[r], id);
  }
  return { opCorr, opByCorr };
}

/** A call on a lane's stack of enclosing calls, as addCalls keeps it. */
interface StackEntry {
  end: number;
  /** Its name id, and what it adds to the context and depth of what it holds: nothing (the launcher's hidden frames), depth (a Python frame), or both (a range). */
  name: number;
  adds: 'hidden' | 'python' | 'range';
  /** The context string id its calls get. */
  joined: number;
  /** The node of its Python stack (SiteTable). */
  frames: number;
  /** The calls on the stack that are in the trace (the launcher's hidden frames are not), of them `shownPython` Python frames. */
  shown: number;
  shownPython: number;
  /** The index on the stack of the innermost Python frame (shown or the launcher's) at or below this entry; -1 for none. */
  pyAt: number;
  /** Which Python frames inside are shown: a Python frame's. */
  python: LauncherMode;
}

/**
 * The innermost Python frame on `stack` (its entries below `at`) still running at `time`: what a
 * Python frame or a call is inside. Ranges do not say it: Kineto may begin one inside the launcher's work and end it after
 * the script's (ProfilerStep#N begins in the profiler's step and outlasts the script's <module>).
 */
function openPython(stack: StackEntry[], time: number, at = stack.length): StackEntry | undefined {
  let k = at ? stack[at - 1].pyAt : -1;
  while (k >= 0 && stack[k].end <= time) k = k > 0 ? stack[k - 1].pyAt : -1;
  return k >= 0 ? stack[k] : undefined;
}

/**
 * Which Python frames inside a frame are shown: all (`shown`); none (`own`, the launcher's own
 * work); inside the frames that run the user's script (`chain`), only the chain's next frames;
 * inside runpy's `_run_code` (`runCode`), the exec call or the script's `<module>`; and inside its
 * `exec` (`exec`), the script.
 */
type LauncherMode = 'shown' | 'own' | 'chain' | 'runCode' | 'exec';

/** The mode of a Python frame with the launcher role `role` inside a frame of mode `mode`; undefined where it is shown. */
function hiddenFrame(mode: LauncherMode, role: LauncherRole | undefined): LauncherMode | undefined {
  if (mode === 'own' || role === 'own') return 'own';
  if (role === 'wrapper') return mode;
  if (role === 'chain' || role === 'exec' || role === 'runCode') return role;
  if (mode === 'runCode') return role === 'module' ? undefined : 'own';
  return mode === 'chain' ? 'own' : undefined;
}

/** "outer > name" string ids by (outer, name), so that each context is joined and interned once. */
function contextJoiner(b: TraceBuilder): (top: number, name: number) => number {
  const joined = new Map<number, number>();
  return (top, name) => {
    const key = name < 2 ** 26 ? top * 2 ** 26 + name : -1; // unique, and exact in a double
    let id = joined.get(key);
    if (id === undefined) {
      const text = b.strings.get(name);
      id = b.strings.id(top ? b.strings.get(top) + ' > ' + text : text);
      if (key >= 0) joined.set(key, id);
    }
    return id;
  };
}

/**
 * Where on `stack` a profiler range that ends at `end` goes: above the innermost entry that lasts
 * until it ends. A range that begins inside an entry and outlasts it (ProfilerStep#N begun by a
 * step() inside the optimizer's step, which ends first) is not inside it: stacked on it, every
 * later step would nest in the one before, its context and depth growing with each.
 */
function rangeParentDepth(stack: StackEntry[], end: number): number {
  let at = stack.length;
  while (at > 0 && stack[at - 1].end < end) at--;
  return at;
}

/**
 * Puts a range at `at`, below the entries that end before it: what they hold from now on is inside
 * it too, so their context and depth are made again on it. Their Python frame indices move up with them.
 */
function insertRange(
  stack: StackEntry[],
  at: number,
  entry: StackEntry,
  begin: number,
  join: (top: number, name: number) => number,
) {
  stack.splice(at, 0, entry);
  for (let k = at + 1; k < stack.length; k++) {
    const e = stack[k];
    const below = stack[k - 1];
    if (e.pyAt >= at) e.pyAt++;
    // One that ended before the range began (kept until what was stacked on it ends) holds nothing now.
    const adds = e.end <= begin ? 'hidden' : e.adds;
    e.joined = adds === 'range' ? join(below.joined, e.name) : below.joined;
    e.shown = below.shown + (adds === 'hidden' ? 0 : 1);
  }
}

/**
 * Calls in time order; on one thread an enclosing op comes before what it encloses. A call
 * inside a context (a profiler range) names it, joined with the contexts around it, and its site
 * is that of the Python frames around it.
 */
function addCalls(
  b: TraceBuilder,
  host: Staged['host'],
  laneMap: Int32Array,
  t0: number,
  maxCorr: number,
  sites: SiteTable,
) {
  const callOrder = sortedRows(
    host.count,
    (x, y) =>
      host.begin[x] - host.begin[y] ||
      Math.min(host.context[y], 1) - Math.min(host.context[x], 1) ||
      host.end[y] - host.end[x],
  );
  const stacks: StackEntry[][] = [];
  // Call kind codes by name id, worked out once per name (-1: not yet).
  const kindOfName = new Int8Array(b.strings.list.length).fill(-1);
  const join = contextJoiner(b);
  // By name id, twice (at the top of a thread, and below a frame that is shown): what the frame is to the launcher.
  const roles = new Map<number, LauncherRole | undefined>();
  const roleOf = (name: number, topOfThread: boolean) => {
    const key = name * 2 + (topOfThread ? 1 : 0);
    if (!roles.has(key)) roles.set(key, launcherRole(b.strings.get(name), topOfThread));
    return roles.get(key);
  };
  const callByCorr = corrIndex(maxCorr, host.count);
  const callCorr = new Float64Array(host.count);
  const cols = b.calls.cols;
  for (let k = 0; k < callOrder.length; k++) {
    const r = callOrder[k];
    const laneId = laneMap[host.lane[r]];
    const stack = (stacks[laneId] ??= []);
    while (stack.length && stack[stack.length - 1].end <= host.begin[r]) stack.pop();
    const python = host.context[r] === PYTHON;
    const at = host.context[r] && !python ? rangeParentDepth(stack, host.end[r]) : stack.length;
    const outer = at ? stack[at - 1] : undefined;
    const py = openPython(stack, host.begin[r], at);
    const top = outer?.joined ?? 0;
    const shown = outer?.shown ?? 0;
    const frames = py?.frames ?? 0;
    const shownPython = py?.shownPython ?? 0;
    const mode = py?.python ?? 'shown';
    const hidden = python ? hiddenFrame(mode, roleOf(host.name[r], shownPython === 0)) : undefined;
    if (hidden) {
      // The launcher's frames are nowhere in the trace: not on a lane, in a context or in a site.
      stack.push({
        end: host.end[r],
        name: host.name[r],
        adds: 'hidden',
        joined: top,
        frames,
        shown,
        shownPython,
        pyAt: stack.length,
        python: hidden,
      });
      continue;
    }
    const begin = host.begin[r] - t0;
    const end = host.end[r] - t0;
    let id: number;
    if (host.context[r]) {
      id = b.callRow(laneId, CK.context, begin, end);
      cols.depth[id] = Math.min(shown, 255);
      // Python frames make the call's site, not its context: a joined stack would grow with its depth.
      const entry: StackEntry = {
        end: host.end[r],
        name: host.name[r],
        adds: python ? 'python' : 'range',
        joined: python ? top : join(top, host.name[r]),
        frames: python ? sites.enter(frames, host.name[r]) : frames,
        shown: shown + 1,
        shownPython: shownPython + (python ? 1 : 0),
        pyAt: python ? at : (outer?.pyAt ?? -1),
        python: 'shown',
      };
      if (at === stack.length) stack.push(entry);
      else insertRange(stack, at, entry, host.begin[r], join);
    } else {
      const name = host.name[r];
      if (kindOfName[name] < 0) kindOfName[name] = CK[callKindOf(b.strings.get(name))];
      id = b.callRow(laneId, kindOfName[name], begin, end);
      cols.context[id] = top;
      // A call of the launcher's own work (the profiler's stop) is at no line of the user's.
      if (frames && mode !== 'own') cols.site[id] = sites.siteAt(frames) + 1;
    }
    cols.name[id] = host.name[r];
    callCorr[id] = host.corr[r];
    if (!host.context[r]) callByCorr.add(host.corr[r], id);
  }
  return { callCorr, callByCorr };
}

/** What the import could not resolve or ignored, for the trace's notes. */
function importNotes(counts: ReturnType<typeof resolveWaits>, markers: SiteMarkers, s: Staged): string[] {
  const notes: string[] = [];
  if (counts.deduced)
    notes.push(`${counts.deduced} host waits: releasing op deduced from the rules (the data does not name the target)`);
  if (counts.timing) notes.push(`${counts.timing} host waits: releasing op inferred from timing, shown as "likely"`);
  if (markers.malformed)
    notes.push(
      `ignored ${markers.malformed} call-site markers that are not ${SITE_MARKER}{"stack":[["file",line,"function"],...]} (the first: ${markers.firstFault})`,
    );
  if (markers.unjoined) notes.push(`${markers.unjoined} call-site markers not followed by a host wait on their thread`);
  if (counts.unknown)
    notes.push(
      `${counts.unknown} host waits: the data does not say which op released them (releasedBy unknown${counts.ambiguous ? `; ${counts.ambiguous} with several candidates, listed in the report` : ''})`,
    );
  if (counts.noRecord)
    notes.push(
      `${counts.noRecord} event waits without their record (CUDA 13 leaves wait_on_cuda_event_record_corr_id at -1): released-by only where nothing could have been pending`,
    );
  if (counts.skew)
    notes.push(`${counts.skew} waits returned before their releasing op ended: GPU and host clocks disagree`);
  if (counts.noSync)
    notes.push(
      `${counts.noSync} synchronize calls without cuda_sync events: stream or event not recorded, resolved by issue order`,
    );
  for (const [cat, n] of s.unknown) notes.push(`ignored ${n} events of unknown category "${cat}"`);
  if (s.malformed)
    notes.push(
      `ignored ${s.malformed} events whose ts or dur is not a number, not finite, beyond ${MAX_TIME_US} µs, or a negative dur`,
    );
  if (s.noDuration) notes.push(`${s.noDuration} events without dur, taken as instants`);
  return notes;
}

function meta(root: Json, b: TraceBuilder, notes: string[]): TraceMeta {
  const props = Array.isArray(root.deviceProperties) ? (root.deviceProperties as Json[]) : [];
  const used = b.lanes.find((l) => l.kind === 'stream')?.device ?? 0;
  const d = props.find((p) => p && p.id === used) ?? props[0];
  const driver = num(root.cuda_driver_version, 0);
  const m: TraceMeta = { source: 'pytorch', clock: 'kineto', alignmentErrorNs: 0, notes };
  if (d) {
    m.device = { name: textOf(d.name, 'GPU'), index: num(d.id, used) };
    if (typeof d.numSms === 'number') m.device.sms = d.numSms;
    if (typeof d.computeMajor === 'number') m.device.computeCapability = `${d.computeMajor}.${num(d.computeMinor, 0)}`;
    if (driver) m.device.driver = `${Math.floor(driver / 1000)}.${Math.floor((driver % 1000) / 10)}`;
  }
  if (typeof root.traceName === 'string') m.profile = root.traceName;
  return m;
}
