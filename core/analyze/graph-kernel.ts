// The happens-before graph's native half, where the host has one (node/native-graph.ts sets it):
// the lane order, the replay of the calls, the cross-lane edges and the vector clocks, by the same
// rules as graph.ts, bindings.ts and hb.ts, which stay the reference and the fallback (test/native/hb-native.test.ts holds them equal).
// Where it is not set, or declines a graph (an index out of range: it checks every one it reads),
// the TypeScript builds it.
import type { SparseRows } from './csr';

/** Node -> lane: the narrowest signed array that holds every lane and -1. */
export type LaneIds = Int8Array | Int16Array | Int32Array;

export interface GraphKernel {
  hbLaneOrder(input: {
    calls: number;
    ops: number;
    lanes: number;
    callLane: Uint32Array;
    callKind: Uint8Array;
    callBegin: Float64Array;
    opLane: Uint32Array;
    opStart: Float64Array;
    opCall: Int32Array;
    contextKind: number;
  }): {
    order: Int32Array;
    start: Int32Array;
    seq: Int32Array;
    lane: LaneIds;
    /** Absent where every op's call is its launch from another lane. */
    launcher?: Int32Array;
    /** The one call lane's range of `order` where it is the calls in time order; -1 where there is none. */
    callOrderFrom: number;
    callOrderTo: number;
  };
  hbBind(input: {
    calls: number;
    ops: number;
    lanes: number;
    strings: number;
    kind: Uint8Array;
    answer: Uint8Array;
    device: Uint8Array;
    event: Int32Array;
    event2: Int32Array;
    stream: Int32Array;
    releasedBy: Int32Array;
    lane: Uint32Array;
    blockedNs: Float64Array;
    opCall: Int32Array;
    opLane: Uint32Array;
    opKind: Uint8Array;
    copyKind: Uint8Array;
    /** Per lane its device, -1 where it names none. */
    laneDevice: Int32Array;
    /** The stream lanes in lane order, and each one's device (-1: none). */
    streamLane: Int32Array;
    streamDevice: Int32Array;
    timeOrder: Int32Array;
    kinds: Record<
      | 'streamWait'
      | 'eventSync'
      | 'query'
      | 'elapsed'
      | 'streamSync'
      | 'deviceSync'
      | 'record'
      | 'memcpy'
      | 'memset'
      | 'eventRecordOp'
      | 'dtoh'
      | 'ready',
      number
    >;
  }): Record<
    | 'opsStart'
    | 'opsOf'
    | 'biasedBound'
    | 'biasedRecordOp'
    | 'biasedReplaced'
    | 'consumers'
    | 'waits'
    | 'syncCopies'
    | 'eventFrom'
    | 'eventTo'
    /** The elapsed calls' end records, as (call, record) pairs in replay order. */
    | 'bound2',
    Int32Array
  > & { awaits: SparseRows };
  hbStreamWork(input: {
    ops: number;
    lanes: number;
    kind: Uint8Array;
    lane: Uint32Array;
    start: Float64Array;
    end: Float64Array;
    /** Per op kind, 1 where it is GPU work that S3 orders. */
    isWork: Uint8Array;
    /** (legacy lane, candidate lane) pairs, flat. */
    pairs: Int32Array;
    overlapNs: number;
  }): {
    /** Lane l's GPU work is ids[start[l] .. start[l + 1]), in order of start. */
    start: Int32Array;
    ids: Int32Array;
    /** Per pair, 1 where the two lanes' work overlapped. */
    overlapped: Uint8Array;
  };
  hbHoldCandidates(input: {
    ops: Int32Array;
    others: Int32Array;
    start: Float64Array;
    end: Float64Array;
    kind: Uint8Array;
    call: Int32Array;
    callEnd: Float64Array;
    callBlockedNs: Float64Array;
    kernelKind: number;
    maxStartGapNs: number;
    minDelayNs: number;
    holdRatio: number;
  }): {
    /** (op held, op it waited for, the op before it in its stream or -1) per hold. */
    ops: Int32Array;
    delayNs: Float64Array;
  };
  hbCrossLanes(
    graph: KernelLanes,
    input: {
      opCall: Int32Array;
      edges: number;
      edgeKind: Uint8Array;
      edgeFrom: Int32Array;
      edgeTo: Int32Array;
      edgeKinds: number;
      launchEdge: number;
      releaseEdge: number;
      eventEdge: number;
      eventFrom: Int32Array;
      eventTo: Int32Array;
      waitKeys: Int32Array;
      waitStart: Int32Array;
      waitIds: Int32Array;
    },
  ): SparseRows & { edgeCounts: Int32Array };
  hbClockRows(graph: KernelGraph): number;
  hbClocks(graph: KernelGraph, rowCount: number): { rows: Int32Array; rowOf: Int32Array };
}

/** A graph's lanes (graph.ts): calls are nodes 0..C-1, ops C..C+O-1. */
export interface KernelLanes {
  calls: number;
  nodes: number;
  lanes: number;
  /** Node -> its lane, or -1 for nodes outside any order (enclosing framework ranges). */
  lane: LaneIds;
  /** Node -> 1-based position in its lane. */
  seq: Int32Array;
  /** Lane l holds nodes order[laneStart[l]] .. order[laneStart[l + 1] - 1], in order. */
  order: Int32Array;
  laneStart: Int32Array;
}

/** A graph as its clocks read it. */
export interface KernelGraph extends KernelLanes {
  /** Per op j: the call whose launch reaches node C + j from another lane, or -1 (launcherOf). */
  launcher: Int32Array;
  /**
   * Cross-lane predecessors other than the launch, in a row per node that has any (successors,
   * launches included: `successors` in graph.ts, built when needed).
   */
  preds: SparseRows;
}

let kernel: GraphKernel | undefined;

/** Sets (or, with undefined, clears) the native half. */
export function useGraphKernel(k: GraphKernel | undefined): void {
  kernel = k;
}

/** `run` through the native half, or undefined where there is none or it declined the graph. */
export function viaKernel<T>(run: (k: GraphKernel) => T): T | undefined {
  if (!kernel) return undefined;
  try {
    return run(kernel);
  } catch {
    return undefined;
  }
}
