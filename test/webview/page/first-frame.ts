// The first-frame benchmark's page side: fetches a real trace's columns as one binary body (as the
// webview gets them: typed columns, no per-row objects), hands the Trace to the timeline the way the
// host's `trace` message does, and times how long until the first frame is drawn, then until the
// waits table and findings are filled.
import { SCHEMAS } from '../../../core/protocol';
import type { Trace } from '../../../core/trace/model';
import { tableFrom, type ColumnSchema } from '../../../core/trace/table';

interface Header {
  title: string;
  trace: Omit<Trace, 'calls' | 'ops' | 'edges' | 'accesses'>;
  tables: Record<keyof typeof SCHEMAS, { count: number; columns: Record<string, [number, number]> }>;
}

interface FirstFrame {
  ops: number;
  calls: number;
  /** Receiving the trace to the end of the first drawn canvas frame. */
  firstFrameMs: number;
  /** Receiving the trace to the waits table holding every wait. */
  panelsMs: number;
  waits: number;
}

async function readTrace(base: string): Promise<{ title: string; trace: Trace }> {
  const header = (await (await fetch(`${base}.json`)).json()) as Header;
  const bin = await (await fetch(`${base}.bin`)).arrayBuffer();
  const table = <S extends ColumnSchema>(schema: S, name: keyof typeof SCHEMAS) =>
    tableFrom(schema, header.tables[name].count, (cols) => {
      for (const key of Object.keys(schema) as (keyof S & string)[]) {
        const [offset, bytes] = header.tables[name].columns[key];
        new Uint8Array(cols[key].buffer).set(new Uint8Array(bin, offset, bytes));
      }
    });
  const trace = {
    ...header.trace,
    calls: table(SCHEMAS.calls, 'calls'),
    ops: table(SCHEMAS.ops, 'ops'),
    edges: table(SCHEMAS.edges, 'edges'),
    accesses: table(SCHEMAS.accesses, 'accesses'),
  } as Trace;
  return { title: header.title, trace };
}

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

async function run(base: string): Promise<FirstFrame> {
  const app = window.syncscope?.app;
  if (!app) throw new Error('the timeline did not start');
  const { title, trace } = await readTrace(base);
  await new Promise((r) => setTimeout(r, 50));
  const canvas = document.querySelector('canvas.plot-canvas') as HTMLCanvasElement;
  const waitsCount = document.querySelector('.waits-panel .count');
  if (!waitsCount) throw new Error('no waits count in the page');
  waitsCount.textContent = '';
  const t0 = performance.now();
  app.receive({ type: 'trace', trace, title });
  await nextFrame();
  // Reading one pixel makes the canvas rasterize now, so that the time includes the drawing itself.
  canvas.getContext('2d')?.getImageData(0, 0, 1, 1);
  const firstFrameMs = performance.now() - t0;
  // The waits table is filled last; its count is set when it is.
  while (!waitsCount.textContent) await new Promise((r) => setTimeout(r, 10));
  const panelsMs = performance.now() - t0;
  const waits = Number(waitsCount.textContent);
  return { ops: trace.ops.count, calls: trace.calls.count, firstFrameMs, panelsMs, waits };
}

(window as unknown as { bench: unknown }).bench = { run };
