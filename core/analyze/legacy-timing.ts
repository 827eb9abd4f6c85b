// S3 read from timing, where a trace gives no stream flags (a torch.profiler trace): a blocking
// stream and the legacy default stream wait for each other's work, and the trace, holding no
// `legacy` edges, cannot say so. Its timing can. An op of one that was ready (issued, its stream's
// op before it done, nothing the trace orders it after pending) and started only right after an op
// of the other ended was held by it. A kernel held by a copy, or a copy by a kernel, needs nothing
// of the other's engine, so S3 is what held it; two kernels may share SMs and two copies a copy
// engine, and are no evidence. A stream whose work ever overlapped the legacy stream's is
// non-blocking (core/trace/stream-flags.ts), whatever else its timing shows; one with evidence at
// least MIN_EVIDENCE times, as a loop gives, and no overlap, is blocking, inferred from timing, and
// each such hold is reported as `legacy-serialization`, saying so.
import { CK, OK } from '../trace/kinds';
import { EDGE_KINDS, type Finding, type Trace } from '../trace/model';
import { gallopToStart, streamWorkByTiming } from '../trace/stream-flags';
import { formatNs } from '../units';
import { boundRecord, recordOpOf } from './bindings';
import { FindingList, opPlaceKey } from './collect';
import { atLine, callSource, opShortName, opStream } from './describe';
import type { HappensBefore } from './hb';
import { viaKernel } from './graph-kernel';
import { MIN_DELAY_NS } from './serialization';

/** Holds met fewer times than this are not read as a stream's flag: a loop shows it each pass. */
const MIN_EVIDENCE = 3;
/**
 * An op that started at most this long after another stream's op ended, having waited far longer
 * (at least HOLD_RATIO times as long), started because that op ended: the GPU starts work whose
 * dependency is released within microseconds, and a wait of its own would not end just then.
 */
const MAX_START_GAP_NS = 20_000;
const HOLD_RATIO = 4;
const NONE = new Int32Array(0);

interface Hold {
  /** The op held, and the op of the other stream it waited for. */
  late: number;
  before: number;
  delayNs: number;
}

/** Stream lanes without a flag, blocking by timing, and each hold that shows it. */
export function legacyByTiming(t: Trace, hb: HappensBefore): Finding[] {
  if (hb.graph.edgeCounts[EDGE_KINDS.indexOf('legacy')]) return [];
  const legacy = t.lanes.filter((l) => l.kind === 'stream' && l.legacyDefault);
  const unknown = t.lanes.filter((l) => l.kind === 'stream' && !l.legacyDefault && l.nonBlocking === undefined);
  if (!legacy.length || !unknown.length) return [];
  const { work: gpu, nonBlocking: overlapped } = streamWorkByTiming(t);
  const work = kernelsAndCopies(t, gpu);
  const unexplained = unknownWaitTimes(t, hb);
  const out = new FindingList();
  for (const l of legacy)
    for (const x of unknown) {
      if (x.device !== l.device || overlapped.has(x.id)) continue;
      const holds = [
        ...holdsOf(t, hb, work.get(l.id) ?? NONE, work.get(x.id) ?? NONE, unexplained.get(l.id)),
        ...holdsOf(t, hb, work.get(x.id) ?? NONE, work.get(l.id) ?? NONE, unexplained.get(x.id)),
      ];
      if (holds.length < MIN_EVIDENCE) continue;
      for (const h of holds) report(t, out, h, holds.length);
    }
  return out.list();
}

/** Each stream lane's kernels and copies (its host functions left out), in order of start. */
function kernelsAndCopies(t: Trace, gpu: Map<number, Int32Array>): Map<number, Int32Array> {
  const out = new Map<number, Int32Array>();
  for (const [lane, ops] of gpu)
    out.set(
      lane,
      ops.some((j) => t.ops.kind[j] === OK.hostFunc) ? ops.filter((j) => t.ops.kind[j] !== OK.hostFunc) : ops,
    );
  return out;
}

/** Per stream, the begin times of its stream waits whose event's record the trace does not say: they may hold anything after them. */
function unknownWaitTimes(t: Trace, hb: HappensBefore): Map<number, number[]> {
  const b = hb.graph.bindings;
  const out = new Map<number, number[]>();
  for (let i = 0; i < t.calls.count; i++) {
    if (t.calls.kind[i] !== CK.streamWait) continue;
    const record = boundRecord(b, i);
    if (record >= 0 && recordOpOf(b, record) >= 0) continue;
    const lane = t.calls.stream[i];
    (out.get(lane) ?? out.set(lane, []).get(lane)!).push(t.calls.begin[i]);
  }
  return out;
}

/** The ops of `ops` (one stream, in order) that an op of `others` (another stream, in order) held. */
function holdsOf(t: Trace, hb: HappensBefore, ops: Int32Array, others: Int32Array, waits: number[] = []): Hold[] {
  const o = t.ops;
  const C = hb.graph.calls;
  const found = nativeCandidates(t, ops, others) ?? holdCandidates(t, ops, others);
  const holds: Hold[] = [];
  for (let h = 0; h < found.delayNs.length; h++) {
    const y = found.ops[3 * h];
    const x = found.ops[3 * h + 1];
    const prev = found.ops[3 * h + 2];
    if (hb.beforeNode(C + x, C + y)) continue;
    const call = o.call[y];
    const since = prev >= 0 && o.call[prev] >= 0 ? t.calls.begin[o.call[prev]] : -Infinity;
    const until = call >= 0 ? t.calls.begin[call] : o.start[y];
    if (waits.some((w) => w > since && w < until)) continue;
    holds.push({ late: y, before: x, delayNs: found.delayNs[h] });
  }
  return holds;
}

/**
 * The holds that timing alone shows, before what the graph and the stream waits rule out: each as
 * (op held, op it waited for, the op before it in its stream or -1) in `ops`, and its delay.
 */
interface Candidates {
  ops: Int32Array;
  delayNs: Float64Array;
}

/** holdCandidates by the native half (graph-kernel.ts), where there is one and it takes the trace. */
function nativeCandidates(t: Trace, ops: Int32Array, others: Int32Array): Candidates | undefined {
  return viaKernel((k) =>
    k.hbHoldCandidates({
      ops,
      others,
      start: t.ops.start,
      end: t.ops.end,
      kind: t.ops.kind,
      call: t.ops.call,
      callEnd: t.calls.end,
      callBlockedNs: t.calls.blockedNs,
      kernelKind: OK.kernel,
      maxStartGapNs: MAX_START_GAP_NS,
      minDelayNs: MIN_DELAY_NS,
      holdRatio: HOLD_RATIO,
    }),
  );
}

/** The holds that timing alone shows (Candidates): the reference for the native half. */
function holdCandidates(t: Trace, ops: Int32Array, others: Int32Array): Candidates {
  const o = t.ops;
  const found: number[] = [];
  const delays: number[] = [];
  let k = 0;
  for (let q = 0; q < ops.length; q++) {
    const y = ops[q];
    // The other stream's last op to end by y's start.
    while (k < others.length && o.end[others[k]] <= o.start[y]) k++;
    const x = k > 0 ? others[k - 1] : -1;
    const gap = x >= 0 ? o.start[y] - o.end[x] : Infinity;
    if (gap > MAX_START_GAP_NS) {
      // No op before the other stream's next end can start soon enough after x's.
      if (k < others.length) q = gallopToStart(t, ops, q + 1, o.end[others[k]]) - 1;
      else break;
      continue;
    }
    const call = o.call[y];
    const prev = q > 0 ? ops[q - 1] : -1;
    let ready = call >= 0 ? t.calls.end[call] - t.calls.blockedNs[call] : -Infinity;
    if (prev >= 0) ready = Math.max(ready, o.end[prev]);
    if (!(o.end[x] > ready)) continue;
    const delayNs = o.end[x] - ready;
    if (delayNs < MIN_DELAY_NS || delayNs < HOLD_RATIO * gap) continue;
    // Two kernels share SMs and two copies an engine: only a kernel and a copy are evidence.
    if ((o.kind[y] === OK.kernel) === (o.kind[x] === OK.kernel)) continue;
    found.push(y, x, prev);
    delays.push(delayNs);
  }
  return { ops: Int32Array.from(found), delayNs: Float64Array.from(delays) };
}

function report(t: Trace, out: FindingList, h: Hold, evidence: number): void {
  const { late: y, before: x } = h;
  const cy = t.ops.call[y];
  const cx = t.ops.call[x];
  const legacyLane = (op: number) => t.lanes[t.ops.lane[op]]?.legacyDefault === true;
  // A profile's lanes are named "stream 13" already.
  const stream = (op: number) => opStream(t, op).replace(/^(?!stream )/, 'stream ');
  const where = (op: number) => (legacyLane(op) ? 'the legacy default stream' : stream(op));
  const other = legacyLane(y) ? stream(x) : stream(y);
  const src = callSource(t, cy);
  const key = ['legacy-serialization', opPlaceKey(t, y), opPlaceKey(t, x)].join('|');
  out.add(key, {
    rule: 'S3',
    kind: 'legacy-serialization',
    severity: 'warning',
    calls: [cy, cx].filter((n) => n >= 0),
    ops: [y, x],
    ...(src ? { source: src } : {}),
    message:
      `"${opShortName(t, y)}" on ${where(y)}${atLine(t, cy)} waited ${formatNs(h.delayNs)} for "${opShortName(t, x)}" on ` +
      `${where(x)}${atLine(t, cx)}: the legacy default stream orders it with every blocking stream, and nothing in ` +
      `the program asked for this order (inferred from timing: the trace gives no flags for ${other}; its ` +
      `work never overlapped the legacy default stream's, and ${evidence} times an op of one started right when ` +
      `an op of the other ended, with nothing else holding it)`,
    fix: `make ${other} a non-blocking stream (cudaStreamNonBlocking) or enable per-thread default streams, and order with an event where an order is needed`,
  });
}
