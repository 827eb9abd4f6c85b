import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { traceJsonChunks } from '../core/trace/json';
import type { Trace } from '../core/trace/model';
import { writeTimelineHtml } from './html-page';
import type { CliIo } from './io';

/** Streams a trace to disk in chunks: large traces never become one string. */
export async function writeTraceFile(trace: Trace, path: string, io: CliIo): Promise<string> {
  const full = resolve(io.cwd, path);
  await writeChunks(full, traceJsonChunks(trace));
  return full;
}

export async function writeChunks(full: string, chunks: Iterable<string>): Promise<void> {
  const out = createWriteStream(full);
  const done = new Promise<void>((ok, fail) => {
    out.on('error', fail);
    out.on('finish', ok);
  });
  for (const c of chunks) if (!out.write(c)) await new Promise<void>((r) => out.once('drain', () => r()));
  out.end();
  await done;
}

export async function writeHtmlFile(trace: Trace, title: string, path: string, io: CliIo): Promise<string> {
  const full = resolve(io.cwd, path);
  await writeChunks(full, [writeTimelineHtml(trace, title)]);
  return full;
}
