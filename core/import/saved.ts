// Our own `.syncscope.json` read in chunks: its calls, ops and edges stream through the event
// scanner, so a saved trace larger than V8's largest string (512 MB) loads, and no whole-file
// string is ever held. traceFromJson then checks and builds it exactly as parseTrace does.
import { traceFromJson } from '../trace/json';
import { createEventScanner } from './scan';
import type { ImportOptions, TraceImporter } from './pytorch';

const ROWS = ['calls', 'ops', 'edges'];

export function createSavedTraceReader(opts: ImportOptions = {}): TraceImporter {
  const rows = new Map<string, unknown[]>(ROWS.map((k) => [k, []]));
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
    push: (chunk) => scanner.push(chunk),
    finish() {
      const root = scanner.finish();
      // The arrays were cut out of the root, which holds them as []; one that is not there stays missing.
      for (const [key, list] of rows) if (Array.isArray(root[key])) root[key] = list;
      return traceFromJson(root);
    },
  };
}
