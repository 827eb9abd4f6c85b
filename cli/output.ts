import { resolve } from 'node:path';
import type { Trace } from '../core/trace/model';
import { saveTraceFile, writeChunks } from '../node/trace-file';
import { writeTimelineHtml } from './html-page';
import type { CliIo } from './io';

/** Streams a trace to disk in chunks: large traces never become one string. */
export async function writeTraceFile(trace: Trace, path: string, io: CliIo): Promise<string> {
  const full = resolve(io.cwd, path);
  await saveTraceFile(trace, full);
  return full;
}

export async function writeHtmlFile(trace: Trace, title: string, path: string, io: CliIo): Promise<string> {
  const full = resolve(io.cwd, path);
  await writeChunks(full, [writeTimelineHtml(trace, title)]);
  return full;
}
