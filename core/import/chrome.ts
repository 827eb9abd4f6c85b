// Our own Chrome export (core/export/chrome.ts) -> the Trace it came from. The slices' args hold
// each call's and op's `*.syncscope.json` row and the root holds meta and lanes, so nothing is inferred here.
import { TraceFormatError, traceFromJson } from '../trace/json';
import { TRACE_FORMAT, TRACE_VERSION, type Trace } from '../trace/model';
import { CHROME_FORMAT, CHROME_VERSION } from '../export/chrome';
import { createEventScanner, ImportError } from './scan';
import type { ImportOptions, TraceImporter } from './pytorch';

type Json = Record<string, unknown>;

export function createChromeImporter(opts: ImportOptions = {}): TraceImporter {
  // The slices carry the trace's own JSON rows, so the rows are gathered here and the trace format's
  // loader checks and builds them, exactly as for a `*.syncscope.json` file.
  const calls: Json[] = [];
  const ops: Json[] = [];
  const edges: Json[] = [];
  const findings: Json[] = [];
  const fail = (what: string): never => {
    throw new ImportError(`not a Syncscope Chrome export: ${what}`);
  };

  function onEvent(e: Json): void {
    const a = e.args as Json | undefined;
    if (!a) return;
    if (e.ph === 'X' && isRow(a.op)) ops.push(a.op);
    else if (e.ph === 'X' && isRow(a.call)) calls.push(a.call);
    else if (e.ph === 's' && typeof a.edge === 'number') edges.push({ kind: a.kind, from: a.from, to: a.to });
    else if (e.ph === 'i' && typeof a.finding === 'number') {
      const { finding: _i, ...f } = a;
      findings.push(f);
    }
  }

  const scanner = createEventScanner(
    (list) => {
      for (const e of list) if (typeof e === 'object' && e !== null) onEvent(e as Json);
    },
    opts.onProgress,
    opts.decodeUtf8,
  );

  return {
    push: (chunk) => scanner.push(chunk),
    finish(): Trace {
      const head = scanner.finish().syncscope as Json | undefined;
      if (!head || head.format !== CHROME_FORMAT) fail('the root has no "syncscope" header');
      if (head!.version !== CHROME_VERSION)
        fail(`version ${JSON.stringify(head!.version)}; this build reads version ${CHROME_VERSION}`);
      // Slices may come in any order in a file that another tool rewrote; rows carry their ids.
      const byId = (rows: Json[]) => rows.sort((x, y) => Number(x.id) - Number(y.id));
      try {
        return traceFromJson({
          format: TRACE_FORMAT,
          version: TRACE_VERSION,
          meta: head!.meta,
          lanes: head!.lanes,
          calls: byId(calls),
          ops: byId(ops),
          edges,
          findings,
        });
      } catch (e) {
        if (e instanceof TraceFormatError) fail(e.message);
        throw e;
      }
    },
  };
}

export function importChrome(text: string | Uint8Array): Trace {
  const imp = createChromeImporter();
  imp.push(text);
  return imp.finish();
}

const isRow = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
