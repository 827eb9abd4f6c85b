// `syncscope calibrate`: measures the simulator's cost model (core/simulate/profile.ts) on the GPU
// by running a few scenarios and reading their traces. Each number is a median over repeats.
import { compileScenario } from '../core/scenario/parse';
import { loadProfile, type SimProfile } from '../core/simulate/profile';
import { str, type Trace } from '../core/trace/model';
import { runOnGpu } from './gpu';
import { depthFromRecorded } from './recorded';

const MiB = 1 << 20;
const COPY = 64 * MiB;

export const median = (xs: number[]): number => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[s.length >> 1] : NaN;
};
const times = (n: number, steps: unknown[]) => ({ repeat: n, steps });

/** The scenario calibration runs: each section uses names of its own, so its calls are easy to pick out. */
export const CALIBRATION_SCENARIO = {
  name: 'calibration',
  streams: { s: { nonBlocking: true }, idle: { nonBlocking: true } },
  events: { t: { timing: true }, t2: { timing: true }, n: {}, q: {}, w: {}, b: { blockingSync: true } },
  buffers: {
    d1: { bytes: COPY }, d2: { bytes: COPY }, hp: { bytes: COPY, host: 'pinned' }, hq: { bytes: COPY, host: 'pageable' },
    hq2: { bytes: COPY, host: 'pageable' }, ds: { bytes: 4096 }, hs: { bytes: 4096, host: 'pinned' }, big: { bytes: 1024 * MiB },
  },
  steps: [
    { launch: 'warm', stream: 's', us: 10 }, { streamSync: 's' },
    // Launch cost with the stream busy, so no launch waits on anything.
    { launch: 'long', stream: 's', ms: 5 }, times(200, [{ launch: 'queued', stream: 's', ns: 1000 }]), { streamSync: 's' },
    // Idle-stream launches: GPU launch latency, spin wake-up, submit delay.
    times(50, [{ launch: 'idle', stream: 's', us: 20 }, { streamSync: 's' }]),
    { launch: 'long', stream: 's', ms: 3 },
    times(200, [{ record: 't', stream: 's' }]), times(200, [{ record: 'n', stream: 's' }]), times(200, [{ wait: 'w', stream: 's' }]),
    { streamSync: 's' },
    { record: 't', stream: 's' }, { record: 't2', stream: 's' }, { streamSync: 's' },
    times(200, [{ query: 'q' }]), times(200, [{ elapsed: ['t', 't2'] }]), times(100, [{ streamSync: 'idle' }]),
    times(30, [{ launch: 'sleepy', stream: 's', us: 100 }, { record: 'b', stream: 's' }, { eventSync: 'b' }]),
    // Host functions back to back between kernels, as programs use them (a progress callback per step).
    times(20, [{ launch: 'hfa', stream: 's', us: 50 }, { hostFunc: 'hf', stream: 's' }]), { launch: 'hfa', stream: 's', us: 50 }, { streamSync: 's' },
    times(50, [{ copy: 'hs', to: 'ds', async: true, stream: 's' }]), times(50, [{ memset: 'ds', async: true, stream: 's' }]), { streamSync: 's' },
    times(5, [{ copy: 'hp', to: 'd1', async: true, stream: 's' }, { copy: 'd1', to: 'hp', async: true, stream: 's' },
      { copy: 'd1', to: 'd2', async: true, stream: 's' }, { streamSync: 's' },
      { copy: 'hq', to: 'd1', async: true, stream: 's' }, { copy: 'd1', to: 'hq', async: true, stream: 's' }, { copy: 'hq', to: 'hq2' }]),
    times(5, [{ launch: 'touch', stream: 's', touch: 'big' }]), { streamSync: 's' },
    // S19: how many launches queue behind a long kernel before one blocks.
    { launch: 'long', stream: 's', ms: 300 }, times(1100, [{ launch: 'fill', stream: 's', ns: 1 }]), { streamSync: 's' },
  ],
};

type Pick = { kind?: string; op?: string; event?: string; stream?: string };

/** Durations (ns) of the calls matching `p`; `op` matches the name of the op the call issued. */
function calls(t: Trace, p: Pick, what: (i: number) => number = (i) => t.calls.end[i] - t.calls.begin[i]): number[] {
  const opOf = new Map<number, number>();
  for (let o = 0; o < t.ops.count; o++) if (t.ops.call[o] >= 0) opOf.set(t.ops.call[o], o);
  const out: number[] = [];
  for (let i = 0; i < t.calls.count; i++) {
    const kind = ['launch', 'record', 'streamWait', 'query', 'eventSync', 'streamSync', 'deviceSync', 'elapsed', 'memcpy', 'memset', 'hostFunc', 'hostWork'];
    if (p.kind && kind[t.calls.kind[i]] !== p.kind) continue;
    if (p.event && str(t, t.calls.event[i]) !== p.event) continue;
    if (p.stream && (t.calls.stream[i] < 0 || t.lanes[t.calls.stream[i]].name !== p.stream)) continue;
    if (p.op) {
      const o = opOf.get(i);
      if (o === undefined || str(t, t.ops.name[o]) !== p.op) continue;
    }
    out.push(what(i));
  }
  return out;
}

function ops(t: Trace, name: string): number[] {
  const out: number[] = [];
  for (let o = 0; o < t.ops.count; o++) if (str(t, t.ops.name[o]) === name) out.push(o);
  return out;
}

/** The profile fields a calibration trace gives. Exported for the GPU tests, which check it against the run. */
export function profileFromTrace(t: Trace): Partial<SimProfile> {
  const o = t.ops;
  const opOfCall = new Map<number, number>();
  for (let i = 0; i < o.count; i++) if (o.call[i] >= 0) opOfCall.set(o.call[i], i);
  const idle = ops(t, 'idle');
  const span = (i: number) => o.end[i] - o.start[i];
  const bw = (name: string, useCall: boolean) => median(ops(t, name).map((i) => o.bytes[i] / (useCall ? t.calls.end[o.call[i]] - t.calls.begin[o.call[i]] : span(i))));
  const hfa = ops(t, 'hfa');
  const fills = calls(t, { kind: 'launch', op: 'fill' });
  // The launch that waited for the 300 ms kernel: the longest, not merely the first slow one.
  const firstBlocked = fills.reduce((best, d, i) => (d > 50_000 && (best < 0 || d > fills[best]) ? i : best), -1);
  const touches = ops(t, 'touch');
  // A kernel's share of its stream: the pitch of 1 us kernels queued back to back, by their own
  // stamps, less the 1 us. It includes the recorder's end event between them, as GPU runs do.
  const queued = ops(t, 'queued');
  const overhead = median(queued.slice(1).map((q, k) => o.truthStart[q] - o.truthStart[queued[k]])) - 1000;
  return {
    launchNs: median(calls(t, { kind: 'launch', op: 'queued' })),
    recordTimingNs: median(calls(t, { kind: 'record', event: 't' })),
    recordNoTimingNs: median(calls(t, { kind: 'record', event: 'n' })),
    streamWaitNs: median(calls(t, { kind: 'streamWait', event: 'w' })),
    queryNs: median(calls(t, { kind: 'query', event: 'q' })),
    elapsedNs: median(calls(t, { kind: 'elapsed' })),
    syncNs: median(calls(t, { kind: 'streamSync', stream: 'idle' })),
    copyCallNs: median(calls(t, { kind: 'memcpy', op: 'HtoD hs -> ds' })),
    memsetCallNs: median(calls(t, { kind: 'memset', op: 'memset ds' })),
    hostFuncCallNs: median(calls(t, { kind: 'hostFunc' })),
    submitNs: median(idle.map((i) => o.truthStart[i] - t.calls.end[o.call[i]])),
    kernelOverheadNs: overhead,
    // The simulator's kernel already holds its stream for kernelOverheadNs past its run.
    hostFuncGapNs: Math.max(0, median(hfa.slice(1).map((b, k) => o.truthStart[b] - o.truthStart[hfa[k]] - 50_000)) - overhead),
    queueDepth: firstBlocked > 0 ? depthFromRecorded(firstBlocked) : undefined,
    // The simulator wakes a waiting host this long after the op's end, which for a kernel is its
    // start + run + kernelOverheadNs: measured the same way (the synchronize is the next call).
    spinWakeNs: Math.max(0, median(idle.map((i) => t.calls.end[o.call[i] + 1] - (o.truthStart[i] + 20_000 + overhead)))),
    sleepWakeNs: Math.max(0, median(ops(t, 'sleepy').map((i) => t.calls.end[o.call[i] + 2] - (o.truthStart[i] + 100_000 + overhead)))),
    pinnedHtoDGBps: bw('HtoD hp -> d1', false),
    pinnedDtoHGBps: bw('DtoH d1 -> hp', false),
    pageableHtoDGBps: bw('HtoD hq -> d1', true),
    pageableDtoHGBps: bw('DtoH d1 -> hq', true),
    dtoDGBps: bw('DtoD d1 -> d2', false),
    hostCopyGBps: bw('HtoH hq -> hq2', true),
    memoryGBps: median(touches.map((i) => (2 * o.bytes[i]) / (o.truthEnd[i] - o.truthStart[i]))),
  };
}

export async function calibrateProfile(opts: { device?: number; onProgress?: (m: string) => void } = {}): Promise<SimProfile> {
  const program = compileScenario(JSON.stringify(CALIBRATION_SCENARIO), 'calibration.scenario.json');
  opts.onProgress?.(`calibrating: ${program.stepCount} steps`);
  const trace = await runOnGpu(program, { device: opts.device });
  const measured = profileFromTrace(trace);
  const fields: Record<string, unknown> = { name: 'calibrated', deviceName: trace.meta.device?.name ?? 'GPU', sms: trace.meta.device?.sms };
  for (const [k, v] of Object.entries(measured)) {
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) fields[k] = k === 'queueDepth' ? Math.round(v) : Math.round(v * 1000) / 1000;
  }
  return loadProfile(fields);
}
