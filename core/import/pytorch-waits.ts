// Which op released each host wait of an imported PyTorch trace, and the event edges that the
// trace names. The rules, and why each is sound, are in docs/import.md.
import {
  CALL_KINDS,
  CallKind,
  COPY_KINDS,
  copyBlocksHost,
  HOST_MEMORY,
  RELEASE_HOW,
  RELEASED_NONE,
  RELEASED_UNKNOWN,
  type ReleaseHow,
  TraceBuilder,
} from '../trace/model';
import type { CorrIndex } from './corr-index';
import { isAsyncApi } from './cuda-api';
import type { IssueIndex } from './issue-order';

/** A Kineto cuda_sync event: what the call with the same correlation id waited on (-1: not said). */
export interface Sync {
  kind: string;
  stream: number;
  device: number;
  event: number;
  recordCorr: number;
  waitOnStream: number;
}

/** A stream's lane in the trace: Kineto's device and stream, and the lane made for them. */
export interface StreamLane {
  device: number;
  handle: number;
  lane: number;
}

export interface WaitCounts {
  unknown: number;
  deduced: number;
  timing: number;
  ambiguous: number;
  noRecord: number;
  skew: number;
  noSync: number;
}

/**
 * Host waits: which op released each one. Exact where the data names the awaited stream (cuda_sync
 * events, the copy's own stream) or the device; otherwise the best sound answer is "nothing was
 * pending" when every op issued before the call had already ended, and "unknown" when not.
 */
export function resolveWaits(
  b: TraceBuilder,
  order: IssueIndex,
  callCorr: Float64Array,
  opByCorr: CorrIndex,
  syncs: Map<number, Sync>,
  streams: readonly StreamLane[],
  devices: Set<number>,
): WaitCounts {
  const c = b.calls.cols;
  const ops = b.ops.cols;
  const counts: WaitCounts = { unknown: 0, deduced: 0, timing: 0, ambiguous: 0, noRecord: 0, skew: 0, noSync: 0 };
  const laneOf = laneLookup(streams);
  const onlyDevice = devices.size === 1 ? [...devices][0] : -1;

  const settle = (call: number, op: number, exact: boolean, how: ReleaseHow = 'exact') => {
    if (op >= 0 && ops.end[op] > c.begin[call] && !exact) {
      c.releasedBy[call] = RELEASED_UNKNOWN;
      c.blockedNs[call] = c.end[call] - c.begin[call];
      counts.unknown++;
    } else if (settleRelease(b, call, op, how)) counts.skew++;
  };

  // An event's name, made and looked up once per event: a loop synchronizes on the same few.
  const eventNames = new Map<number, number>();
  const eventName = (event: number) =>
    eventNames.get(event) ?? eventNames.set(event, b.strings.id(`event ${event}`)).get(event)!;
  const resolved = callsResolved(c.kind, b.calls.count);
  for (let r = 0; r < resolved.length; r++) {
    const call = resolved[r];
    const k = CALL_KINDS[c.kind[call]];
    const corr = callCorr[call];
    const sync = syncs.get(corr);
    if (sync && sync.event >= 0) c.event[call] = eventName(sync.event);
    if (corr < 0) continue;
    const device = sync && sync.device >= 0 ? sync.device : onlyDevice;

    if (k === 'streamSync') {
      const lane = sync ? laneOf(device, sync.stream) : -1;
      if (lane >= 0) c.stream[call] = lane;
      if (!sync) counts.noSync++;
      if (lane >= 0) settle(call, order.lastOnStream(lane, corr), true);
      else if (sync && sync.stream >= 0 && device >= 0)
        settle(call, -1, true); // a stream that ran nothing in the trace
      else settle(call, lastBefore(order, device, corr), false); // no stream named, or on no known device
    } else if (k === 'deviceSync') {
      if (!sync) counts.noSync++;
      // S14 with the device taken as the trace's only one: deduced, not named by the data.
      settle(call, lastBefore(order, device, corr), device >= 0, sync ? 'exact' : 'deduced');
    } else if (k === 'eventSync') {
      if (!sync) counts.noSync++;
      const streamOfRecord = sync && sync.recordCorr >= 0 ? laneOf(device, sync.waitOnStream) : -1;
      if (streamOfRecord >= 0) settle(call, order.lastOnStream(streamOfRecord, sync!.recordCorr), true);
      else {
        if (sync) counts.noRecord++;
        settle(call, lastBefore(order, device, sync && sync.recordCorr >= 0 ? sync.recordCorr : corr), false);
      }
    } else if (k === 'memcpy') {
      const op = opByCorr.get(corr);
      if (
        op < 0 ||
        !copyBlocksHost(
          COPY_KINDS[b.ops.cols.copy[op]],
          isAsyncApi(b.strings.get(b.calls.cols.name[call])),
          HOST_MEMORY[b.ops.cols.hostMemory[op]],
        )
      )
        continue;
      // The host waits for earlier work in the copy's stream, then for the copy itself unless it
      // returned once the data was staged (pageable host-to-device).
      const prior = order.lastOnStream(ops.lane[op], corr);
      settle(call, ops.end[op] <= c.end[call] ? op : prior, true);
    } else if (k === 'streamWait' && sync) {
      const waiting = laneOf(sync.device, sync.stream);
      if (waiting >= 0) c.stream[call] = waiting;
      const recorded = sync.recordCorr >= 0 ? laneOf(device, sync.waitOnStream) : -1;
      if (waiting >= 0 && recorded >= 0) {
        const from = order.lastIssuedOnStream(recorded, sync.recordCorr);
        const to = order.firstIssuedOnStream(waiting, corr);
        if (from >= 0 && to >= 0) b.edge('event', from, to);
      } else if (sync.recordCorr < 0) counts.noRecord++;
    }
  }
  return counts;
}

/** Everything issued before `bound` on the device's streams (on any, where the device is not known): what an unnamed target could have waited for. */
function lastBefore(order: IssueIndex, device: number, bound: number): number {
  return device >= 0 ? order.lastOnDevice(device, bound) : order.lastAnywhere(bound);
}

/** The lane of (device, stream): numbers as a Map keys them, the last lane given for a pair kept. */
function laneLookup(streams: readonly StreamLane[]): (device: number, stream: number) => number {
  const byDevice = new Map<number, Map<number, number>>();
  for (const { device, handle, lane } of streams) {
    const lanes = byDevice.get(device) ?? byDevice.set(device, new Map()).get(device)!;
    lanes.set(handle, lane);
  }
  return (device, stream) => (stream >= 0 ? (byDevice.get(device)?.get(stream) ?? -1) : -1);
}

/**
 * Records `op` as the wait's releaser (S16), `how` it was found: nothing pending when it ended
 * before the call began, else the blocked time, the latency and a release edge. Returns whether
 * the host returned before the op ended (clocks that disagree).
 */
export function settleRelease(b: TraceBuilder, call: number, op: number, how: ReleaseHow): boolean {
  const c = b.calls.cols;
  const ops = b.ops.cols;
  const begin = c.begin[call];
  const end = c.end[call];
  c.how[call] = RELEASE_HOW.indexOf(how);
  if (op < 0 || ops.end[op] <= begin) {
    c.releasedBy[call] = RELEASED_NONE;
    c.blockedNs[call] = 0;
    return false;
  }
  c.releasedBy[call] = op;
  c.blockedNs[call] = Math.max(0, Math.min(ops.end[op], end) - begin);
  b.edge('release', op, call);
  // A host that returned before its releasing op ended (clocks that disagree, a call without
  // its dur) has no latency to tell: left unknown, never negative.
  if (ops.end[op] > end) return true;
  c.unblockNs[call] = end - ops.end[op];
  return false;
}

/**
 * The calls whose kind resolveWaits settles, in id order: a small function of its own, which the
 * engine optimizes while its loop over every call runs; in resolveWaits, a large one, that loop
 * would run unoptimized to its end.
 */
function callsResolved(kind: Uint8Array, n: number): Int32Array {
  const ids = new Int32Array(n);
  let m = 0;
  for (let i = 0; i < n; i++) if (WAIT_ROLE_OF_KIND[kind[i]]) ids[m++] = i;
  return ids.subarray(0, m);
}

/**
 * What resolveWaits does with a call, by the call's kind: its role's index here (0: nothing). The
 * native build (native/json/waits.h) is given the same codes.
 */
export const WAIT_ROLES = ['', 'streamSync', 'deviceSync', 'eventSync', 'memcpy', 'streamWait', 'query'] as const;

/** By kind code: the kind's WAIT_ROLES index (a table, as it is asked once per call). */
export const WAIT_ROLE_OF_KIND = Uint8Array.from(CALL_KINDS, (k: CallKind) =>
  Math.max(0, (WAIT_ROLES as readonly string[]).indexOf(k)),
);
