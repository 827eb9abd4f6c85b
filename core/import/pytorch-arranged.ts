// The build's mechanical part done by the native reader (native/json/arrange.cc) for the rows it
// staged: ops and calls with their ids, contexts and Python stacks, the launch and stream edges and
// the ops' issue order, as pytorch.ts's addOps, addCalls and issueIndex make them. What needs the
// trace's vocabulary goes to it as tables by name, made here; what it returns goes into the
// TraceBuilder as whole columns. The tests compare the two readers' traces field by field.
import { CK } from '../trace/kinds';
import { EDGE_KINDS, RELEASED_NONE, TraceBuilder } from '../trace/model';
import { callKindOf } from './cuda-api';
import { corrIndex, type CorrIndex } from './corr-index';
import { indexOfLists, type IssueIndex, type IssueList } from './issue-order';
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
  /** Issue lists by stream lane and by device (keys in the order first met), then of all ops, at offsets listStart. */
  streamKeys: Float64Array<ArrayBuffer>;
  deviceKeys: Float64Array<ArrayBuffer>;
  listStart: Int32Array<ArrayBuffer>;
  listOps: Int32Array<ArrayBuffer>;
  listBest: Int32Array<ArrayBuffer>;
  listCorr: Float64Array<ArrayBuffer>;
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
): ArrangeInput {
  const n = b.strings.list.length;
  const kindOfName = new Int8Array(n);
  const roleTop = new Int8Array(n);
  const roleInner = new Int8Array(n);
  for (let id = 0; id < n && id < nameUse.length; id++) {
    if (!nameUse[id]) continue;
    const name = b.strings.get(id);
    if (nameUse[id] & 1) kindOfName[id] = CK[callKindOf(name)];
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

/** What the rest of the build reads: the ops' issue order, and each call's and op's correlation id. */
export interface RowIndex {
  order: IssueIndex;
  callCorr: Float64Array;
  opByCorr: CorrIndex;
}

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
  const opByCorr = corrIndex(input.maxCorr, gpu.count);
  for (let op = 0; op < gpu.count; op++) opByCorr.add(gpu.corr[op], op);
  return { order: issueOrder(made), callCorr: out.callCorr, opByCorr };
}

function adoptCalls(b: TraceBuilder, out: ArrangeOut, made: Arranged, sites: SiteTable): void {
  b.calls.adopt(made.calls, {
    lane: out.callLane,
    kind: out.callKind,
    depth: out.callDepth,
    begin: out.callBegin,
    end: out.callEnd,
    name: out.callName,
    context: out.callContext,
    stream: out.callStream,
  });
  // callRow's defaults that are not 0.
  const t = b.calls.cols;
  t.releasedBy.fill(RELEASED_NONE);
  t.unblockNs.fill(NaN);
  t.value.fill(NaN);
  t.step.fill(-1);
  for (let k = 0; k < made.nodeParent.length; k++) sites.enter(made.nodeParent[k], made.nodeName[k]);
  for (let k = 0; k < made.siteCall.length; k++) t.site[made.siteCall[k]] = sites.siteAt(made.siteNode[k]) + 1;
}

function issueOrder(a: Arranged): IssueIndex {
  const list = (i: number): IssueList => {
    const from = a.listStart[i];
    const to = a.listStart[i + 1];
    return {
      ops: a.listOps.subarray(from, to),
      corr: a.listCorr.subarray(from, to),
      best: a.listBest.subarray(from, to),
    };
  };
  const streams = a.streamKeys.length;
  const byStream = new Map(Array.from(a.streamKeys, (key, i) => [key, list(i)]));
  const byDevice = new Map(Array.from(a.deviceKeys, (key, i) => [key, list(streams + i)]));
  return indexOfLists(byStream, byDevice, list(streams + a.deviceKeys.length));
}
