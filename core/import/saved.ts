// Our own `.syncscope.json` read in chunks: its calls, ops and edges stream through the event
// scanner, so a saved trace larger than V8's largest string (512 MB) loads. Each batch of rows goes
// straight into the Trace's columns (TraceRowReader), so no row object outlives its batch. The
// chunks are kept to the end, for the checks that read bytes: nesting, root keys given twice, and,
// when any check fails, a second reading that keeps every row and reports the first fault exactly
// as parseTrace does (traceFromJson), at its line and column.
import { checkTraceShape, TraceFormatError, traceFromJson, TraceRowReader } from '../trace/json';
import type { Trace } from '../trace/model';
import { createEventScanner, type Utf8Decoder } from './scan';
import type { ImportOptions, TraceImporter } from './pytorch';

const ROWS = ['calls', 'ops', 'edges'];
const encoder = new TextEncoder();

export function createSavedTraceReader(opts: ImportOptions = {}): TraceImporter {
  const rows = new TraceRowReader();
  let chunks: Uint8Array[] = [];
  const scanner = createEventScanner((list, key) => rows.add(list, key), opts.onProgress, opts.decodeUtf8, ROWS);
  return {
    push(chunk) {
      chunks.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      scanner.push(chunk);
    },
    finish() {
      const root = scanner.finish();
      checkTraceShape(chunks, opts.file);
      try {
        return rows.finish(root) ?? readWhole(chunks, opts.decodeUtf8);
      } catch (e) {
        if (e instanceof TraceFormatError) e.locate(opts.file, chunks);
        throw e;
      } finally {
        chunks = [];
      }
    },
  };
}

/** Reads the document again keeping every row, for traceFromJson's exact first error. */
function readWhole(chunks: readonly Uint8Array[], decode?: Utf8Decoder): Trace {
  const rows = new Map<string, unknown[]>(ROWS.map((k) => [k, []]));
  const scanner = createEventScanner(
    (list, key) => {
      const into = rows.get(key)!;
      for (const row of list) into.push(row);
    },
    undefined,
    decode,
    ROWS,
  );
  for (const chunk of chunks) scanner.push(chunk);
  const root = scanner.finish();
  // The arrays were cut out of the root, which holds them as []; one that is not there stays missing.
  for (const [key, list] of rows) if (Array.isArray(root[key])) root[key] = list;
  return traceFromJson(root);
}
