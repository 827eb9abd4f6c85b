// Our own `.syncscope.json` read in chunks: its calls, ops and edges stream through the event
// scanner, so a saved trace larger than V8's largest string (512 MB) loads. Each batch of rows goes
// straight into the Trace's columns (TraceRowReader), so no row object outlives its batch. Nesting
// and root keys given twice are checked on the text around the rows, which the scanner keeps.
// When any check fails, a second reading keeps every row and reports the first fault exactly as
// parseTrace does (traceFromJson), at its line and column. It needs the document again: the reader
// keeps the chunks for it, or, told not to (`keepDocument: false`, for a file the caller can read
// again), throws ReadAgain and holds no more than the columns and the scanner's window.
import { checkTraceShape, ROW_TABLES, TraceFormatError, traceFromJson, TraceRowReader } from '../trace/json';
import type { Trace } from '../trace/model';
import { createEventScanner, type Utf8Decoder } from './scan';
import type { ImportOptions, TraceImporter } from './pytorch';

const encoder = new TextEncoder();

/**
 * A saved trace read without keeping its document failed a check: read it again with a reader
 * that keeps it, which names the first fault at its line and column.
 */
export class ReadAgain extends Error {
  override name = 'ReadAgain';
}

export function createSavedTraceReader(opts: ImportOptions = {}): TraceImporter {
  const rows = new TraceRowReader();
  const keep = opts.keepDocument !== false;
  let chunks: Uint8Array[] = [];
  const scanner = createEventScanner((list, key) => rows.add(list, key), opts.onProgress, opts.decodeUtf8, ROW_TABLES);
  return {
    push(chunk) {
      if (keep) chunks.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      scanner.push(chunk);
    },
    finish() {
      const root = scanner.finish();
      const document = chunks;
      chunks = [];
      try {
        checkTraceShape(document, opts.file, scanner.rootText);
        const trace = rows.finish(root);
        if (trace) return trace;
        if (keep) return readWhole(document, opts.file, opts.decodeUtf8);
      } catch (e) {
        // Without the document a fault has no place yet: the second reading finds it.
        if (keep || !(e instanceof TraceFormatError)) throw e;
      }
      throw new ReadAgain();
    },
  };
}

/** Reads the document again keeping every row, for traceFromJson's exact first error. */
function readWhole(chunks: readonly Uint8Array[], file?: string, decode?: Utf8Decoder): Trace {
  const rows = new Map<string, unknown[]>(ROW_TABLES.map((k) => [k, []]));
  const scanner = createEventScanner(
    (list, key) => {
      const into = rows.get(key)!;
      for (const row of list) into.push(row);
    },
    undefined,
    decode,
    ROW_TABLES,
  );
  for (const chunk of chunks) scanner.push(chunk);
  const root = scanner.finish();
  // The arrays were cut out of the root, which holds them as []; one that is not there stays missing.
  for (const [key, list] of rows) if (Array.isArray(root[key])) root[key] = list;
  try {
    return traceFromJson(root);
  } catch (e) {
    if (e instanceof TraceFormatError) e.locate(file, chunks);
    throw e;
  }
}
