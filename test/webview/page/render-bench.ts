// The render benchmark's page side: generates a synthetic trace inside the page (10^7 ops never
// cross the wire), hands it to the timeline like the host would, and times the frames of a
// scripted zoom and pan.
import { syntheticTrace } from '../../../bench/render-gen';

interface Result {
  ops: number;
  calls: number;
  edges: number;
  generateMs: number;
  firstFrameMs: number;
  frames: number[];
  best: number[];
  traceBytes: number;
  indexBytes: number;
}

const bytesOf = (o: object): number =>
  Object.values(o).reduce((n: number, v) => n + (ArrayBuffer.isView(v) ? v.byteLength : 0), 0);

async function run(n: number): Promise<Result> {
  const app = window.syncscope?.app;
  if (!app) throw new Error('the timeline did not start');
  const g0 = performance.now();
  const trace = syntheticTrace(n);
  const generateMs = performance.now() - g0;
  await new Promise((r) => setTimeout(r, 0));
  const canvas = document.querySelector('canvas.plot-canvas') as HTMLCanvasElement;
  // Reading one pixel makes the canvas rasterize now, so that the time includes the drawing itself.
  const flush = () => canvas.getContext('2d')?.getImageData(0, 0, 1, 1);
  const t0 = performance.now();
  app.load(trace, `synthetic ${n} ops`);
  flush();
  const firstFrameMs = performance.now() - t0;
  last = { trace, flush };
  const view = app.view;
  if (!view) throw new Error('no view');
  const [a, b] = view.visibleRange();
  const frames: number[] = [];
  const best: number[] = [];
  // Each frame is drawn three times: the first time is the frame as the user gets it; the fastest
  // of the three is the cost of the drawing itself, apart from whatever else the machine was doing.
  const frame = (t0: number, t1: number) => {
    view.setViewport(t0, t1);
    let min = Infinity;
    for (let k = 0; k < 3; k++) {
      const s = performance.now();
      view.draw();
      flush();
      const ms = performance.now() - s;
      if (k === 0) frames.push(ms);
      min = Math.min(min, ms);
    }
    best.push(min);
  };
  // Zoom from the whole trace into a window of 1/5000 of it around one point, then pan across.
  const centre = a + (b - a) * 0.37;
  for (let k = 0; k <= 40; k++) {
    const span = (b - a) / Math.pow(5000, k / 40);
    frame(centre - span / 2, centre + span / 2);
  }
  const span = (b - a) / 200;
  for (let k = 0; k < 40; k++) frame(centre + k * span * 0.1, centre + k * span * 0.1 + span);
  for (let k = 0; k <= 20; k++) {
    const s = (b - a) / Math.pow(5000, (20 - k) / 20);
    frame(centre - s / 2, centre + s / 2);
  }
  const rows = app.rows;
  const indexBytes = rows ? rows.tracks.reduce((s, t) => s + t.ids.byteLength + (t.maxEnd?.byteLength ?? 0), 0) : 0;
  return {
    ops: trace.ops.count,
    calls: trace.calls.count,
    edges: trace.edges.count,
    generateMs,
    firstFrameMs,
    frames,
    best,
    traceBytes: bytesOf(trace.calls) + bytesOf(trace.ops) + bytesOf(trace.edges),
    indexBytes,
  };
}

let last: { trace: ReturnType<typeof syntheticTrace>; flush: () => void } | null = null;

/** Loads the last trace again `times` times: the fastest load is the cost apart from machine noise. */
async function reload(times: number): Promise<number> {
  const app = window.syncscope?.app;
  if (!app || !last) throw new Error('run first');
  let best = Infinity;
  for (let k = 0; k < times; k++) {
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    app.load(last.trace, 'reload');
    last.flush();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

(window as unknown as { bench: unknown }).bench = { run, reload };
