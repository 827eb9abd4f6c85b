// Opens any trace file Syncscope reads: a saved trace (.syncscope.json), a PyTorch profiler trace, or
// our own Chrome export. The reading itself is core's, shared with the extension; this adds the
// CLI's wording for a file that is not there.
import { stat } from 'node:fs/promises';
import { loadTraceFile } from '../node/trace-file';
import type { Trace } from '../core/trace/model';
import type { UserCode } from '../core/import/python-sites';
import { UsageError } from './io';

export { decodeUtf8 } from '../node/trace-file';

/** `onProgress(bytesRead, fileBytes)` after each chunk (compressed bytes for a .gz file). */
export async function loadAnyTrace(
  path: string,
  onProgress?: (bytes: number, total: number) => void,
  userCode?: UserCode,
): Promise<Trace> {
  try {
    await stat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${(e as Error).message}`);
  }
  return loadTraceFile(path, onProgress, undefined, userCode);
}
