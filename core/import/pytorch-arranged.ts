// The build's mechanical part done by the native reader (native/json/arrange.cc, waits.cc) for the
// rows it staged: ops and calls with their ids, contexts and Python stacks, the launch and stream
// edges and the ops' issue order, as pytorch.ts's addOps, addCalls and issueIndex make them, then
// the waits settled as resolveWaits settles them. What needs the trace's vocabulary goes to it as
// tables, made here; what it returns goes into the TraceBuilder as whole columns. The tests
// compare the two readers' traces field by field.
import { CK } from '../trace/kinds';
import {
  COPY_KINDS,
  copyBlocksHost,
  EDGE_KINDS,
  HOST_MEMORY,
  RELEASE_HOW,
  RELEASED_NONE,
  RELEASED_UNKNOWN,
  TraceBuilder,
} from '../trace/model';
import { callKindOf, isAsyncApi } from './cuda-api';
import type { CorrIndex } from './corr-index';
import type { IssueIndex } from './issue-order';
import { type StreamLane, type Sync, type WaitCounts, WAIT_ROLE_OF_KIND } from './pytorch-waits';
import { launcherRole, type LauncherRole, type SiteTable } from './python-sites';

/** What the native build is given besides the rows. */
export interface ArrangeInput {
  /** Staged lane -> trace lane; each trace lane's device. */
  laneMap: Int32Array;
  laneDevice: Float64Array;
  t0: number;
  maxCorr: number;
  /** By name id: an API call's kind code; a Python frame's launcher role (ROLE_CODES) at the top of a thread, and below a shown frame. */
  kindOfName: Int8Array;
  roleTop: Int8Array;
  roleInner: Int8Array;
  contextKind: number;
  /** The edge kind codes of a launch and of stream order. */
  launchEdge: number;
  streamEdge: number;
  /** What resolveWaits reads besides the rows: the native build settles the waits too. */
  waits: WaitTables;
}

/** resolveWaits' inputs as tables (native/json/waits.h says what each is). */
export interface WaitTables {
  syncCorr: Float64Array;
  syncStream: Float64Array;
  syncDevice: Float64Array;
  syncEvent: Float64Array;
  syncRecordCorr: Float64Array;
  syncWaitOnStream: Float64Array;
  streamDevice: Float64Array;
  streamHandle: Float64Array;
  streamLane: Int32Array;
  onlyDevice: number;
  role: Uint8Array;
  asyncName: Uint8Array;
  copies: number;
  hostMemories: number;
  blocks: Uint8Array;
  opCopy: Uint8Array;
  opHostMemory: Uint8Array;
  releasedNone: number;
  releasedUnknown: number;
  howExact: number;
  howDeduced: number;
  releaseEdge: number;
  eventEdge: number;
}

/** The columns it fills: the trace's own, given at their full size (native/json/arrange.h says what each is). */
export interface ArrangeOut {
  opLane: Uint32Array<ArrayBuffer>;
  opStart: Float64Array<ArrayBuffer>;
  opEnd: Float64Array<ArrayBuffer>;
  opCall: Int32Array<ArrayBuffer>;
  callLane: Uint32Array<ArrayBuffer>;
  callKind: Uint8Array<ArrayBuffer>;
  callDepth: Uint8Array<ArrayBuffer>;
  callBegin: Float64Array<ArrayBuffer>;
  callEnd: Float64Array<ArrayBuffer>;
  callCorr: Float64Array<ArrayBuffer>;
  callName: Int32Array<ArrayBuffer>;
  callContext: Int32Array<ArrayBuffer>;
  callStream: Int32Array<ArrayBuffer>;
  edgeKind: Uint8Array<ArrayBuffer>;
  edgeFrom: Int32Array<ArrayBuffer>;
  edgeTo: Int32Array<ArrayBuffer>;
  /** The waits' columns: releasedBy already RELEASED_NONE and unblockNs NaN, as callRow makes them. */
  callReleasedBy: Int32Array<ArrayBuffer>;
  callBlockedNs: Float64Array<ArrayBuffer>;
  callUnblockNs: Float64Array<ArrayBuffer>;
  callHow: Uint8Array<ArrayBuffer>;
}

/** What else it made. */
export interface Arranged {
  calls: number;
  edges: number;
  /** Strings the contexts add to the table, in order. */
  strings: string[];
  /** API calls made inside Python frames, and the node of their stack. */
  siteCall: Int32Array<ArrayBuffer>;
  siteNode: Int32Array<ArrayBuffer>;
  /** SiteTable's nodes 1.., as entered: parent node and frame name. */
  nodeParent: Int32Array<ArrayBuffer>;
  nodeName: Int32Array<ArrayBuffer>;
  /** resolveWaits' counts, and the events the calls name: eventCall[k] names events[eventIndex[k]]. */
  waits: {
    unknown: number;
    noRecord: number;
    skew: number;
    noSync: number;
    eventCall: Int32Array<ArrayBuffer>;
    eventIndex: Int32Array<ArrayBuffer>;
    events: Float64Array<ArrayBuffer>;
  };
}

/** The native build of the rows a native reader staged (see Staged.arrange in pytorch.ts). */
export type Arrange = (input: ArrangeInput, out: ArrangeOut) => Arranged;

/** The launcher roles' codes in ArrangeInput (kNoRole... in arrange.h). */
const ROLE_CODES: Record<LauncherRole, number> = { chain: 1, exec: 2, wrapper: 3, own: 4, runCode: 5, module: 6 };

/** The tables by name, for the names `nameUse` marks (1: an API call's, 2: a Python frame's). */
export function arrangeInput(
  b: TraceBuilder,
  nameUse: Uint8Array,
  laneMap: Int32Array,
  t0: number,
  maxCorr: number,
  waits: WaitRows,
): ArrangeInput {
  const n = b.strings.list.length;
  const asyncName = new Uint8Array(n);
  const kindOfName = new Int8Array(n);
  const roleTop = new Int8Array(n);
  const roleInner = new Int8Array(n);
  for (let id = 0; id < n && id < nameUse.length; id++) {
    if (!nameUse[id]) continue;
    const name = b.strings.get(id);
    if (nameUse[id] & 1) {
      kindOfName[id] = CK[callKindOf(name)];
      asyncName[id] = isAsyncApi(name) ? 1 : 0;
    }
    if (nameUse[id] & 2) {
      const top = launcherRole(name, true);
      const inner = launcherRole(name, false);
      roleTop[id] = top ? ROLE_CODES[top] : 0;
      roleInner[id] = inner ? ROLE_CODES[inner] : 0;
    }
  }
  const laneDevice = Float64Array.from(b.lanes, (l) => l.device);
  return {
    laneMap,
    laneDevice,
    t0,
    maxCorr,
    kindOfName,
    roleTop,
    roleInner,
    contextKind: CK.context,
    launchEdge: EDGE_KINDS.indexOf('launch'),
    streamEdge: EDGE_KINDS.indexOf('stream'),
    waits: waitTables(waits, asyncName),
  };
}

/** What resolveWaits is given besides the trace (see its parameters), for the native build. */
export interface WaitRows {
  syncs: Map<number, Sync>;
  /** Each stream's lane, in the order given to resolveWaits (the last given for a pair is kept). */
  streams: readonly StreamLane[];
  devices: Set<number>;
  gpu: { copy: Uint8Array; hostMemory: Uint8Array };
}

function waitTables(w: WaitRows, asyncName: Uint8Array): WaitTables {
  const n = w.syncs.size;
  const [syncCorr, syncStream, syncDevice, syncEvent, syncRecordCorr, syncWaitOnStream] = Array.from(
    { length: 6 },
    () => new Float64Array(n),
  );
  let k = 0;
  for (const [corr, s] of w.syncs) {
    syncCorr[k] = corr;
    syncStream[k] = s.stream;
    syncDevice[k] = s.device;
    syncEvent[k] = s.event;
    syncRecordCorr[k] = s.recordCorr;
    syncWaitOnStream[k++] = s.waitOnStream;
  }
  const blocks = new Uint8Array(COPY_KINDS.length * HOST_MEMORY.length * 2);
  COPY_KINDS.forEach((copy, c) =>
    HOST_MEMORY.forEach((memory, m) => {
      for (const async of [0, 1])
        blocks[(c * HOST_MEMORY.length + m) * 2 + async] = copyBlocksHost(copy, async === 1, memory) ? 1 : 0;
    }),
  );
  return {
    syncCorr,
    syncStream,
    syncDevice,
    syncEvent,
    syncRecordCorr,
    syncWaitOnStream,
    streamDevice: Float64Array.from(w.streams, (s) => s.device),
    streamHandle: Float64Array.from(w.streams, (s) => s.handle),
    streamLane: Int32Array.from(w.streams, (s) => s.lane),
    onlyDevice: w.devices.size === 1 ? [...w.devices][0] : -1,
    role: WAIT_ROLE_OF_KIND,
    asyncName,
    copies: COPY_KINDS.length,
    hostMemories: HOST_MEMORY.length,
    blocks,
    opCopy: w.gpu.copy,
    opHostMemory: w.gpu.hostMemory,
    releasedNone: RELEASED_NONE,
    releasedUnknown: RELEASED_UNKNOWN,
    howExact: RELEASE_HOW.indexOf('exact'),
    howDeduced: RELEASE_HOW.indexOf('deduced'),
    releaseEdge: EDGE_KINDS.indexOf('release'),
    eventEdge: EDGE_KINDS.indexOf('event'),
  };
}

/** The staged ops' columns that go into the trace as they are. */
interface OpRows {
  count: number;
  kind: Uint8Array<ArrayBuffer>;
  name: Int32Array<ArrayBuffer>;
  corr: Float64Array<ArrayBuffer>;
  grid: Uint32Array<ArrayBuffer>;
  block: Uint32Array<ArrayBuffer>;
  bytes: Float64Array<ArrayBuffer>;
  copy: Uint8Array<ArrayBuffer>;
  hostMemory: Uint8Array<ArrayBuffer>;
}

/**
 * What the rest of the build reads: the ops' issue order, and each call's and op's correlation id;
 * or, where the waits are settled already, their counts.
 */
export type RowIndex = { order: IssueIndex; callCorr: Float64Array; opByCorr: CorrIndex } | { counts: WaitCounts };

/**
 * The rows arranged natively into `b` (which has no calls, ops or edges yet): the trace's columns
 * are allocated here and filled there; Python stacks become sites in the order addCalls makes them.
 */
export function arrangeNatively(
  b: TraceBuilder,
  arrange: Arrange,
  input: ArrangeInput,
  rows: { hostCount: number; gpu: OpRows; edgeRoom: number },
  sites: SiteTable,
): RowIndex {
  const { gpu, hostCount, edgeRoom } = rows;
  const out: ArrangeOut = {
    opLane: new Uint32Array(gpu.count),
    opStart: new Float64Array(gpu.count),
    opEnd: new Float64Array(gpu.count),
    opCall: new Int32Array(gpu.count),
    callLane: new Uint32Array(hostCount),
    callKind: new Uint8Array(hostCount),
    callDepth: new Uint8Array(hostCount),
    callBegin: new Float64Array(hostCount),
    callEnd: new Float64Array(hostCount),
    callCorr: new Float64Array(hostCount),
    callName: new Int32Array(hostCount),
    callContext: new Int32Array(hostCount),
    callStream: new Int32Array(hostCount),
    edgeKind: new Uint8Array(edgeRoom),
    edgeFrom: new Int32Array(edgeRoom),
    edgeTo: new Int32Array(edgeRoom),
    callReleasedBy: new Int32Array(hostCount).fill(RELEASED_NONE),
    callBlockedNs: new Float64Array(hostCount),
    callUnblockNs: new Float64Array(hostCount).fill(NaN),
    callHow: new Uint8Array(hostCount),
  };
  const made = arrange(input, out);
  for (const s of made.strings) b.strings.id(s);
  b.ops.adopt(gpu.count, {
    lane: out.opLane,
    kind: gpu.kind,
    start: out.opStart,
    end: out.opEnd,
    call: out.opCall,
    name: gpu.name,
    grid: gpu.grid,
    block: gpu.block,
    bytes: gpu.bytes,
    copy: gpu.copy,
    hostMemory: gpu.hostMemory,
  });
  b.ops.cols.truthStart.fill(NaN);
  b.ops.cols.truthEnd.fill(NaN);
  adoptCalls(b, out, made, sites);
  b.edges.adopt(made.edges, { kind: out.edgeKind, from: out.edgeFrom, to: out.edgeTo });
  const w = made.waits;
  // Named as resolveWaits names them: in the order first met, after the contexts' strings.
  const eventIds = Array.from(w.events, (event) => b.strings.id(`event ${event}`));
  for (let k = 0; k < w.eventCall.length; k++) b.calls.cols.event[w.eventCall[k]] = eventIds[w.eventIndex[k]];
  const { unknown, noRecord, skew, noSync } = w;
  return { counts: { unknown, noRecord, skew, noSync, deduced: 0, timing: 0, ambiguous: 0 } };
}

function adoptCalls(b: TraceBuilder, out: ArrangeOut, made: Arranged, sites: SiteTable): void {
  b.calls.adopt(made.calls, {
    releasedBy: out.callReleasedBy,
    blockedNs: out.callBlockedNs,
    unblockNs: out.callUnblockNs,
    how: out.callHow,
    lane: out.callLane,
    kind: out.callKind,
    depth: out.callDepth,
    begin: out.callBegin,
    end: out.callEnd,
    name: out.callName,
    context: out.callContext,
    stream: out.callStream,
  });
  // callRow's defaults that are not 0 (releasedBy's and unblockNs' were given).
  const t = b.calls.cols;
  t.value.fill(NaN);
  t.step.fill(-1);
  for (let k = 0; k < made.nodeParent.length; k++) sites.enter(made.nodeParent[k], made.nodeName[k]);
  for (let k = 0; k < made.siteCall.length; k++) t.site[made.siteCall[k]] = sites.siteAt(made.siteNode[k]) + 1;
}
