// A small trace in the shape of the seed scenario "side stream produces, default stream consumes":
// every mark the timeline draws appears once.
import { Trace, TraceBuilder } from '../../core/trace/model';

export function sampleTrace(kernelName = 'produce'): Trace {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const dflt = b.lane({ kind: 'stream', name: 'default', device: 0, legacyDefault: true });
  const side = b.lane({ kind: 'stream', name: 'side', device: 0, nonBlocking: true, priority: -1 });
  const launchP = b.call({
    lane: main,
    kind: 'launch',
    name: 'cudaLaunchKernel',
    begin: 0,
    end: 3500,
    stream: side,
    line: 5,
    column: 7,
  });
  const produce = b.op({
    lane: side,
    kind: 'kernel',
    name: kernelName,
    start: 5000,
    end: 205000,
    call: launchP,
    grid: 132,
    block: 256,
  });
  const rec = b.call({
    lane: main,
    kind: 'record',
    name: 'cudaEventRecord',
    begin: 4000,
    end: 4300,
    stream: side,
    event: 'ready',
  });
  const recOp = b.op({
    lane: side,
    kind: 'eventRecord',
    name: 'record ready',
    start: 205000,
    end: 205000,
    call: rec,
    event: 'ready',
  });
  const wait = b.call({
    lane: main,
    kind: 'streamWait',
    name: 'cudaStreamWaitEvent',
    begin: 4500,
    end: 4800,
    stream: dflt,
    event: 'ready',
  });
  const waitOp = b.op({
    lane: dflt,
    kind: 'waitEvent',
    name: 'wait ready',
    start: 5000,
    end: 205000,
    call: wait,
    event: 'ready',
  });
  const launchC = b.call({
    lane: main,
    kind: 'launch',
    name: 'cudaLaunchKernel',
    begin: 5000,
    end: 8500,
    stream: dflt,
  });
  const consume = b.op({ lane: dflt, kind: 'kernel', name: 'consume', start: 205500, end: 255500, call: launchC });
  b.call({
    lane: main,
    kind: 'query',
    name: 'cudaEventQuery',
    begin: 60000,
    end: 60300,
    event: 'ready',
    answer: 'notReady',
    status: 'cudaErrorNotReady',
  });
  const sync = b.call({
    lane: main,
    kind: 'eventSync',
    name: 'cudaEventSynchronize',
    begin: 70000,
    end: 208600,
    event: 'ready',
    blockedNs: 138600,
    releasedBy: produce,
    unblockNs: 3600,
    line: 9,
    column: 7,
  });
  b.call({
    lane: main,
    kind: 'query',
    name: 'cudaEventQuery',
    begin: 212000,
    end: 212300,
    event: 'ready',
    answer: 'ready',
  });
  const ssync = b.call({
    lane: main,
    kind: 'streamSync',
    name: 'cudaStreamSynchronize',
    begin: 215000,
    end: 259100,
    stream: dflt,
    blockedNs: 44100,
    releasedBy: consume,
    unblockNs: 3600,
    line: 12,
    column: 7,
  });
  b.edge('launch', launchP, produce);
  b.edge('launch', rec, recOp);
  b.edge('launch', wait, waitOp);
  b.edge('launch', launchC, consume);
  b.edge('event', recOp, waitOp);
  b.edge('stream', waitOp, consume);
  b.edge('release', produce, sync);
  b.edge('release', consume, ssync);
  b.findings.push({
    rule: 'S13',
    kind: 'narrower-wait',
    severity: 'warning',
    message: 'cudaStreamSynchronize waits for consume; an event wait would do',
    calls: [ssync],
    ops: [consume],
    source: { line: 12, column: 7 },
  });
  return b.finish({
    source: 'simulator',
    clock: 'simulated',
    alignmentErrorNs: 0,
    scenario: { name: 'Side stream produces, default stream consumes' },
  });
}

export const SAMPLE = {
  launchP: 0,
  rec: 1,
  wait: 2,
  launchC: 3,
  queryNotReady: 4,
  sync: 5,
  queryReady: 6,
  ssync: 7,
  produce: 0,
  recOp: 1,
  waitOp: 2,
  consume: 3,
} as const;
