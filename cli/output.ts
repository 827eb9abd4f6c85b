import { resolve } from 'node:path';
import type { Trace } from '../core/trace/model';
import { writeFileAtomic } from '../node/atomic-write';
import { saveTraceFile } from '../node/trace-file';
import { timelineHtmlChunks } from './html-page';
import type { CliIo } from './io';

/** Streams a trace to disk in chunks (large traces never become one string), atomically. */
export async function writeTraceFile(trace: Trace, path: string, io: CliIo): Promise<string> {
  const full = resolve(io.cwd, path);
  await saveTraceFile(trace, full);
  return full;
}

export async function writeHtmlFile(trace: Trace, title: string, path: string, io: CliIo): Promise<string> {
  const full = resolve(io.cwd, path);
  await writeFileAtomic(full, timelineHtmlChunks(trace, title));
  return full;
}
