// Races a trace without declared buffers still shows (`race`, inferred): an imported trace says
// which ops ran, never which memory they read. Device memory a copy or memset on stream B writes is
// there to be read, and a correct program orders its reader after it: a stream waits for an event B
// recorded after it (Stream.wait_stream, wait_event), or the host waits for B (a stream or event
// synchronize) before it issues the reader. Where nothing out of B follows the write before B's next
// write from the same place (the next pass of the loop), except a device-wide synchronize (a run's
// end or a timer, not a use of the data), whatever reads it on another stream reads it unordered.
// The first op issued after the write on another stream that reads device memory and is not
// ordered after it is taken as its reader: the earliest the data can be read, where the program's
// fix (a wait before its first use) goes. Every part of it is an inference, and the finding says so.
import { CK, OK } from '../trace/kinds';
import { COPY_KINDS, RELEASED_UNKNOWN, type Finding, type Trace } from '../trace/model';
import { boundRecord, recordOpOf, type Bindings } from './bindings';
import { MAX_IDS, sourcePlace, withMembers } from './collect';
import { atLine, callSiteText, callSource, opName, opShortName, opStream } from './describe';
import type { HbGraph } from './graph';
import type { HappensBefore } from './hb';
import type { Hazard, HazardAccess } from './types';

/** A place must race this many times to count: a loop's pattern, not one pass. */
const MIN_RACES = 3;
/** Of them, this many copied again from their place later in the trace (see tailOf). */
const MIN_FOLLOWED = 2;

const copyKind = (k: string) => COPY_KINDS.indexOf(k as (typeof COPY_KINDS)[number]);
const WRITES_DEVICE = new Set(['HtoD', 'DtoD', 'PtoP'].map(copyKind));
const READS_DEVICE = new Set(['DtoH', 'DtoD', 'PtoP'].map(copyKind));

const isStream = (t: Trace, lane: number) => t.lanes[lane]?.kind === 'stream';

function writesDevice(t: Trace, j: number): boolean {
  const k = t.ops.kind[j];
  const write = k === OK.memset || (k === OK.memcpy && WRITES_DEVICE.has(t.ops.copy[j]));
  return write && t.ops.call[j] >= 0 && isStream(t, t.ops.lane[j]);
}

function readsDevice(t: Trace, j: number): boolean {
  const k = t.ops.kind[j];
  return (k === OK.kernel || (k === OK.memcpy && READS_DEVICE.has(t.ops.copy[j]))) && isStream(t, t.ops.lane[j]);
}

/** Where a call was made, as loop-syncs groups places: its source site, scenario line, framework op, else its name. */
function placeOf(t: Trace, call: number): string {
  const source = sourcePlace(t, call);
  if (source) return source;
  if (t.calls.context[call]) return `context ${t.strings[t.calls.context[call]]}`;
  return `name ${t.calls.name[call]}`;
}

/**
 * Per stream lane, the sorted positions of its ops that something may be ordered after: an op of
 * the lane that reads device memory and writes none (it reads in stream order), or something on another lane (a
 * stream waiting for an event recorded after them, a host wait they released, S3's implicit order),
 * a device-wide synchronize left out. A record whose stream the trace does not name (a torch.profiler
 * trace's) is taken as made on the stream its thread last issued work to, and as waited for: it
 * may order that stream's work before anything.
 */
function orderedAfter(t: Trace, g: HbGraph): Map<number, Int32Array> {
  const C = g.calls;
  const out = new Map<number, number[]>();
  const mark = (lane: number, seq: number) => (out.get(lane) ?? out.set(lane, []).get(lane)!).push(seq);
  for (let j = 0; j < t.ops.count; j++) if (readsDevice(t, j) && !writesDevice(t, j)) mark(t.ops.lane[j], g.seq[C + j]);
  const { keys, start, ids } = g.preds;
  for (let r = 0; r < keys.length; r++) {
    const v = keys[r];
    if (v < C && t.calls.kind[v] === CK.deviceSync) continue;
    for (let q = start[r]; q < start[r + 1]; q++) {
      const u = ids[q];
      if (u >= C && g.lane[u] >= 0 && g.lane[u] !== g.lane[v] && isStream(t, g.lane[u])) mark(g.lane[u], g.seq[u]);
    }
  }
  for (const [lane, op] of unnamedRecords(t, g.bindings)) mark(lane, g.seq[C + op]);
  return new Map([...out].map(([lane, seqs]) => [lane, Int32Array.from(seqs).sort()]));
}

/** For each record call that names no stream: its thread's last stream and that stream's last op then. */
function unnamedRecords(t: Trace, b: Bindings): [number, number][] {
  const lastOnLane = new Map<number, number>();
  const laneOfThread = new Map<number, number>();
  const out: [number, number][] = [];
  for (const i of b.timeOrder) {
    if (t.calls.kind[i] === CK.record && t.calls.stream[i] < 0) {
      const lane = laneOfThread.get(t.calls.lane[i]);
      if (lane !== undefined) out.push([lane, lastOnLane.get(lane)!]);
    }
    for (let q = b.opsStart[i]; q < b.opsStart[i + 1]; q++) {
      const j = b.opsOf[q];
      if (t.ops.kind[j] !== OK.kernel && t.ops.kind[j] !== OK.memcpy && t.ops.kind[j] !== OK.memset) continue;
      lastOnLane.set(t.ops.lane[j], j);
      laneOfThread.set(t.calls.lane[i], t.ops.lane[j]);
    }
  }
  return out;
}

/** Whether sorted `xs` holds a value in [lo, hi). */
function anyIn(xs: Int32Array | undefined, lo: number, hi: number): boolean {
  if (!xs) return false;
  let a = 0;
  let b = xs.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if (xs[m] < lo) a = m + 1;
    else b = m;
  }
  return a < xs.length && xs[a] < hi;
}

/** Per writing op, the stream position of the next op its stream wrote from the same place (Infinity: none). */
function nextFromPlace(t: Trace, g: HbGraph, writers: number[]): Map<number, number> {
  const next = new Map<number, number>();
  const last = new Map<string, number>();
  const bySeq = [...writers].sort((a, b) => t.ops.lane[a] - t.ops.lane[b] || g.seq[g.calls + a] - g.seq[g.calls + b]);
  for (const j of bySeq) {
    const key = `${t.ops.lane[j]} ${placeOf(t, t.ops.call[j])}`;
    const before = last.get(key);
    if (before !== undefined) next.set(before, g.seq[g.calls + j]);
    last.set(key, j);
    next.set(j, Infinity);
  }
  return next;
}

/**
 * A wait whose target the trace does not say (a torch.profiler trace's records name no stream): it
 * may order a write before what follows, or not. A host wait the import bound to its releasing op
 * is known all the same.
 */
function unknownWait(t: Trace, b: Bindings, call: number): boolean {
  const k = t.calls.kind[call];
  const host = k === CK.streamSync || k === CK.eventSync;
  if (host && t.calls.releasedBy[call] !== RELEASED_UNKNOWN) return false;
  if (k === CK.streamSync) return t.calls.stream[call] < 0;
  if (k !== CK.streamWait && k !== CK.eventSync) return false;
  const record = boundRecord(b, call);
  return record < 0 || recordOpOf(b, record) < 0;
}

/** One write read unordered: the last of the writes the reader may read, and the reader. */
interface Pair {
  writer: number;
  reader: number;
  /** The writer's place copied nothing again later in the trace: its reader's wait may lie past the trace's end. */
  tail: boolean;
}

export function copyRaces(t: Trace, hb: HappensBefore): { hazards: Hazard[]; findings: Finding[] } {
  const g = hb.graph;
  const C = g.calls;
  const writers: number[] = [];
  for (let j = 0; j < t.ops.count; j++) if (writesDevice(t, j)) writers.push(j);
  if (!writers.length) return { hazards: [], findings: [] };
  const after = orderedAfter(t, g);
  const next = nextFromPlace(t, g, writers);
  // A write that something may be ordered after before its place writes again is read in order, or may be.
  const unread = (w: number) => !anyIn(after.get(t.ops.lane[w]), g.seq[C + w], next.get(w)!);
  const pairs = pairUp(t, g.bindings, (w, r) => !hb.beforeNode(C + w, C + r) && unread(w)).map((p) => ({
    ...p,
    tail: next.get(p.writer) === Infinity,
  }));
  return report(t, pairs);
}

/**
 * The calls in time order: each write waits for the first op issued after it on another stream
 * that reads device memory; `unordered(write, reader)` says whether it races. Writes issued before
 * that reader on one stream share it, the last of them standing for all (stream order puts the
 * earlier ones before it). A wait whose target the trace does not say, on a stream other than the
 * write's or on the host, leaves the writes before it unknown: they are dropped.
 */
function pairUp(t: Trace, b: Bindings, unordered: (w: number, r: number) => boolean): Omit<Pair, 'tail'>[] {
  const pending = new Map<number, number[]>();
  const pairs: Omit<Pair, 'tail'>[] = [];
  for (const i of b.timeOrder) {
    if (unknownWait(t, b, i)) {
      const on = t.calls.kind[i] === CK.streamWait ? t.calls.stream[i] : -1;
      for (const lane of pending.keys()) if (lane !== on) pending.delete(lane);
    }
    for (let q = b.opsStart[i]; q < b.opsStart[i + 1]; q++) {
      const j = b.opsOf[q];
      if (readsDevice(t, j))
        for (const [lane, ws] of pending) {
          if (lane === t.ops.lane[j]) continue;
          pending.delete(lane);
          const racing = ws.filter((w) => unordered(w, j));
          if (racing.length) pairs.push({ writer: racing[racing.length - 1], reader: j });
        }
      if (writesDevice(t, j))
        (pending.get(t.ops.lane[j]) ?? pending.set(t.ops.lane[j], []).get(t.ops.lane[j])!).push(j);
    }
  }
  return pairs;
}

function report(t: Trace, pairs: Pair[]): { hazards: Hazard[]; findings: Finding[] } {
  const places = new Map<string, Pair[]>();
  for (const p of pairs) {
    const key = `${t.ops.lane[p.writer]} ${placeOf(t, t.ops.call[p.writer])}|${t.ops.lane[p.reader]} ${placeOf(t, t.ops.call[p.reader])}`;
    (places.get(key) ?? places.set(key, []).get(key)!).push(p);
  }
  const hazards: Hazard[] = [];
  const findings: Finding[] = [];
  for (const ps of places.values()) {
    if (ps.length < MIN_RACES || ps.filter((p) => !p.tail).length < MIN_FOLLOWED) continue;
    const { h, f } = raceAt(t, ps);
    hazards.push(h);
    findings.push(f);
  }
  return { hazards, findings };
}

function access(t: Trace, op: number, write: boolean): HazardAccess {
  const call = t.ops.call[op];
  const h: HazardAccess = { op, call, name: opName(t, op), stream: opStream(t, op), write };
  const src = callSource(t, call);
  if (src) h.source = src;
  return h;
}

function raceAt(t: Trace, ps: Pair[]): { h: Hazard; f: Finding } {
  const first = access(t, ps[0].writer, true);
  const second = access(t, ps[0].reader, false);
  const occurrences = ps.map((p) => ({ after: t.ops.call[p.writer], before: t.ops.call[p.reader] }));
  const h: Hazard = {
    buffer: `device memory "${first.name}" wrote (inferred)`,
    first,
    second,
    count: ps.length,
    fix: { recordOn: first.stream, after: first.call, waitIn: second.stream, before: second.call },
    occurrences,
  };
  const all = occurrences.flatMap((o) => [o.after, o.before]);
  const where = (call: number) => `${atLine(t, call)} at ${callSiteText(t, call)}`;
  const reader = opShortName(t, ps[0].reader);
  const f: Finding = {
    rule: 'S2',
    kind: 'race',
    severity: 'warning',
    message:
      `candidate race (inferred: a trace does not say which memory an op reads): "${first.name}" on stream ` +
      `${first.stream}${where(first.call)} writes device memory, and until it writes from there again nothing ` +
      `reads on its stream or waits for it (a device-wide synchronize aside); "${reader}" on stream ${second.stream}${where(second.call)}, ` +
      `the first op issued after it on another stream, may read it unordered (${ps.length} times)`,
    calls: all.slice(0, MAX_IDS),
    ops: [ps[0].writer, ps[0].reader],
    ...(second.source ? { source: second.source } : {}),
    fix:
      `make stream ${second.stream} wait for stream ${first.stream} before "${reader}" reads what it wrote ` +
      `(Stream.wait_stream, or an event recorded after the copy and waited for): costs time where the copy overlapped`,
  };
  return { h, f: withMembers(f, all) };
}
