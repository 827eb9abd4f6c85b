// Tells a saved Syncscope trace from a profiler trace by its first bytes, so that opening a large
// file does not parse it twice to find out what it is.

export type TraceFileKind = 'syncscope' | 'profiler' | 'unknown';

export function sniffTraceKind(head: string): TraceFileKind {
  const start = head.slice(0, 64 * 1024);
  if (/"format"\s*:\s*"syncscope-trace"/.test(start)) return 'syncscope';
  if (/"traceEvents"\s*:/.test(start) || /"schemaVersion"\s*:/.test(start) || /^\s*\[\s*\{\s*"(name|ph|pid|cat)"/.test(start)) return 'profiler';
  return 'unknown';
}

/** gzip's magic number: profilers often write `.json.gz`. */
export const isGzip = (bytes: Uint8Array): boolean => bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/** Default name for a converted file: `run.pt.trace.json` -> `run.pt.syncscope.json`. */
export function savedTraceName(sourceName: string): string {
  const base = sourceName.replace(/\.gz$/i, '').replace(/(\.trace)?\.json$/i, '').replace(/\.scenario$/i, '');
  return `${base}.syncscope.json`;
}

export function chromeTraceName(sourceName: string): string {
  const base = sourceName.replace(/\.gz$/i, '').replace(/\.(syncscope|scenario)?\.json$/i, '');
  return `${base}.chrome.json`;
}
