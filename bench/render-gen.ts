// Synthetic traces for the render benchmark: `ops` GPU ops over 16 streams with launches, event
// records and waits, stream waits and host synchronizations, so that every kind of mark and arrow
// is present. Columns are filled directly (tableFrom) rather than through TraceBuilder: at 10^7
// ops the builder's doubling buffers would need twice the memory the benchmark is judging.
import {
  ACCESS_COLUMNS,
  CALL_COLUMNS,
  CALL_KINDS,
  EDGE_COLUMNS,
  EDGE_KINDS,
  Lane,
  OP_COLUMNS,
  OP_KINDS,
  RELEASED_NONE,
  Trace,
} from '../core/trace/model';
import { tableFrom } from '../core/trace/table';
import { seededRandom } from '../test/helpers/random';

export const STREAMS = 16;
/** One host launch call per this many ops, one host wait per this many launches. */
export const OPS_PER_LAUNCH = 16;
export const LAUNCHES_PER_WAIT = 64;

export function syntheticTrace(ops: number, seed = 1): Trace {
  const rnd = seededRandom(seed);
  const lanes: Lane[] = [{ id: 0, kind: 'thread', name: 'main', device: 0 }];
  for (let s = 0; s < STREAMS; s++) {
    lanes.push({
      id: s + 1,
      kind: 'stream',
      name: s ? `stream ${s}` : 'default',
      device: 0,
      legacyDefault: s === 0,
      nonBlocking: s > 0,
      priority: s % 4 === 3 ? -1 : 0,
    });
  }
  const strings = [
    '',
    'gemm_kernel',
    'elementwise_add',
    'reduce_sum',
    'copy',
    'record e',
    'wait e',
    'cudaLaunchKernel',
    'cudaStreamSynchronize',
    'e',
  ];
  const K = OP_KINDS.indexOf('kernel');
  const REC = OP_KINDS.indexOf('eventRecord');
  const WAIT = OP_KINDS.indexOf('waitEvent');
  const COPY = OP_KINDS.indexOf('memcpy');
  const launches = Math.floor(ops / OPS_PER_LAUNCH);
  const waits = Math.floor(launches / LAUNCHES_PER_WAIT);
  const calls = launches + waits;
  // Ops: stream s holds ops s, s+16, s+32, ... back to back with small gaps.
  const clock = new Float64Array(STREAMS);
  const opTable = tableFrom(OP_COLUMNS, ops, (c) => {
    c.call.fill(-1);
    c.truthStart.fill(NaN);
    c.truthEnd.fill(NaN);
    for (let i = 0; i < ops; i++) {
      const s = i % STREAMS;
      const r = rnd();
      const kind = i % 97 === 5 ? REC : i % 97 === 40 ? WAIT : i % 13 === 7 ? COPY : K;
      const start = clock[s] + 300 + r * 2000;
      const dur = kind === REC ? 0 : kind === WAIT ? 500 + r * 3000 : 1500 + ((i * 7919) % 23) * 900;
      c.lane[i] = s + 1;
      c.kind[i] = kind;
      c.start[i] = start;
      c.end[i] = start + dur;
      c.name[i] = kind === REC ? 5 : kind === WAIT ? 6 : kind === COPY ? 4 : 1 + (i % 3);
      c.event[i] = kind === REC || kind === WAIT ? 9 : 0;
      clock[s] = start + dur;
    }
  });
  const callTable = tableFrom(CALL_COLUMNS, calls, (c) => {
    c.stream.fill(-1);
    c.releasedBy.fill(RELEASED_NONE);
    c.unblockNs.fill(NaN);
    c.value.fill(NaN);
    c.step.fill(-1);
    let t = 0;
    let k = 0;
    for (let l = 0; l < launches; l++) {
      const op = l * OPS_PER_LAUNCH + (l % STREAMS);
      t = Math.min(Math.max(t, opTable.start[op] - 20000), opTable.start[op] - 1000);
      c.lane[k] = 0;
      c.kind[k] = CALL_KINDS.indexOf('launch');
      c.begin[k] = t;
      c.end[k] = t + 900;
      c.name[k] = 7;
      c.stream[k] = opTable.lane[op];
      opTable.call[op] = k;
      t += 1000;
      k++;
      if ((l + 1) % LAUNCHES_PER_WAIT === 0) {
        const waitFor = op; // the op this launch issued: the wait ends just after it
        const end = opTable.end[waitFor] + 3600;
        c.lane[k] = 0;
        c.kind[k] = CALL_KINDS.indexOf('streamSync');
        c.begin[k] = t;
        c.end[k] = Math.max(end, t + 500);
        c.name[k] = 8;
        c.stream[k] = opTable.lane[waitFor];
        c.blockedNs[k] = Math.max(0, c.end[k] - t - 400);
        c.releasedBy[k] = waitFor;
        c.unblockNs[k] = 3600;
        t = c.end[k] + 200;
        k++;
      }
    }
  });
  // Edges: every launch, a release per wait, and record -> wait events between neighbouring streams.
  const recs: number[] = [];
  for (let i = 0; i < ops; i++) if (opTable.kind[i] === REC) recs.push(i);
  const edgeCount = launches + waits + recs.length;
  let e = 0;
  const edgeTable = tableFrom(EDGE_COLUMNS, edgeCount, (c) => {
    for (let k = 0; k < calls; k++) {
      if (callTable.kind[k] === CALL_KINDS.indexOf('launch')) {
        const l = k - Math.floor(k / (LAUNCHES_PER_WAIT + 1));
        c.kind[e] = EDGE_KINDS.indexOf('launch');
        c.from[e] = k;
        c.to[e++] = l * OPS_PER_LAUNCH + (l % STREAMS);
      } else {
        c.kind[e] = EDGE_KINDS.indexOf('release');
        c.from[e] = callTable.releasedBy[k];
        c.to[e++] = k;
      }
    }
    for (const r of recs) {
      // The wait op 35 ops later (i % 97 === 40) sits on another stream: 40 - 5 = 35.
      c.kind[e] = EDGE_KINDS.indexOf('event');
      c.from[e] = r;
      c.to[e++] = Math.min(r + 35, ops - 1);
    }
  });
  return {
    meta: { source: 'simulator', clock: 'synthetic', alignmentErrorNs: 0, scenario: { name: `synthetic ${ops} ops` } },
    lanes,
    strings,
    calls: callTable,
    ops: opTable,
    edges: edgeTable,
    accesses: tableFrom(ACCESS_COLUMNS, 0, () => undefined),
    findings: [],
    sites: [],
  };
}
