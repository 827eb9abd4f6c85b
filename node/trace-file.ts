// Reads and writes trace files for the CLI and the extension, so both pick a format by one rule
// (`sniffFormat`) and stream every file through its importer in chunks: files larger than the
// largest string V8 can hold still load, and the caller's event loop runs between chunks. Writing
// streams chunks too, so large traces never become one string.
// Node-only, which is why it lives here and not in core/.
import type { UserCode } from '../core/import/python-sites';
import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { basename } from 'node:path';
import { createImporter, ImportError, ReadAgain, sniffFormat, SNIFF_BYTES, TraceImporter } from '../core/import';
import { traceJsonChunks } from '../core/trace/json';
import { traceArrowChunks } from '../core/trace/arrow-write';
import { traceFromArrow } from '../core/trace/arrow-read';
import { isArrowStream } from '../core/trace/columnar';
import { stageTraceParquet } from './trace-parquet';
import type { Trace } from '../core/trace/model';
import { newWriteId, stageFile, writeTogether, type Staged } from './atomic-write';
import { formatBytes } from '../core/units';
import { buildPytorchTrace } from '../core/import/pytorch';
import { readKinetoNatively } from './native-kineto';

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
  } catch (e) {
    // What came out before a broken or cut stream still tells the format; the import names the fault.
    if (!isZlibError(e)) throw e;
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  return Buffer.concat(parts).subarray(0, SNIFF_BYTES);
}

/**
 * How much text a gzipped trace may expand to. Traces compress about ten to thirty times; far more
 * than that is a file built to exhaust memory or time, so the text is bounded by a multiple of the
 * compressed size (at least MIN_DECOMPRESSED, for small files) and by an absolute cap.
 */
export const GZIP_RATIO = 256;
export const MIN_DECOMPRESSED = 64 << 20;
export const MAX_DECOMPRESSED = 16 * 2 ** 30;

export const decompressedLimit = (compressedBytes: number): number =>
  Math.min(MAX_DECOMPRESSED, Math.max(MIN_DECOMPRESSED, GZIP_RATIO * compressedBytes));

const isZlibError = (e: unknown): e is Error =>
  e instanceof Error && /^Z_/.test(String((e as { code?: unknown }).code));

/** Counts the text that comes out of gunzip, and stops it past `limit`. */
function checkDecompressed(name: string, size: number, limit: number): void {
  if (size > limit)
    throw new ImportError(
      `${name}: decompressed size over ${formatBytes(limit)}; a gzipped trace may expand to ${GZIP_RATIO} times ` +
        `its size (at least ${formatBytes(MIN_DECOMPRESSED)}, at most ${formatBytes(MAX_DECOMPRESSED)})`,
    );
}

/**
 * Imports a trace from `input` (a file's bytes, gzipped when `gzip`), awaiting each chunk.
 * `onProgress(bytes)` counts the bytes taken from `input` (compressed bytes for gzip). An aborted
 * `signal` stops the read at the next chunk with its reason. `compressedBytes` (the size of a gzipped
 * input, when known) bounds the text it may expand to (`decompressedLimit`). `keepDocument`: see
 * ImportOptions.
 */
export async function importTraceStream(
  input: Readable,
  name: string,
  gzip: boolean,
  onProgress?: (bytes: number) => void,
  signal?: AbortSignal,
  compressedBytes = Infinity,
  keepDocument = true,
  userCode?: UserCode,
): Promise<Trace> {
  let taken = 0;
  let text = 0;
  const limit = decompressedLimit(compressedBytes);
  if (gzip)
    input.on('data', (chunk: Buffer) => {
      taken += chunk.length;
    });
  const source = gzip ? input.pipe(createGunzip({ chunkSize: CHUNK })) : input;
  let importer: TraceImporter | undefined;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      if (gzip) checkDecompressed(name, (text += chunk.length), limit);
      if (!importer) {
        const format = sniffFormat(chunk);
        if (!format)
          throw new ImportError(
            `${name}: not a trace; expected a Syncscope trace, a PyTorch profiler trace or a Chrome trace-event file`,
          );
        importer = createImporter(format, {
          decodeUtf8,
          file: name,
          keepDocument,
          userCode,
          onProgress: (b) => onProgress?.(gzip ? taken : b),
        });
      }
      importer.push(chunk);
      // Gunzip can hand over several chunks at once; let timers and messages run between them.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    signal?.throwIfAborted();
    if (!importer) throw new ImportError(`${name}: the file is empty; expected a trace`);
    return importer.finish();
  } catch (e) {
    if (e instanceof ImportError) throw e.inFile(name);
    if (isZlibError(e))
      throw new ImportError(`${name}: not a valid gzip stream (${e.message}); a .gz trace is one complete gzip file`);
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
  userCode?: UserCode,
): Promise<Trace> {
  const total = (await stat(path)).size;
  const start = await readStart(path, 4);
  if (isArrowStream(start)) {
    // Columns are read in place from the file's bytes: one read, no text, no chunks to join.
    const bytes = await readFile(path, { signal });
    onProgress?.(total, total);
    return traceFromArrow(bytes, basename(path));
  }
  const gzip = isGzip(start);
  const native = await readNatively(path, await readTraceHead(path), gzip, total, onProgress, signal, userCode);
  if (native) return native;
  return readingAgainOnFault((keepDocument) =>
    importTraceStream(
      createReadStream(path, { highWaterMark: CHUNK }),
      basename(path),
      gzip,
      (bytes) => onProgress?.(bytes, total),
      signal,
      total,
      keepDocument,
      userCode,
    ),
  );
}

/**
 * A PyTorch trace read by the native reader (node/native-kineto.ts), or undefined where the
 * JavaScript reader reads it: another format, no native reader, or a file the native one declines.
 */
async function readNatively(
  source: string | Uint8Array,
  head: Uint8Array,
  gzip: boolean,
  total: number,
  onProgress: ((bytes: number, total: number) => void) | undefined,
  signal: AbortSignal | undefined,
  userCode: UserCode | undefined,
): Promise<Trace | undefined> {
  if (sniffFormat(head) !== 'pytorch') return undefined;
  const staged = await readKinetoNatively(source, {
    gzip,
    limit: decompressedLimit(total),
    onProgress: onProgress && ((bytes) => onProgress(bytes, total)),
    signal,
  });
  return staged && buildPytorchTrace(staged, userCode);
}

/**
 * A saved trace's text is not kept for its errors: a trace that fails a check is read again,
 * keeping it, only to place the fault at its line and column.
 */
async function readingAgainOnFault(read: (keepDocument: boolean) => Promise<Trace>): Promise<Trace> {
  try {
    return await read(false);
  } catch (e) {
    if (e instanceof ReadAgain) return read(true);
    throw e;
  }
}

/** The same for bytes already in memory (a file the extension can only read through VS Code). */
export const importTraceBytes = async (
  bytes: Uint8Array,
  name: string,
  onProgress?: (bytes: number, total: number) => void,
  signal?: AbortSignal,
  userCode?: UserCode,
): Promise<Trace> => {
  if (isArrowStream(bytes)) return traceFromArrow(bytes, name);
  const gzip = isGzip(bytes);
  const native = await readNatively(
    bytes,
    await traceHeadOfBytes(bytes),
    gzip,
    bytes.length,
    onProgress,
    signal,
    userCode,
  );
  return (
    native ??
    readingAgainOnFault((keepDocument) =>
      importTraceStream(
        Readable.from(slices(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))),
        name,
        gzip,
        (n) => onProgress?.(n, bytes.length),
        signal,
        bytes.length,
        keepDocument,
        userCode,
      ),
    )
  );
};

function* slices(bytes: Buffer): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, i + CHUNK);
}

/** Which form a trace is saved in, from the name it is saved under. */
export const traceFormatFor = (path: string): 'arrow' | 'parquet' | 'json' =>
  /\.syncscope$/i.test(path) ? 'arrow' : /\.parquet$/i.test(path) ? 'parquet' : 'json';

/**
 * Saves a trace atomically under each of `paths` (see atomic-write.ts): `*.syncscope` as Arrow IPC,
 * `*.parquet` as a folder of Parquet files (trace-parquet.ts), any other name as `.syncscope.json`.
 * All are written before any is renamed into place, and share one write id (in the Arrow file's
 * metadata and in every Parquet row; the JSON form has no place for it).
 */
export function saveTraceFile(trace: Trace, ...paths: string[]): Promise<void> {
  const writeId = newWriteId();
  return writeTogether(paths.map((path) => () => stageTraceFile(trace, path, writeId)));
}

function stageTraceFile(trace: Trace, path: string, writeId: string): Promise<Staged> {
  const format = traceFormatFor(path);
  if (format === 'parquet') return stageTraceParquet(trace, path, writeId);
  return stageFile(path, format === 'arrow' ? traceArrowChunks(trace, writeId) : traceJsonChunks(trace));
}
