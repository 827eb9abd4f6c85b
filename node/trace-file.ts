// Reads and writes trace files for the CLI and the extension, so both pick a format by one rule
// (`sniffFormat`) and stream every file through its importer in chunks: files larger than the
// largest string V8 can hold still load, and the caller's event loop runs between chunks. Writing
// streams chunks too, so large traces never become one string.
// Node-only, which is why it lives here and not in core/.
import { isAscii } from 'node:buffer';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { basename } from 'node:path';
import { createImporter, ImportError, sniffFormat, SNIFF_BYTES, TraceImporter } from '../core/import';
import { traceJsonChunks } from '../core/trace/json';
import type { Trace } from '../core/trace/model';

const CHUNK = 4 << 20;

/** gzip's magic number: profilers often write `.json.gz`, and the name is not always kept. */
export const isGzip = (bytes: Uint8Array): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/**
 * UTF-8 decoding for the importers: ASCII text (nearly every trace) is also Latin-1, which Node
 * copies into a string an order of magnitude faster than it decodes UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return b.toString(isAscii(b) ? 'latin1' : 'utf8');
}

async function readStart(path: string, length: number): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * The first `SNIFF_BYTES` of a trace's text, for `sniffFormat`, without reading the rest: a gzipped
 * file is decompressed only until that much text has come out.
 */
export async function readTraceHead(path: string): Promise<Uint8Array> {
  const head = await readStart(path, SNIFF_BYTES);
  return isGzip(head) ? gunzipHead(createReadStream(path, { highWaterMark: SNIFF_BYTES })) : head;
}

/** The same for bytes already in memory. */
export const traceHeadOfBytes = (bytes: Uint8Array): Promise<Uint8Array> =>
  isGzip(bytes)
    ? gunzipHead(Readable.from(slices(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))))
    : Promise.resolve(bytes.subarray(0, SNIFF_BYTES));

async function gunzipHead(input: Readable): Promise<Uint8Array> {
  const gunzip = input.pipe(createGunzip());
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= SNIFF_BYTES) break;
    }
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  return Buffer.concat(parts).subarray(0, SNIFF_BYTES);
}

/**
 * Imports a trace from `input` (a file's bytes, gzipped when `gzip`), awaiting each chunk.
 * `onProgress(bytes)` counts the bytes taken from `input` (compressed bytes for gzip). An aborted
 * `signal` stops the read at the next chunk with its reason.
 */
export async function importTraceStream(
  input: Readable,
  name: string,
  gzip: boolean,
  onProgress?: (bytes: number) => void,
  signal?: AbortSignal,
): Promise<Trace> {
  let taken = 0;
  if (gzip)
    input.on('data', (chunk: Buffer) => {
      taken += chunk.length;
    });
  const source = gzip ? input.pipe(createGunzip({ chunkSize: CHUNK })) : input;
  let importer: TraceImporter | undefined;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      if (!importer) {
        const format = sniffFormat(chunk);
        if (!format)
          throw new ImportError(
            `${name}: not a trace: expected a Syncscope trace, a PyTorch profiler trace or a Chrome trace-event file`,
          );
        importer = createImporter(format, {
          decodeUtf8,
          file: name,
          onProgress: (b) => onProgress?.(gzip ? taken : b),
        });
      }
      importer.push(chunk);
      // Gunzip can hand over several chunks at once; let timers and messages run between them.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    signal?.throwIfAborted();
    if (!importer) throw new ImportError(`${name}: empty file: expected a trace`);
    return importer.finish();
  } catch (e) {
    if (e instanceof ImportError && !e.message.startsWith(name + ':')) e.message = `${name}: ${e.message}`;
    throw e;
  } finally {
    input.destroy();
    if (source !== input) source.destroy();
  }
}

/** `onProgress(bytesRead, fileBytes)` after each chunk (compressed bytes for a gzipped file). */
export async function loadTraceFile(
  path: string,
  onProgress?: (bytes: number, total: number) => void,
  signal?: AbortSignal,
): Promise<Trace> {
  const total = (await stat(path)).size;
  const gzip = isGzip(await readStart(path, 2));
  return importTraceStream(
    createReadStream(path, { highWaterMark: CHUNK }),
    basename(path),
    gzip,
    (bytes) => onProgress?.(bytes, total),
    signal,
  );
}

/** The same for bytes already in memory (a file the extension can only read through VS Code). */
export const importTraceBytes = (
  bytes: Uint8Array,
  name: string,
  onProgress?: (bytes: number, total: number) => void,
  signal?: AbortSignal,
): Promise<Trace> =>
  importTraceStream(
    Readable.from(slices(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))),
    name,
    isGzip(bytes),
    (n) => onProgress?.(n, bytes.length),
    signal,
  );

function* slices(bytes: Buffer): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, i + CHUNK);
}

/** Writes text given in chunks to `path`, waiting for the disk when its buffer fills. */
export async function writeChunks(path: string, chunks: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  const done = new Promise<void>((ok, fail) => {
    out.on('error', fail);
    out.on('finish', ok);
  });
  for (const c of chunks) if (!out.write(c)) await new Promise<void>((r) => out.once('drain', () => r()));
  out.end();
  await done;
}

/** Saves a trace as a *.syncscope.json file. */
export const saveTraceFile = (trace: Trace, path: string): Promise<void> => writeChunks(path, traceJsonChunks(trace));
