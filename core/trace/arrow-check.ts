// The rules of content-rules.ts, which the JSON reader applies field by field, applied over whole
// columns for traces read from a columnar file. A column holds a row's value as the Trace does:
// -1 (or NaN, or 0 for a source position and a site) where the JSON form leaves the field out, and a
// call's first releasing op. A fault is a TraceFormatError at [table, row, column].
import {
  amountFault,
  blockedFault,
  endFault,
  finiteFault,
  INT32,
  intFault,
  DEVICE_QUEUE,
  laneFault,
  laneKinds,
  positionFault,
  refFault,
  STREAM,
  THREAD,
  truthFault,
} from './content-rules';
import { TraceFormatError } from './json-read';
import { EDGE_KINDS, RELEASED_NONE, RELEASED_UNKNOWN, type Trace } from './model';

const LAUNCH = EDGE_KINDS.indexOf('launch');
const RELEASE = EDGE_KINDS.indexOf('release');

function check(fault: string | undefined, table: string, row: number, column: string): void {
  if (fault !== undefined) throw new TraceFormatError([table, row, column], fault);
}

export function checkColumns(t: Trace): void {
  checkCalls(t);
  checkOps(t);
  const { calls, ops, edges, accesses } = t;
  for (let i = 0; i < edges.count; i++) {
    // A launch goes from a call, a release to one; every other edge is between ops.
    const launch = edges.kind[i] === LAUNCH;
    const release = edges.kind[i] === RELEASE;
    check(refFault(edges.from[i], launch ? calls.count : ops.count, launch ? 'call' : 'op'), 'edges', i, 'from');
    check(refFault(edges.to[i], release ? calls.count : ops.count, release ? 'call' : 'op'), 'edges', i, 'to');
  }
  for (let i = 0; i < accesses.count; i++) check(refFault(accesses.op[i], ops.count, 'op'), 'accesses', i, 'op');
}

function checkCalls(t: Trace): void {
  const c = t.calls;
  const thread = laneKinds(t.lanes, THREAD);
  const stream = laneKinds(t.lanes, STREAM);
  for (let i = 0; i < c.count; i++) {
    check(laneFault(c.lane[i], thread), 'calls', i, 'lane');
    const begin = c.begin[i];
    const end = c.end[i];
    check(amountFault(begin), 'calls', i, 'begin');
    check(amountFault(end) ?? endFault('begin', begin, end), 'calls', i, 'end');
    check(amountFault(c.blockedNs[i]) ?? blockedFault(c.blockedNs[i], begin, end), 'calls', i, 'blockedNs');
    if (c.stream[i] !== -1) check(laneFault(c.stream[i], stream), 'calls', i, 'stream');
    const r = c.releasedBy[i];
    if (r !== RELEASED_NONE && r !== RELEASED_UNKNOWN) check(refFault(r, t.ops.count, 'op'), 'calls', i, 'releasedBy');
    if (c.unblockNs[i] === c.unblockNs[i]) check(amountFault(c.unblockNs[i]), 'calls', i, 'unblockNs');
    if (c.value[i] === c.value[i]) check(finiteFault(c.value[i]), 'calls', i, 'value');
    check(amountFault(c.bytes[i]), 'calls', i, 'bytes');
    if (c.step[i] !== -1) check(intFault(c.step[i], 0, INT32), 'calls', i, 'step');
    if (c.line[i] !== 0 || c.column[i] !== 0) {
      check(positionFault(c.line[i]), 'calls', i, 'line');
      check(positionFault(c.column[i]), 'calls', i, 'column');
    }
    // The column holds 1 + the site's index; the fault names the index, as the JSON form holds it.
    if (c.site[i] !== 0) check(refFault(c.site[i] - 1, t.sites.length, 'site'), 'calls', i, 'site');
  }
}

function checkOps(t: Trace): void {
  const o = t.ops;
  const queue = laneKinds(t.lanes, DEVICE_QUEUE);
  for (let i = 0; i < o.count; i++) {
    check(laneFault(o.lane[i], queue), 'ops', i, 'lane');
    const start = o.start[i];
    const end = o.end[i];
    check(amountFault(start), 'ops', i, 'start');
    check(amountFault(end) ?? endFault('start', start, end), 'ops', i, 'end');
    if (o.call[i] !== -1) check(refFault(o.call[i], t.calls.count, 'call'), 'ops', i, 'call');
    check(amountFault(o.bytes[i]), 'ops', i, 'bytes');
    const ts = o.truthStart[i];
    const te = o.truthEnd[i];
    if (ts === ts || te === te) check(truthFault([ts, te]), 'ops', i, 'truthStart');
  }
}
