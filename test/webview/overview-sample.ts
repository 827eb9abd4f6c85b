// A profiled training loop of five ProfilerSteps of about 4 ms, and its overview written by hand
// (the figures are this file's, not core/overview/build.ts's): each step waits for a host-to-device
// copy on stream 13 (cudaEventSynchronize, train.py:31) and for a softmax on stream 7 (.item()'s
// cudaStreamSynchronize, train.py:25), and makes a small copy under aten::to.
import type { Overview, OverviewIteration } from '../../core/overview/types';
import { Trace, TraceBuilder } from '../../core/trace/model';

export const FILE = '/home/me/project/train.py';
const SOFTMAX =
  'void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)';
const COPY = 'Memcpy HtoD (Pageable -> Device)';
export const HOSTILE = '<img src=x onerror=alert(1)>';
export const CONTEXT = `aten::to > aten::_to_copy > aten::copy_ ${HOSTILE}`;
/** Each step's span, ns: about 4 ms, none the same. */
export const SPANS = [4_050_000, 4_120_000, 3_980_000, 4_200_000, 4_070_000];
const STEP0 = 1_000_000;

export interface LoopSample {
  trace: Trace;
  /** Per step, the calls the overview points at. */
  streamSyncs: number[];
  eventSyncs: number[];
  copies: number[];
  stepBegins: number[];
}

export function loopTrace(): LoopSample {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'thread 922 (python3)', device: 0 });
  const s7 = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  const s13 = b.lane({ kind: 'stream', name: 'stream 13', device: 0, nonBlocking: true });
  const site = (line: number, fn: string) => {
    const frame = { file: FILE, line, function: fn };
    b.sites.push({ frame, precision: 'line', stack: [frame] });
    return b.sites.length - 1;
  };
  const atItem = site(25, 'step');
  const atSync = site(31, 'step');
  const atGemm = site(20, 'step');
  const atSoftmax = site(22, 'step');
  const atLoad = site(29, 'load_batch');
  const out: LoopSample = {
    trace: undefined as unknown as Trace,
    streamSyncs: [],
    eventSyncs: [],
    copies: [],
    stepBegins: [],
  };
  let begin = STEP0;
  SPANS.forEach((span, k) => {
    const at = (us: number) => begin + us * 1000;
    out.stepBegins.push(begin);
    b.call({ lane: main, kind: 'context', name: `ProfilerStep#${k + 2}`, begin, end: begin + span, depth: 0 });
    const lc = b.call({
      lane: main,
      kind: 'launch',
      name: 'cudaMemcpyAsync',
      begin: at(40),
      end: at(52),
      stream: s13,
      depth: 1,
      site: atLoad,
    });
    const copy = b.op({
      lane: s13,
      kind: 'memcpy',
      name: COPY,
      start: at(60),
      end: at(1000),
      call: lc,
      bytes: 64 << 20,
      copy: 'HtoD',
      hostMemory: 'pageable',
    });
    b.edge('launch', lc, copy);
    const rec = b.call({
      lane: main,
      kind: 'record',
      name: 'cudaEventRecord',
      begin: at(53),
      end: at(56),
      stream: s13,
      event: 'copied',
      depth: 1,
    });
    const recOp = b.op({
      lane: s13,
      kind: 'eventRecord',
      name: 'record copied',
      start: at(1000),
      end: at(1000),
      call: rec,
      event: 'copied',
    });
    b.edge('launch', rec, recOp);
    const lg = b.call({
      lane: main,
      kind: 'launch',
      name: 'cudaLaunchKernel',
      begin: at(60),
      end: at(68),
      stream: s7,
      depth: 1,
      site: atGemm,
    });
    const gemm = b.op({
      lane: s7,
      kind: 'kernel',
      name: 'sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32',
      start: at(70),
      end: at(1050),
      call: lg,
      grid: 264,
      block: 128,
    });
    b.edge('launch', lg, gemm);
    const es = b.call({
      lane: main,
      kind: 'eventSync',
      name: 'cudaEventSynchronize',
      begin: at(100),
      end: at(1005),
      event: 'copied',
      blockedNs: 900_000,
      releasedBy: recOp,
      unblockNs: 5000,
      how: 'deduced',
      depth: 1,
      site: atSync,
    });
    b.edge('release', recOp, es);
    out.eventSyncs.push(es);
    const ls = b.call({
      lane: main,
      kind: 'launch',
      name: 'cudaLaunchKernel',
      begin: at(1020),
      end: at(1028),
      stream: s7,
      depth: 1,
      site: atSoftmax,
    });
    const softmax = b.op({
      lane: s7,
      kind: 'kernel',
      name: SOFTMAX,
      start: at(1060),
      end: at(2600 + 10 * k),
      call: ls,
      grid: 1024,
      block: 128,
    });
    b.edge('launch', ls, softmax);
    const ss = b.call({
      lane: main,
      kind: 'streamSync',
      name: 'cudaStreamSynchronize',
      begin: at(1100),
      end: at(2604 + 10 * k),
      stream: s7,
      blockedNs: 1_500_000 + 10_000 * k,
      releasedBy: softmax,
      unblockNs: 4000,
      depth: 1,
      site: atItem,
      context: 'aten::item > aten::_local_scalar_dense',
    });
    b.edge('release', softmax, ss);
    out.streamSyncs.push(ss);
    const cp = b.call({
      lane: main,
      kind: 'memcpy',
      name: 'cudaMemcpyAsync',
      begin: at(2700),
      end: at(2712),
      stream: s7,
      blockedNs: 7_000,
      releasedBy: -2,
      depth: 1,
      context: CONTEXT,
    });
    out.copies.push(cp);
    begin += span;
  });
  b.findings.push(
    {
      rule: 'S13',
      kind: 'redundant-wait',
      severity: 'warning',
      message:
        'cudaEventSynchronize at train.py:31 waits for a copy that the next launch on stream 7 would wait for anyway',
      calls: [out.eventSyncs[0]],
      ops: [],
    },
    {
      rule: 'S12',
      kind: 'loop-sync',
      severity: 'warning',
      message:
        'cudaStreamSynchronize at train.py:25 in step() runs every iteration, each time followed by the next launch (candidate)',
      calls: [out.streamSyncs[0]],
      ops: [],
    },
    {
      rule: 'S6',
      kind: 'race',
      severity: 'error',
      message: `stream 7 reads the batch while stream 13 may still write it ${HOSTILE}`,
      calls: [out.eventSyncs[1]],
      ops: [],
    },
    {
      rule: 'S18',
      kind: 'launch-queue-stall',
      severity: 'info',
      message: 'cudaMemcpyAsync under aten::to waited for the launch queue',
      calls: [out.copies[0]],
      ops: [],
    },
  );
  out.trace = b.finish({ source: 'pytorch', clock: 'host', alignmentErrorNs: 0 });
  return out;
}

function iteration(k: number): OverviewIteration {
  const span = SPANS[k];
  const running = 380_000 + 20_000 * k;
  const streamSync = 1_500_000 + 10_000 * k;
  const eventSync = 900_000;
  return {
    label: `ProfilerStep#${k + 2}`,
    beginNs: 0,
    endNs: span,
    host: {
      runningNs: running,
      blocked: [
        { kind: 'streamSync', ns: streamSync },
        { kind: 'eventSync', ns: eventSync },
      ],
      otherNs: span - running - streamSync - eventSync,
    },
    gpu: [
      { stream: 'stream 7', busyNs: 2_510_000 + 10_000 * k, idleNs: span - 2_510_000 - 10_000 * k },
      { stream: 'stream 13', busyNs: 940_000, idleNs: span - 940_000 },
    ],
  };
}

/** The overview of loopTrace(), as build.ts would give it. */
export function loopOverview(s: LoopSample): Overview {
  const iterations = SPANS.map((_, k) => {
    const it = iteration(k);
    return { ...it, beginNs: s.stepBegins[k], endNs: s.stepBegins[k] + SPANS[k] };
  });
  return {
    window: {
      detectedBy: 'ProfilerStep',
      labels: iterations.map((i) => i.label),
      leftOut: [{ label: 'ProfilerStep#1', why: 'warm-up, the first step the profiler recorded' }],
      beginNs: iterations[0].beginNs,
      endNs: iterations[4].endNs,
      text: "5 steps, ProfilerStep#2 to ProfilerStep#6, from the profiler's step markers; ProfilerStep#1 left out: warm-up, the first step the profiler recorded",
    },
    iterations,
    lines: [
      {
        where: { file: FILE, line: 25, function: 'step', precision: 'line' },
        blockedNs: 7_600_000,
        perIterationNs: 1_520_000,
        share: 0.625,
        waits: 5,
        longest: s.streamSyncs[4],
        releasedBy: {
          name: SOFTMAX,
          shortName: 'cunn_SoftMaxForward',
          stream: 'stream 7',
          how: 'exact',
          launch: { file: FILE, line: 22, function: 'step' },
        },
        releasedByText: 'released by "cunn_SoftMaxForward" on stream 7',
      },
      {
        where: { file: FILE, line: 31, function: 'step', precision: 'line' },
        blockedNs: 4_500_000,
        perIterationNs: 900_000,
        share: 0.37,
        waits: 5,
        longest: s.eventSyncs[0],
        releasedBy: {
          name: COPY,
          shortName: COPY,
          stream: 'stream 13',
          how: 'deduced',
          launch: { file: FILE, line: 29, function: 'load_batch' },
        },
        releasedByText: `released by "${COPY}" on stream 13 (deduced)`,
      },
      {
        where: { context: CONTEXT },
        blockedNs: 35_000,
        perIterationNs: 7_000,
        share: 0.005,
        waits: 5,
        longest: s.copies[2],
        releasedByText: 'unknown (the trace does not say)',
      },
    ],
    findings: [
      {
        index: 1,
        id: 'F2',
        kind: 'loop-sync',
        severity: 'warning',
        message:
          'cudaStreamSynchronize at train.py:25 in step() runs every iteration, each time followed by the next launch (candidate)',
        where: { file: FILE, line: 25, function: 'step', precision: 'line' },
        predictedSavingNs: 6_150_000,
        perIterationNs: 1_230_000,
        isCost: false,
        call: s.streamSyncs[0],
      },
      {
        index: 0,
        id: 'F1',
        kind: 'redundant-wait',
        severity: 'warning',
        message:
          'cudaEventSynchronize at train.py:31 waits for a copy that the next launch on stream 7 would wait for anyway',
        where: { file: FILE, line: 31, function: 'step', precision: 'line' },
        predictedSavingNs: 410_000,
        perIterationNs: 82_000,
        isCost: false,
        call: s.eventSyncs[0],
      },
      {
        index: 2,
        id: 'F3',
        kind: 'race',
        severity: 'error',
        message: `stream 7 reads the batch while stream 13 may still write it ${HOSTILE}`,
        where: { file: FILE, line: 31, function: 'step', precision: 'line' },
        predictedSavingNs: -150_000,
        perIterationNs: -30_000,
        isCost: true,
        call: s.eventSyncs[1],
      },
      {
        index: 3,
        id: 'F4',
        kind: 'launch-queue-stall',
        severity: 'info',
        message: 'cudaMemcpyAsync under aten::to waited for the launch queue',
        where: { context: CONTEXT },
        noSaving: 'no fix to simulate',
        isCost: false,
        call: s.copies[0],
      },
    ],
    profile: 'h200',
  };
}

/** `n` iterations of about 4 ms for the chart alone (no trace behind them). */
export function manyIterations(n: number, s: LoopSample): Overview {
  const o = loopOverview(s);
  const iterations = Array.from({ length: n }, (_, k) => {
    const it = iteration(k % 5);
    const begin = STEP0 + k * 4_100_000;
    return { ...it, label: `ProfilerStep#${k + 2}`, beginNs: begin, endNs: begin + SPANS[k % 5] };
  });
  return { ...o, iterations, window: { ...o.window, labels: iterations.map((i) => i.label) } };
}
