// Kineto-like PyTorch profiler traces of any size, written as Kineto writes them (one key per line
// inside multi-line event objects), for the import tests and the benchmark. Every `step` is:
// an aten::mul op enclosing a kernel launch on one of `streams` streams (kernel names contain
// HTML-looking text and escapes), and every `syncEvery` steps an aten::item op with a pageable
// device-to-host copy and a cudaStreamSynchronize with its cuda_sync event.

export interface GenOptions {
  steps: number;
  streams?: number;
  syncEvery?: number;
}

/** What a generated trace must import as, worked out from the options alone. */
export function expectedCounts(o: GenOptions) {
  const syncs = Math.floor(o.steps / (o.syncEvery ?? 10));
  return {
    contexts: o.steps + syncs, // aten::mul per step, aten::item per sync
    apiCalls: o.steps + 2 * syncs, // launch per step; memcpy + streamSync per sync
    ops: o.steps + syncs,
    streams: Math.min(o.streams ?? 2, Math.max(1, o.steps)),
    waits: 2 * syncs, // the pageable copy and the stream sync
  };
}

export const KERNEL_NAME = 'void gemm<float, <b>"tile"</b> &amp; \\path>(float*)';

const KERNEL_JSON = JSON.stringify(KERNEL_NAME);
const BASE = 5347724402146.655;

function ev(cat: string, name: string, pid: number, tid: number, ts: number, dur: number, args: string): string {
  return `  {\n    "ph": "X", "cat": "${cat}", "name": ${name}, "pid": ${pid}, "tid": ${tid},\n    "ts": ${ts}, "dur": ${dur},\n    "args": {\n      ${args}\n    }\n  }`;
}

/** The trace text in pieces of about `pieceBytes`. */
export function* generateKineto(o: GenOptions, pieceBytes = 1 << 20): Generator<string> {
  const streams = o.streams ?? 2;
  const syncEvery = o.syncEvery ?? 10;
  yield (
    '{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": "NVIDIA H200", "computeMajor": 9, "computeMinor": 0, "numSms": 132}\n  ],\n' +
    '  "cuda_driver_version": 13000,\n  "traceEvents": [\n'
  );
  let out: string[] = [];
  let size = 0;
  let first = true;
  const push = (s: string) => {
    out.push(first ? s : ',\n' + s);
    first = false;
    size += s.length + 2;
  };
  const us = (t: number) => +(BASE + t / 1000).toFixed(3);
  let corr = 1;
  let t = 0; // ns since BASE
  let gpuFree = 0;
  for (let step = 0; step < o.steps; step++) {
    const stream = 7 + (step % streams);
    const c = corr++;
    push(ev('cpu_op', '"aten::mul"', 414, 414, us(t), 9, `"External id": ${step + 1}`));
    push(
      ev(
        'cuda_runtime',
        '"cudaLaunchKernel"',
        414,
        414,
        us(t + 2000),
        5,
        `"External id": ${step + 1}, "correlation": ${c}`,
      ),
    );
    const k0 = Math.max(t + 8000, gpuFree);
    push(
      ev(
        'kernel',
        KERNEL_JSON,
        0,
        stream,
        us(k0),
        4,
        `"External id": ${step + 1}, "device": 0, "stream": ${stream}, "correlation": ${c}, "grid": [132, 1, 1], "block": [256, 1, 1]`,
      ),
    );
    gpuFree = k0 + 4000;
    t += 10000;
    if ((step + 1) % syncEvery === 0) {
      const m = corr++;
      const s = corr++;
      push(ev('cpu_op', '"aten::item"', 414, 414, us(t), 40, `"External id": ${-step}`));
      const c0 = Math.max(t + 2000, gpuFree);
      push(
        ev('cuda_runtime', '"cudaMemcpyAsync"', 414, 414, us(t + 1000), (c0 + 2000 - t) / 1000, `"correlation": ${m}`),
      );
      push(
        ev(
          'gpu_memcpy',
          '"Memcpy DtoH (Device -> Pageable)"',
          0,
          7,
          us(c0),
          1,
          `"device": 0, "stream": 7, "correlation": ${m}, "bytes": 4`,
        ),
      );
      push(ev('cuda_runtime', '"cudaStreamSynchronize"', 414, 414, us(c0 + 2500), 3, `"correlation": ${s}`));
      push(
        ev(
          'cuda_sync',
          '"Stream Sync"',
          0,
          7,
          us(c0 + 2600),
          2,
          `"cuda_sync_kind": "Stream Sync", "stream": 7, "device": 0, "correlation": ${s}`,
        ),
      );
      gpuFree = c0 + 1000;
      t = Math.max(t + 41000, c0 + 6000);
    }
    if (size >= pieceBytes) {
      yield out.join('');
      out = [];
      size = 0;
    }
  }
  yield out.join('') + '\n  ],\n  "traceName": "generated"\n}\n';
}
