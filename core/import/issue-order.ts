// Issue order of GPU work. CUDA correlation ids grow with every API call of the process, so among
// the ops of one stream, device or process they order work as the host issued it, whatever the
// GPU timestamps say. Each list keeps, for every prefix, the op that ended last: "what was issued
// before call C and completed last" is one binary search.
import { orderByKey } from './key-order';

export interface IssueList {
  /** Op ids in issue order. */
  ops: Int32Array;
  corr: Float64Array;
  /** best[k]: the op among ops[0..k] with the latest end. */
  best: Int32Array;
}

export interface IssueIndex {
  byStream: Map<number, IssueList>;
  /** The op issued before `corr` on that stream that ended last, or -1. */
  lastOnStream(lane: number, corr: number): number;
  lastOnDevice(device: number, corr: number): number;
  lastAnywhere(corr: number): number;
  /** The last op issued to the stream before `corr`, and the first one after it; -1 when none. */
  lastIssuedOnStream(lane: number, corr: number): number;
  firstIssuedOnStream(lane: number, corr: number): number;
}

/** `ops` must already be in issue order. */
function list(ops: Int32Array, corr: Float64Array, end: Float64Array): IssueList {
  const best = new Int32Array(ops.length);
  const at = new Float64Array(ops.length);
  for (let k = 0; k < ops.length; k++) {
    best[k] = k && end[best[k - 1]] >= end[ops[k]] ? best[k - 1] : ops[k];
    at[k] = corr[ops[k]];
  }
  return { ops, corr: at, best };
}

/** Keys below this (lane ids, device numbers) find their list through a table, not a Map. */
const SMALL_KEYS = 1 << 12;

/** `order`'s ops by `keyOf`, each list in `order`'s order; the keys in the order first met. */
function groupBy(order: Int32Array, keyOf: (op: number) => number): Map<number, Int32Array> {
  const slot = new Map<number, number>();
  const small = new Int32Array(SMALL_KEYS).fill(-1);
  const slots = new Int32Array(order.length);
  const sizes: number[] = [];
  for (let k = 0; k < order.length; k++) {
    const key = keyOf(order[k]);
    const isSmall = key >= 0 && key < SMALL_KEYS && key === Math.floor(key);
    let s = isSmall ? small[key] : (slot.get(key) ?? -1);
    if (s < 0) {
      s = sizes.length;
      sizes.push(0);
      slot.set(key, s);
      if (isSmall) small[key] = s;
    }
    slots[k] = s;
    sizes[s]++;
  }
  const lists = sizes.map((n) => new Int32Array(n));
  const filled = new Int32Array(sizes.length);
  for (let k = 0; k < order.length; k++) lists[slots[k]][filled[slots[k]]++] = order[k];
  return new Map([...slot].map(([key, s]) => [key, lists[s]]));
}

/** How many entries of the sorted `corr` are below `bound`. */
function below(l: IssueList, bound: number): number {
  let lo = 0;
  let hi = l.corr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (l.corr[mid] < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function issueIndex(
  count: number,
  corr: Float64Array,
  end: Float64Array,
  laneOf: (op: number) => number,
  deviceOf: (op: number) => number,
): IssueIndex {
  // Without an issue position, an op cannot be ordered against calls.
  let kept = 0;
  for (let op = 0; op < count; op++) if (corr[op] >= 0) kept++;
  const ops = new Int32Array(kept);
  for (let op = 0, k = 0; op < count; op++) if (corr[op] >= 0) ops[k++] = op;
  // One sort, ties in op order; the per-stream and per-device lists inherit its order.
  const all = orderByKey(ops, corr);
  const byStream = new Map([...groupBy(all, laneOf)].map(([k, v]) => [k, list(v, corr, end)]));
  const byDevice = new Map([...groupBy(all, deviceOf)].map(([k, v]) => [k, list(v, corr, end)]));
  return indexOfLists(byStream, byDevice, list(all, corr, end));
}

/** The index over lists already made: by stream lane and by device, in the order first met, and of all ops. */
export function indexOfLists(
  byStream: Map<number, IssueList>,
  byDevice: Map<number, IssueList>,
  everything: IssueList,
): IssueIndex {
  const last = (l: IssueList | undefined, bound: number) => {
    const n = l ? below(l, bound) : 0;
    return n ? l!.best[n - 1] : -1;
  };
  return {
    byStream,
    lastOnStream: (lane, c) => last(byStream.get(lane), c),
    lastOnDevice: (device, c) => last(byDevice.get(device), c),
    lastAnywhere: (c) => last(everything, c),
    lastIssuedOnStream(lane, c) {
      const l = byStream.get(lane);
      const n = l ? below(l, c) : 0;
      return n ? l!.ops[n - 1] : -1;
    },
    firstIssuedOnStream(lane, c) {
      const l = byStream.get(lane);
      if (!l) return -1;
      const n = below(l, c + 1);
      return n < l.ops.length ? l.ops[n] : -1;
    },
  };
}
