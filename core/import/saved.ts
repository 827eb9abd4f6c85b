// Our own `.syncscope.json` read in chunks: its calls, ops and edges stream through the event
// scanner, so a saved trace larger than V8's largest string (512 MB) loads. traceFromJson then
// checks and builds it exactly as parseTrace does. The chunks are kept until then (the rows
// already parsed outweigh them), for the checks that read bytes: nesting, root keys given twice,
// and the line and column of a value that fails.
import { checkTraceShape, TraceFormatError, traceFromJson } from '../trace/json';
import { createEventScanner } from './scan';
import type { ImportOptions, TraceImporter } from './pytorch';

const ROWS = ['calls', 'ops', 'edges'];
const encoder = new TextEncoder();

export function createSavedTraceReader(opts: ImportOptions = {}): TraceImporter {
  const rows = new Map<string, unknown[]>(ROWS.map((k) => [k, []]));
  let chunks: Uint8Array[] = [];
  const scanner = createEventScanner(
    (list, key) => {
      const into = rows.get(key)!;
      for (const row of list) into.push(row);
    },
    opts.onProgress,
    opts.decodeUtf8,
    ROWS,
  );
  return {
    push(chunk) {
      chunks.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      scanner.push(chunk);
    },
    finish() {
      const root = scanner.finish();
      checkTraceShape(chunks, opts.file);
      // The arrays were cut out of the root, which holds them as []; one that is not there stays missing.
      for (const [key, list] of rows) if (Array.isArray(root[key])) root[key] = list;
      try {
        return traceFromJson(root);
      } catch (e) {
        if (e instanceof TraceFormatError) e.locate(opts.file, chunks);
        throw e;
      } finally {
        chunks = [];
      }
    },
  };
}
