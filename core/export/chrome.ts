// Trace -> Chrome trace-event JSON, for Perfetto (ui.perfetto.dev) and chrome://tracing. Host threads
// are threads of a "Host" process and streams are threads of one process per GPU; calls and ops are
// complete slices; launch, stream, event and release edges are flows bound to slices at both ends;
// findings are instant events. Every slice carries its `*.syncscope.json` row in `args` (as `call` or
// `op`), and the root carries meta and lanes, so core/import/chrome.ts rebuilds the same Trace from
// the file through the trace format's own validation.
import { RowText } from '../trace/json';
import { CALL_KINDS, EDGE_KINDS, OP_KINDS, Trace, str } from '../trace/model';

export const CHROME_FORMAT = 'syncscope-chrome';
/** 2: slices carry their call or op as a whole row (version 1 carried only its id). */
export const CHROME_VERSION = 2;

const HOST_PID = 1;
const gpuPid = (device: number) => 10 + Math.max(0, device);
/** Microseconds with nanosecond digits, as the format wants. */
const us = (ns: number) => +(ns / 1000).toFixed(3);

type Json = Record<string, unknown>;

/** Where a slice lives: [pid, tid]. */
function place(t: Trace, lane: number): [number, number] {
  const l = t.lanes[lane];
  return [l.kind === 'thread' ? HOST_PID : gpuPid(l.device), lane];
}

/**
 * A flow end is bound to the slice enclosing its timestamp, so each end sits in the middle of its
 * slice: strictly inside it, and past the start of anything nested in it on the same thread.
 */
const mid = (a: number, b: number) => us(a + (b - a) / 2);

/** Events joined into strings of about a thousand events each, with the commas between them. */
class Chunks {
  private out: string[] = [];
  private first = true;
  /** `row`: the slice's `*.syncscope.json` row, as `args: { [key]: row }` after e's own keys. */
  emit(e: Json, row?: { key: string; text: string }): void {
    const text = JSON.stringify(e);
    this.out.push((this.first ? '' : ',\n') + (row ? `${text.slice(0, -1)},"args":{"${row.key}":${row.text}}}` : text));
    this.first = false;
  }
  take(): string {
    const s = this.out.join('');
    this.out = [];
    return s;
  }
  *flush(): Generator<string> {
    if (this.out.length >= 1000) yield this.take();
  }
}

/** The export, as a sequence of strings of about a thousand events each. */
export function* chromeTraceChunks(t: Trace): Generator<string> {
  const head = { format: CHROME_FORMAT, version: CHROME_VERSION, meta: t.meta, lanes: t.lanes };
  yield `{"displayTimeUnit":"ns","syncscope":${JSON.stringify(head)},\n"traceEvents":[\n`;
  const out = new Chunks();
  emitNames(t, out);
  yield out.take();
  const rows = new RowText(t);
  yield* emitCalls(t, rows, out);
  yield* emitOps(t, rows, out);
  yield* emitEdges(t, out);
  emitFindings(t, out);
  yield out.take() + '\n]}\n';
}

/** Process and thread names and their order. */
function emitNames(t: Trace, out: Chunks): void {
  out.emit({ ph: 'M', name: 'process_name', pid: HOST_PID, tid: 0, args: { name: 'Host' } });
  out.emit({ ph: 'M', name: 'process_sort_index', pid: HOST_PID, tid: 0, args: { sort_index: 0 } });
  for (const d of new Set(t.lanes.filter((l) => l.kind !== 'thread').map((l) => l.device))) {
    out.emit({
      ph: 'M',
      name: 'process_name',
      pid: gpuPid(d),
      tid: 0,
      args: { name: t.meta.device?.name ? `GPU ${d} (${t.meta.device.name})` : `GPU ${d}` },
    });
    out.emit({ ph: 'M', name: 'process_sort_index', pid: gpuPid(d), tid: 0, args: { sort_index: 1 + d } });
  }
  for (const l of t.lanes) {
    const [pid, tid] = place(t, l.id);
    out.emit({ ph: 'M', name: 'thread_name', pid, tid, args: { name: l.name } });
    out.emit({ ph: 'M', name: 'thread_sort_index', pid, tid, args: { sort_index: l.id } });
  }
}

function* emitCalls(t: Trace, rows: RowText, out: Chunks): Generator<string> {
  const c = t.calls;
  for (let i = 0; i < c.count; i++) {
    const kind = CALL_KINDS[c.kind[i]];
    const name = str(t, c.name[i]);
    emitSlice(t, out, {
      what: 'call',
      kind,
      name,
      lane: c.lane[i],
      begin: c.begin[i],
      end: c.end[i],
      row: rows.call(i),
    });
    yield* out.flush();
  }
}

function* emitOps(t: Trace, rows: RowText, out: Chunks): Generator<string> {
  const p = t.ops;
  for (let i = 0; i < p.count; i++) {
    const kind = OP_KINDS[p.kind[i]];
    const name = str(t, p.name[i]);
    emitSlice(t, out, { what: 'op', kind, name, lane: p.lane[i], begin: p.start[i], end: p.end[i], row: rows.op(i) });
    yield* out.flush();
  }
}

interface Slice {
  what: 'call' | 'op';
  kind: string;
  name: string;
  lane: number;
  begin: number;
  end: number;
  /** Its `*.syncscope.json` row. */
  row: string;
}

/** A call's or an op's complete slice, named by its kind where it has no name, carrying its row. */
function emitSlice(t: Trace, out: Chunks, s: Slice): void {
  const [pid, tid] = place(t, s.lane);
  out.emit(
    {
      ph: 'X',
      cat: `${s.what},${s.kind}`,
      name: s.name || s.kind,
      pid,
      tid,
      ts: us(s.begin),
      dur: us(s.end - s.begin),
    },
    { key: s.what, text: s.row },
  );
}

/** Where a flow starts or ends on a call or an op: [pid, tid, ts]. */
const callEnd = (t: Trace, i: number): [number, number, number] => [
  ...place(t, t.calls.lane[i]),
  mid(t.calls.begin[i], t.calls.end[i]),
];
const opEnd = (t: Trace, i: number): [number, number, number] => [
  ...place(t, t.ops.lane[i]),
  mid(t.ops.start[i], t.ops.end[i]),
];

function* emitEdges(t: Trace, out: Chunks): Generator<string> {
  const e = t.edges;
  for (let i = 0; i < e.count; i++) {
    const kind = EDGE_KINDS[e.kind[i]];
    const [fp, ft, fts] = kind === 'launch' ? callEnd(t, e.from[i]) : opEnd(t, e.from[i]);
    const [tp, tt, tts] = kind === 'release' ? callEnd(t, e.to[i]) : opEnd(t, e.to[i]);
    out.emit({
      ph: 's',
      cat: 'edge,' + kind,
      name: kind,
      id: i,
      pid: fp,
      tid: ft,
      ts: fts,
      bp: 'e',
      args: { edge: i, kind, from: e.from[i], to: e.to[i] },
    });
    out.emit({ ph: 'f', cat: 'edge,' + kind, name: kind, id: i, pid: tp, tid: tt, ts: tts, bp: 'e' });
    yield* out.flush();
  }
}

function emitFindings(t: Trace, out: Chunks): void {
  t.findings.forEach((f, i) => {
    const [pid, tid, ts] = f.calls.length
      ? callEnd(t, f.calls[0])
      : f.ops.length
        ? opEnd(t, f.ops[0])
        : [HOST_PID, 0, 0];
    out.emit({
      ph: 'i',
      s: f.calls.length || f.ops.length ? 't' : 'g',
      cat: 'finding,' + f.severity,
      name: `${f.rule} ${f.kind}`,
      pid,
      tid,
      ts,
      args: { finding: i, ...f },
    });
  });
}

export const traceToChrome = (t: Trace): string => [...chromeTraceChunks(t)].join('');
