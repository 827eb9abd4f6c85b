// Synchronizes that recur in a loop and whose result the host does not use before its next launch
// (`loop-sync`): each one drains the GPU, and the GPU then sits idle while the host returns and
// launches again. They are candidates, not certainties: the trace cannot see what the host reads
// after a synchronize; the fix's simulation (docs/whatif.md) shows what removing them buys.
import { CK, OK } from '../trace/kinds';
import { COPY_KINDS, HOST_MEMORY, OP_KINDS, type Finding, type Trace } from '../trace/model';
import { formatNs } from '../units';
import type { Bindings } from './bindings';
import type { BusyTimes } from './metrics';
import { callSiteText, callTarget, laneName, opName } from './describe';
import { shortKernelName } from '../trace/kernel-names';
import { MAX_IDS, sourcePlace, withMembers } from './collect';
import { sortedHas } from './csr';
import { mainThread } from '../overview/window';
import { copySlot } from './host-syncs';

/** A place must make the host wait this many times to count as a loop. */
export const MIN_LOOP_SYNCS = 3;

/** Calls that only queue GPU work: what the host does next when it did not need the result. */
const ENQUEUES = new Set<number>([CK.launch, CK.record, CK.streamWait, CK.hostFunc]);
const DTOH = COPY_KINDS.indexOf('DtoH');
const PINNED = HOST_MEMORY.indexOf('pinned');
const RULE: Record<number, string> = { [CK.eventSync]: 'S12', [CK.streamSync]: 'S13', [CK.deviceSync]: 'S14' };

/** The device's busy time as merged intervals (kernels, copies, memsets), for idle-gap look-ups. */
export function busyIntervals(t: Trace, device: number): { start: Float64Array; end: Float64Array } {
  // A lane the trace does not list counts as device 0's.
  const onDevice = Uint8Array.from(t.lanes, (l) => ((l?.device ?? 0) === device ? 1 : 0));
  const unlisted = device === 0 ? 1 : 0;
  const isWork = (j: number) => {
    const k = t.ops.kind[j];
    return (k === OK.kernel || k === OK.memcpy || k === OK.memset) && (onDevice[t.ops.lane[j]] ?? unlisted) === 1;
  };
  let n = 0;
  let wellFormed = true;
  for (let j = 0; j < t.ops.count; j++) {
    if (!isWork(j)) continue;
    n++;
    if (!(t.ops.end[j] >= t.ops.start[j])) wellFormed = false;
  }
  if (!wellFormed) {
    const ids: number[] = [];
    for (let j = 0; j < t.ops.count; j++) if (isWork(j)) ids.push(j);
    return unionByStart(t, ids);
  }
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let j = 0, k = 0; j < t.ops.count; j++) {
    if (!isWork(j)) continue;
    starts[k] = t.ops.start[j];
    ends[k++] = t.ops.end[j];
  }
  return unionOfSorted(starts.sort(), ends.sort());
}

/** busyIntervals from the busy times the metrics gathered, where they are one device's; else gathered again. */
function sharedBusyIntervals(t: Trace, busy: BusyTimes | undefined, device: number): ReturnType<typeof busyIntervals> {
  if (!busy || busy.device < 0) return busyIntervals(t, device);
  if (busy.device !== device) return { start: new Float64Array(0), end: new Float64Array(0) };
  return unionOfSorted(busy.starts, busy.ends);
}

/**
 * The union of closed intervals: a sweep over the sorted starts and ends, a start before an end at
 * the same time, so that touching intervals join as they do in unionByStart. Sorting the plain
 * times is much cheaper than sorting the ops by start, and gives the same intervals.
 */
function unionOfSorted(starts: Float64Array, ends: Float64Array): { start: Float64Array; end: Float64Array } {
  const n = starts.length;
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  let s = 0;
  let e = 0;
  let running = 0;
  for (let a = 0, b = 0; b < n;) {
    if (a < n && starts[a] <= ends[b]) {
      if (running++ === 0) start[s++] = starts[a];
      a++;
    } else {
      if (--running === 0) end[e++] = ends[b];
      b++;
    }
  }
  return { start: start.slice(0, s), end: end.slice(0, e) };
}

/** The same for any times (an end before its start, a missing time): ops in start order, each joining the interval it touches. */
function unionByStart(t: Trace, ids: number[]): { start: Float64Array; end: Float64Array } {
  ids.sort((a, b) => t.ops.start[a] - t.ops.start[b]);
  const start: number[] = [];
  const end: number[] = [];
  for (const j of ids) {
    const n = end.length;
    if (n && t.ops.start[j] <= end[n - 1]) end[n - 1] = Math.max(end[n - 1], t.ops.end[j]);
    else {
      start.push(t.ops.start[j]);
      end.push(t.ops.end[j]);
    }
  }
  return { start: Float64Array.from(start), end: Float64Array.from(end) };
}

/** The idle gap of the device around time `at`: 0 when it was busy then, or when no work followed. */
export function idleGapAt(busy: { start: Float64Array; end: Float64Array }, at: number): number {
  let lo = 0;
  let hi = busy.start.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (busy.start[mid] <= at) lo = mid + 1;
    else hi = mid;
  }
  // lo: the first interval starting after `at`; lo - 1 the last one starting at or before it.
  if (lo === 0 || lo === busy.start.length || busy.end[lo - 1] >= at) return 0;
  return busy.start[lo] - busy.end[lo - 1];
}

/** Whether the host's next call after `i`, the `at`-th in time order, on its lane (framework ranges and event queries aside) only queues GPU work. */
function nextIsLaunch(t: Trace, b: Bindings, at: number, i: number): boolean {
  const order = b.timeOrder;
  for (let k = at + 1; k < order.length; k++) {
    const c = order[k];
    if (t.calls.lane[c] !== t.calls.lane[i]) continue;
    const kind = t.calls.kind[c];
    // An event query neither blocks nor reads what the GPU made: PyTorch's caching host allocator
    // polls its events before the next pinned copy.
    if (kind === CK.api || kind === CK.hostWork || kind === CK.query) continue;
    if (ENQUEUES.has(kind)) return true;
    const name = t.strings[t.calls.name[c]] ?? '';
    return (kind === CK.memcpy || kind === CK.memset) && /async/i.test(name) && !(t.calls.blockedNs[c] > 0);
  }
  return false;
}

/** Whether call `i` copied to pinned host memory and returned before its copy was done (cudaMemcpyAsync). */
function asyncCopyToHost(t: Trace, b: Bindings, i: number): boolean {
  if (t.calls.blockedNs[i] > 0 || !/async/i.test(t.strings[t.calls.name[i]] ?? '')) return false;
  for (let q = b.opsStart[i]; q < b.opsStart[i + 1]; q++) {
    const op = b.opsOf[q];
    if (t.ops.copy[op] === DTOH && t.ops.hostMemory[op] === PINNED) return true;
  }
  return false;
}

interface Place {
  first: number;
  calls: number[];
  /** How many of them the host followed with a launch, not with a use of the result. */
  unused: number;
  /** Of `unused`, how many found the GPU done in this recording, counted on the plain clock's word. */
  unblocked: number;
  idleNs: number;
  launched: string;
  /**
   * A pass followed a copy to pinned host memory that its thread made without blocking since its
   * last wait (asyncCopyToHost): the host waited to read that copy, though a trace cannot see a read
   * of host memory.
   */
  readsCopy: boolean;
}

/**
 * The ops each lane launched since its last wait, kept as the work's words need them: their count,
 * the first two distinct short names, whether a third followed, and the last name.
 */
class WorkSinceWait {
  private count = new Float64Array(0);
  private lastKey = new Float64Array(0);
  private more = new Uint8Array(0);
  private readonly first: string[] = [];
  private readonly second: (string | undefined)[] = [];
  private readonly last: string[] = [];

  /** `lanes`: the lanes expected; a lane past them (one the trace does not list) adds room. */
  constructor(lanes: number) {
    this.room(lanes);
  }

  /** `key` names op's short name: equal keys, equal names. */
  add(lane: number, key: number, op: number, nameOf: (key: number, op: number) => string): void {
    if (lane >= this.count.length) this.room(lane + 1);
    const n = this.count[lane]++;
    if (key === this.lastKey[lane]) return;
    const name = nameOf(key, op);
    this.lastKey[lane] = key;
    this.last[lane] = name;
    if (n === 0) this.first[lane] = name;
    else if (this.more[lane] || name === this.first[lane]) return;
    else if (this.second[lane] === undefined) this.second[lane] = name;
    else if (name !== this.second[lane]) this.more[lane] = 1;
  }

  /** The work in a few words: one or two kernel names, else a count and the last; then forgotten. */
  take(lane: number): string {
    if (lane >= this.count.length) this.room(lane + 1);
    const n = this.count[lane];
    const second = this.second[lane];
    const words =
      n === 0
        ? ''
        : this.more[lane]
          ? `${n} ops, the last ${this.last[lane]}`
          : second === undefined
            ? this.first[lane]
            : `${this.first[lane]}, ${second}`;
    this.count[lane] = 0;
    this.lastKey[lane] = -1;
    this.more[lane] = 0;
    this.second[lane] = undefined;
    return words;
  }

  /** Room for `lanes` lanes, the state of those before kept. */
  private room(lanes: number): void {
    const from = this.count.length;
    const count = new Float64Array(lanes);
    const lastKey = new Float64Array(lanes).fill(-1);
    const more = new Uint8Array(lanes);
    count.set(this.count);
    lastKey.set(this.lastKey);
    more.set(this.more);
    [this.count, this.lastKey, this.more] = [count, lastKey, more];
    for (let l = from; l < lanes; l++) {
      this.first.push('');
      this.second.push(undefined);
      this.last.push('');
    }
  }
}

/**
 * Where a synchronize was made: its source site, its framework op, else its kind, target and the
 * work it followed; '' where it has no source and followed no work the trace holds.
 */
function placeKey(t: Trace, i: number, launched: string): string {
  const source = sourcePlace(t, i);
  if (source) return source;
  if (!launched) return '';
  if (t.calls.context[i]) return `context ${t.strings[t.calls.context[i]]} after ${launched}`;
  return `${t.calls.lane[i]} ${t.calls.kind[i]} ${callTarget(t, i)} after ${launched}`;
}

/**
 * `busy`: the metrics' busy times, when the caller has them, so that they are not gathered and
 * sorted again. `ownedSyncs` (ascending): synchronizes a framework op made to read a value the host
 * needed, or to end a blocking copy: other findings explain them, and they are never candidates here.
 */
export function loopSyncs(t: Trace, b: Bindings, busy?: BusyTimes, ownedSyncs?: Int32Array): Finding[] {
  // Kernel names repeat: shorten each distinct name (an op without one goes by its kind) once.
  const kinds = OP_KINDS.length;
  const shortNames = new Map<number, string>();
  const shortName = (key: number, op: number) => {
    let name = shortNames.get(key);
    if (name === undefined) shortNames.set(key, (name = shortKernelName(opName(t, op))));
    return name;
  };
  const intervals = new Map<number, ReturnType<typeof busyIntervals>>();
  const busyOf = (d: number) => intervals.get(d) ?? intervals.set(d, sharedBusyIntervals(t, busy, d)).get(d)!;
  const { kind, lane: laneOf } = t.calls;
  const sinceWait = new WorkSinceWait(t.lanes.length);
  const places = new Map<string, Place>();
  // The sync clock times the script's own thread: the one whose recorded calls span the run.
  const plainSyncNs = t.meta.plainStep?.syncNs ?? 0;
  const scriptLane = plainSyncNs > 0 ? mainThread(t) : -1;
  const order = b.timeOrder;
  // By copySlot: the lanes the trace does not list share one slot.
  const copiedBack = new Uint8Array(t.lanes.length + 1);
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    const lane = laneOf[i];
    const ck = kind[i];
    if (ck === CK.memcpy && asyncCopyToHost(t, b, i)) copiedBack[copySlot(t, i)] = 1;
    if (ck === CK.launch) {
      // Short kernel names: the message names them, and cuBLAS's full names run to a line each.
      for (let q = b.opsStart[i]; q < b.opsStart[i + 1]; q++) {
        const op = b.opsOf[q];
        sinceWait.add(lane, t.ops.name[op] * kinds + t.ops.kind[op], op, shortName);
      }
    }
    if (ck !== CK.eventSync && ck !== CK.streamSync && ck !== CK.deviceSync) continue;
    const launched = sinceWait.take(lane);
    const readsCopy = copiedBack[copySlot(t, i)] === 1;
    copiedBack[copySlot(t, i)] = 0;
    if (ownedSyncs && sortedHas(ownedSyncs, i)) continue;
    // A synchronize with no source is told apart by the work before it; the trace's first one may
    // follow work it did not record.
    const key = placeKey(t, i, launched);
    if (!key) continue;
    // A pass that found the GPU done, or whose work began before the trace, is still the same line,
    // and the fix removes it too; only the passes that blocked show what it costs.
    const place =
      places.get(key) ??
      places
        .set(key, { first: i, calls: [], unused: 0, unblocked: 0, idleNs: 0, launched, readsCopy: false })
        .get(key)!;
    place.calls.push(i);
    place.launched ||= launched;
    place.readsCopy ||= readsCopy;
    // Evidence of a drained GPU: the pass blocked after launching work, and the host launched again
    // (the last pass of a loop is followed by what comes after the loop: it costs no launch gap). A
    // recorder slows the host, and a pass may find the GPU done only because of it: where the plain
    // steps' sync clock says the script's thread waited in synchronizing calls without the recorder,
    // a pass of that thread that did not block is still evidence, counted apart, and its idle gap is
    // the recorder's.
    if (!launched || !nextIsLaunch(t, b, k, i)) continue;
    if (t.calls.blockedNs[i] > 0) place.idleNs += idleGapAt(busyOf(t.calls.device[i]), t.calls.end[i]);
    else if (lane === scriptLane) place.unblocked++;
    else continue;
    place.unused++;
  }
  return [...places.values()].filter((p) => p.unused >= MIN_LOOP_SYNCS).map((p) => finding(t, p, plainSyncNs));
}

/** What the passes that drained the GPU cost it, and, where some found it done, what the plain clock says of them. */
function idleText(p: Place, plainSyncNs: number): string {
  const blocked = p.unused - p.unblocked;
  const idle = blocked
    ? `the GPU sat idle ${formatNs(p.idleNs)} in all after the returns of the ${blocked} that blocked (${formatNs(p.idleNs / blocked)} each)`
    : '';
  if (!p.unblocked) return idle;
  const hidden =
    `${p.unblocked} found the GPU done only in this recording, whose host the recorder slowed: without it, the script's ` +
    `thread waited ${formatNs(plainSyncNs)} a step in synchronizing calls (the plain steps' sync clock; inferred)`;
  return idle ? `${idle}; ${hidden}` : hidden;
}

function finding(t: Trace, p: Place, plainSyncNs: number): Finding {
  const i = p.first;
  const n = p.calls.length;
  const call = t.strings[t.calls.name[i]] || 'synchronize';
  const source = t.calls.line[i] > 0 ? { source: { line: t.calls.line[i], column: t.calls.column[i] } } : {};
  const f: Finding = {
    rule: RULE[t.calls.kind[i]],
    kind: 'loop-sync',
    severity: 'warning',
    calls: p.calls.slice(0, MAX_IDS),
    ops: [],
    ...source,
    message:
      `candidate: ${call} on ${callTarget(t, i) || laneName(t, t.calls.lane[i])} at ${callSiteText(t, i)} recurs ${n} times ` +
      `in a loop (after ${p.launched}); ${p.unused} times the host launched again without another wait: ${idleText(p, plainSyncNs)}` +
      (p.readsCopy
        ? '; before it, the thread copied to pinned host memory without blocking: the host reads that copy after it (deduced: a trace shows no read of host memory)'
        : ''),
    fix: p.readsCopy
      ? 'keep the values on the GPU and read them after the loop, or read them every few steps: the synchronize moves with ' +
        'the read; where it waits for more than the copy, synchronize on an event recorded after the copy instead'
      : 'remove the synchronize, or move it after the loop or to where the host first reads the result; where it ' +
        'times GPU work with a host clock, record CUDA events around the work instead and read their elapsed time after the loop',
    savedNs: p.idleNs,
  };
  return withMembers(f, p.calls);
}
