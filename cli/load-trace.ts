// Opens any trace file Syncscope reads: a saved trace (.syncscope.json), a PyTorch profiler trace, or
// our own Chrome export. The format is sniffed from the first bytes, and trace-event files stream
// through the importer in chunks, so files larger than the largest string V8 can hold still load.
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createGunzip, gunzipSync } from 'node:zlib';
import { basename } from 'node:path';
import { createImporter, ImportError, sniffFormat, TraceImporter } from '../core/import';
import { parseTrace } from '../core/trace/json';
import type { Trace } from '../core/trace/model';
import { UsageError } from './io';

const CHUNK = 4 << 20;

/** `onProgress(bytesRead, fileBytes)` after each chunk (compressed bytes for a .gz file). */
export async function loadAnyTrace(path: string, onProgress?: (bytes: number, total: number) => void): Promise<Trace> {
  let total: number;
  try {
    total = (await stat(path)).size;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${(e as Error).message}`);
  }
  const name = basename(path);
  let importer: TraceImporter | undefined;
  // PyTorch's TensorBoard handler writes `.pt.trace.json.gz`.
  const gz = /\.gz$/i.test(path);
  const stream = createReadStream(path, { highWaterMark: CHUNK });
  const source = gz ? stream.pipe(createGunzip({ chunkSize: CHUNK })) : stream;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (!importer) {
        const format = sniffFormat(chunk);
        if (!format) throw new ImportError(`${name}: not a trace: expected a Syncscope trace, a PyTorch profiler trace or a Chrome trace-event file`);
        if (format === 'syncscope') {
          stream.destroy();
          const file = await readFile(path);
          return parseTrace((gz ? gunzipSync(file) : file).toString('utf8'));
        }
        importer = createImporter(format, { onProgress: (bytes) => onProgress?.(gz ? stream.bytesRead : bytes, total) });
      }
      importer.push(chunk);
    }
    if (!importer) throw new ImportError(`${name}: empty file: expected a trace`);
    return importer.finish();
  } catch (e) {
    if (e instanceof ImportError && !e.message.startsWith(name + ':')) e.message = `${name}: ${e.message}`;
    throw e;
  } finally {
    stream.destroy();
    if (source !== stream) source.destroy();
  }
}
