// Our own Chrome export (core/export/chrome.ts) -> the Trace it came from. The slices' args hold
// each call's and op's row and the root holds meta and lanes, so nothing is inferred here.
import {
  ANSWERS, Answer, CALL_KINDS, CallKind, COPY_KINDS, CopyKind, EDGE_KINDS, EdgeKind, Finding, HOST_MEMORY, HostMemory,
  Lane, OP_KINDS, OpKind, RELEASED_NONE, RELEASED_UNKNOWN, Trace, TraceBuilder, TraceMeta,
} from '../trace/model';
import { CHROME_FORMAT, CHROME_VERSION } from '../export/chrome';
import { createEventScanner, ImportError } from './scan';
import type { ImportOptions, TraceImporter } from './pytorch';

type Json = Record<string, unknown>;

const oneOf = <T extends string>(list: readonly T[], v: unknown, what: string): T => {
  if (!(list as readonly unknown[]).includes(v)) throw new ImportError(`not a Syncscope Chrome export: unknown ${what} ${JSON.stringify(v)}`);
  return v as T;
};
const opt = <T>(v: unknown, type: string): T | undefined => (typeof v === type ? (v as T) : undefined);

export function createChromeImporter(opts: ImportOptions = {}): TraceImporter {
  const b = new TraceBuilder();
  const fail = (what: string) => {
    throw new ImportError(`not a Syncscope Chrome export: ${what}`);
  };

  function onEvent(e: Json): void {
    const a = e.args as Json | undefined;
    if (!a) return;
    if (e.ph === 'X' && typeof a.op === 'number') {
      if (a.op !== b.ops.count) fail(`op ${a.op} out of order`);
      const truth = Array.isArray(a.truth) ? (a.truth as number[]) : undefined;
      const id = b.op({
        lane: Number(e.tid), kind: oneOf<OpKind>(OP_KINDS, a.kind, 'op kind'), start: Number(a.start), end: Number(a.end),
        name: a.unnamed ? undefined : String(e.name),
        call: opt(a.call, 'number'), grid: opt(a.grid, 'number'), block: opt(a.block, 'number'), bytes: opt(a.bytes, 'number'),
        copy: a.copy === undefined ? undefined : oneOf<CopyKind>(COPY_KINDS, a.copy, 'copy'),
        hostMemory: a.hostMemory === undefined ? undefined : oneOf<HostMemory>(HOST_MEMORY, a.hostMemory, 'host memory'),
        event: opt(a.event, 'string'), truthStart: truth?.[0], truthEnd: truth?.[1],
      });
      for (const r of (a.reads as string[] | undefined) ?? []) b.access(id, r, false);
      for (const w of (a.writes as string[] | undefined) ?? []) b.access(id, w, true);
    } else if (e.ph === 'X' && typeof a.call === 'number') {
      if (a.call !== b.calls.count) fail(`call ${a.call} out of order`);
      const src = Array.isArray(a.source) ? (a.source as number[]) : undefined;
      b.call({
        lane: Number(e.tid), kind: oneOf<CallKind>(CALL_KINDS, a.kind, 'call kind'), begin: Number(a.begin), end: Number(a.end),
        name: a.unnamed ? undefined : String(e.name),
        stream: opt(a.stream, 'number'), event: opt(a.event, 'string'), event2: opt(a.event2, 'string'),
        blockedNs: opt(a.blockedNs, 'number'),
        releasedBy: a.releasedBy === 'unknown' ? RELEASED_UNKNOWN : a.releasedBy === undefined ? RELEASED_NONE : Number(a.releasedBy),
        unblockNs: opt(a.unblockNs, 'number'), answer: a.answer === undefined ? undefined : oneOf<Answer>(ANSWERS, a.answer, 'answer'),
        status: opt(a.status, 'string'), value: opt(a.valueMs, 'number'), bytes: opt(a.bytes, 'number'), step: opt(a.step, 'number'),
        line: src?.[0], column: src?.[1], context: opt(a.context, 'string'), depth: opt(a.depth, 'number'),
      });
    } else if (e.ph === 's' && typeof a.edge === 'number') {
      b.edge(oneOf<EdgeKind>(EDGE_KINDS, a.kind, 'edge kind'), Number(a.from), Number(a.to));
    } else if (e.ph === 'i' && typeof a.finding === 'number') {
      const { finding: _i, ...f } = a;
      b.findings.push(f as unknown as Finding);
    }
  }

  const scanner = createEventScanner((list) => {
    for (const e of list) if (typeof e === 'object' && e !== null) onEvent(e as Json);
  }, opts.onProgress, opts.decodeUtf8);

  return {
    push: (chunk) => scanner.push(chunk),
    finish(): Trace {
      const head = scanner.finish().syncscope as Json | undefined;
      if (!head || head.format !== CHROME_FORMAT) fail('the root has no "syncscope" header');
      if (head!.version !== CHROME_VERSION) fail(`version ${JSON.stringify(head!.version)}; this build reads version ${CHROME_VERSION}`);
      for (const { id: _id, ...lane } of head!.lanes as Lane[]) b.lane(lane);
      const lanes = b.lanes.length;
      const bad = (n: number, count: number) => !(Number.isInteger(n) && n >= 0 && n < count);
      const c = b.calls.cols;
      for (let i = 0; i < b.calls.count; i++) if (bad(c.lane[i], lanes)) fail(`call ${i} is on lane ${c.lane[i]}, which is not in the header`);
      for (let i = 0; i < b.ops.count; i++) if (bad(b.ops.cols.lane[i], lanes)) fail(`op ${i} is on lane ${b.ops.cols.lane[i]}, which is not in the header`);
      return b.finish(head!.meta as TraceMeta);
    },
  };
}

export function importChrome(text: string | Uint8Array): Trace {
  const imp = createChromeImporter();
  imp.push(text);
  return imp.finish();
}
