// Issue order of GPU work. CUDA correlation ids grow with every API call of the process, so among
// the ops of one stream, device or process they order work as the host issued it, whatever the
// GPU timestamps say. Each list keeps, for every prefix, the op that ended last: "what was issued
// before call C and completed last" is one binary search.

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

/** `ids` must already be in issue order. */
function list(ids: number[], corr: Float64Array, end: Float64Array): IssueList {
  const ops = Int32Array.from(ids);
  const best = new Int32Array(ops.length);
  const at = new Float64Array(ops.length);
  for (let k = 0; k < ops.length; k++) {
    best[k] = k && end[best[k - 1]] >= end[ops[k]] ? best[k - 1] : ops[k];
    at[k] = corr[ops[k]];
  }
  return { ops, corr: at, best };
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
  const all: number[] = [];
  for (let op = 0; op < count; op++) if (corr[op] >= 0) all.push(op); // without an issue position, an op cannot be ordered against calls
  // One sort; the per-stream and per-device lists inherit its order.
  all.sort((a, b) => corr[a] - corr[b] || a - b);
  const streams = new Map<number, number[]>();
  const devices = new Map<number, number[]>();
  for (const op of all) {
    const lane = laneOf(op);
    const device = deviceOf(op);
    (streams.get(lane) ?? streams.set(lane, []).get(lane)!).push(op);
    (devices.get(device) ?? devices.set(device, []).get(device)!).push(op);
  }
  const byStream = new Map([...streams].map(([k, v]) => [k, list(v, corr, end)]));
  const byDevice = new Map([...devices].map(([k, v]) => [k, list(v, corr, end)]));
  const everything = list(all, corr, end);
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
