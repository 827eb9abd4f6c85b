// Which importer reads a file, decided from its first bytes, so that big files are never read
// whole just to find out what they are.
import { createChromeImporter } from './chrome';
import { createPytorchImporter, ImportOptions, TraceImporter } from './pytorch';
import { createSavedTraceReader } from './saved';
import { isArrowStream } from '../trace/columnar';

export { ImportError } from './scan';
export { createPytorchImporter, importPytorch } from './pytorch';
export type { ImportOptions, TraceImporter } from './pytorch';
export { createChromeImporter, importChrome } from './chrome';
export { createSavedTraceReader, ReadAgain } from './saved';

export type TraceFileFormat = 'syncscope' | 'chrome' | 'pytorch';

/** How many leading bytes `sniffFormat` wants to see. */
export const SNIFF_BYTES = 64 * 1024;

/**
 * Our writers put their format marker first; any other Chrome trace-event file (an object with
 * `traceEvents`, or a bare array) is read as a PyTorch profiler trace.
 */
export function sniffFormat(head: string | Uint8Array): TraceFileFormat | undefined {
  // A columnar trace (`.syncscope`, Arrow IPC): read whole by node/trace-file.ts, never by an importer.
  if (typeof head !== 'string' && isArrowStream(head)) return 'syncscope';
  const text =
    typeof head === 'string' ? head.slice(0, SNIFF_BYTES) : new TextDecoder().decode(head.subarray(0, SNIFF_BYTES));
  if (/"format"\s*:\s*"syncscope-trace"/.test(text)) return 'syncscope';
  if (/"format"\s*:\s*"syncscope-chrome"/.test(text)) return 'chrome';
  if (/"traceEvents"\s*:/.test(text) || /^\uFEFF?\s*\[/.test(text)) return 'pytorch';
  return undefined;
}

export function createImporter(format: TraceFileFormat, opts?: ImportOptions): TraceImporter {
  if (format === 'syncscope') return createSavedTraceReader(opts);
  return format === 'chrome' ? createChromeImporter(opts) : createPytorchImporter(opts);
}
