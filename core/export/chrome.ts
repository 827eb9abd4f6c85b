// Trace -> Chrome trace-event JSON, for Perfetto (ui.perfetto.dev) and chrome://tracing. Host threads
// are threads of a "Host" process and streams are threads of one process per GPU; calls and ops are
// complete slices; launch, stream, event and release edges are flows bound to slices at both ends;
// findings are instant events. Every slice carries its `*.syncscope.json` row in `args` (as `call` or
// `op`), and the root carries meta and lanes, so core/import/chrome.ts rebuilds the same Trace from
// the file through the trace format's own validation.
import { accessesByOp, callJson, opJson } from '../trace/json';
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

/** The export, as a sequence of strings of about a thousand events each. */
export function* chromeTraceChunks(t: Trace): Generator<string> {
  const head = { format: CHROME_FORMAT, version: CHROME_VERSION, meta: t.meta, lanes: t.lanes };
  yield `{"displayTimeUnit":"ns","syncscope":${JSON.stringify(head)},\n"traceEvents":[\n`;
  let out: string[] = [];
  let first = true;
  const emit = (e: Json) => {
    out.push((first ? '' : ',\n') + JSON.stringify(e));
    first = false;
  };

  emit({ ph: 'M', name: 'process_name', pid: HOST_PID, tid: 0, args: { name: 'Host' } });
  emit({ ph: 'M', name: 'process_sort_index', pid: HOST_PID, tid: 0, args: { sort_index: 0 } });
  for (const d of new Set(t.lanes.filter((l) => l.kind !== 'thread').map((l) => l.device))) {
    emit({
      ph: 'M',
      name: 'process_name',
      pid: gpuPid(d),
      tid: 0,
      args: { name: t.meta.device?.name ? `GPU ${d} (${t.meta.device.name})` : `GPU ${d}` },
    });
    emit({ ph: 'M', name: 'process_sort_index', pid: gpuPid(d), tid: 0, args: { sort_index: 1 + d } });
  }
  for (const l of t.lanes) {
    const [pid, tid] = place(t, l.id);
    emit({ ph: 'M', name: 'thread_name', pid, tid, args: { name: l.name } });
    emit({ ph: 'M', name: 'thread_sort_index', pid, tid, args: { sort_index: l.id } });
  }
  yield out.join('');
  out = [];

  const access = accessesByOp(t);
  const flush = function* () {
    if (out.length >= 1000) {
      yield out.join('');
      out = [];
    }
  };

  const c = t.calls;
  for (let i = 0; i < c.count; i++) {
    const [pid, tid] = place(t, c.lane[i]);
    emit({
      ph: 'X',
      cat: 'call,' + CALL_KINDS[c.kind[i]],
      name: str(t, c.name[i]) || CALL_KINDS[c.kind[i]],
      pid,
      tid,
      ts: us(c.begin[i]),
      dur: us(c.end[i] - c.begin[i]),
      args: { call: callJson(t, i) },
    });
    yield* flush();
  }
  const p = t.ops;
  for (let i = 0; i < p.count; i++) {
    const [pid, tid] = place(t, p.lane[i]);
    emit({
      ph: 'X',
      cat: 'op,' + OP_KINDS[p.kind[i]],
      name: str(t, p.name[i]) || OP_KINDS[p.kind[i]],
      pid,
      tid,
      ts: us(p.start[i]),
      dur: us(p.end[i] - p.start[i]),
      args: { op: opJson(t, i, access.get(i)) },
    });
    yield* flush();
  }

  const e = t.edges;
  const callEnd = (i: number): [number, number, number] => [...place(t, c.lane[i]), mid(c.begin[i], c.end[i])];
  const opEnd = (i: number): [number, number, number] => [...place(t, p.lane[i]), mid(p.start[i], p.end[i])];
  for (let i = 0; i < e.count; i++) {
    const kind = EDGE_KINDS[e.kind[i]];
    const [fp, ft, fts] = kind === 'launch' ? callEnd(e.from[i]) : opEnd(e.from[i]);
    const [tp, tt, tts] = kind === 'release' ? callEnd(e.to[i]) : opEnd(e.to[i]);
    emit({
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
    emit({ ph: 'f', cat: 'edge,' + kind, name: kind, id: i, pid: tp, tid: tt, ts: tts, bp: 'e' });
    yield* flush();
  }

  t.findings.forEach((f, i) => {
    const [pid, tid, ts] = f.calls.length ? callEnd(f.calls[0]) : f.ops.length ? opEnd(f.ops[0]) : [HOST_PID, 0, 0];
    emit({
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
  yield out.join('') + '\n]}\n';
}

export const traceToChrome = (t: Trace): string => [...chromeTraceChunks(t)].join('');
