// Which edges touch a call or an op, so that a frame draws the arrows of what it shows without
// looking at every edge of the trace.
import { EDGE_KINDS, Trace } from '../core/trace/model';

export interface EdgeIndex {
  callStart: Int32Array;
  callEdges: Int32Array;
  opStart: Int32Array;
  opEdges: Int32Array;
}

const LAUNCH = EDGE_KINDS.indexOf('launch');
const RELEASE = EDGE_KINDS.indexOf('release');

/** Where edge e starts and ends: which table and which row. */
export const edgeFromIsCall = (t: Trace, e: number): boolean => t.edges.kind[e] === LAUNCH;
export const edgeToIsCall = (t: Trace, e: number): boolean => t.edges.kind[e] === RELEASE;

export function buildEdgeIndex(t: Trace): EdgeIndex {
  const callStart = new Int32Array(t.calls.count + 1);
  const opStart = new Int32Array(t.ops.count + 1);
  const E = t.edges.count;
  for (let e = 0; e < E; e++) {
    (edgeFromIsCall(t, e) ? callStart : opStart)[t.edges.from[e] + 1]++;
    (edgeToIsCall(t, e) ? callStart : opStart)[t.edges.to[e] + 1]++;
  }
  for (let i = 0; i < t.calls.count; i++) callStart[i + 1] += callStart[i];
  for (let i = 0; i < t.ops.count; i++) opStart[i + 1] += opStart[i];
  const callFill = callStart.slice(0, t.calls.count);
  const opFill = opStart.slice(0, t.ops.count);
  const callEdges = new Int32Array(callStart[t.calls.count]);
  const opEdges = new Int32Array(opStart[t.ops.count]);
  for (let e = 0; e < E; e++) {
    if (edgeFromIsCall(t, e)) callEdges[callFill[t.edges.from[e]]++] = e;
    else opEdges[opFill[t.edges.from[e]]++] = e;
    if (edgeToIsCall(t, e)) callEdges[callFill[t.edges.to[e]]++] = e;
    else opEdges[opFill[t.edges.to[e]]++] = e;
  }
  return { callStart, callEdges, opStart, opEdges };
}

export function edgesOf(x: EdgeIndex, table: 'calls' | 'ops', id: number): Int32Array {
  return table === 'calls'
    ? x.callEdges.subarray(x.callStart[id], x.callStart[id + 1])
    : x.opEdges.subarray(x.opStart[id], x.opStart[id + 1]);
}
