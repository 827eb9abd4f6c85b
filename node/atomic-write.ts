// Every file the CLI and the extension write goes through here: the text is written to a temp file
// in the target's directory, synced, and renamed over the target. A reader (or a crash, a kill, a
// second writer) therefore sees the old file or the complete new one, never a torn one. Two writers
// of one path each rename a complete file; the last rename wins. SIGINT and SIGTERM remove the temp
// file; only SIGKILL can leave one behind, and then under a name no reader opens.
import { randomBytes } from 'node:crypto';
import { existsSync, unlinkSync } from 'node:fs';
import { lstat, open, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A file could not be written; the message names it, says why, and what would work. */
export class WriteError extends Error {
  override name = 'WriteError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

type Chunk = string | Uint8Array;

/** Small chunks are gathered into writes of about this size: one system call per chunk is slow. */
const BATCH = 1 << 20;

/** `.name.PID.RANDOM.tmp` beside the target: same file system, so the rename is atomic. */
export const tempPathFor = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);

/**
 * Writes `chunks` to `path` atomically, one batch on its way to the disk while the next is
 * gathered: a chunk's bytes must stay as they are once it is handed over.
 */
export async function writeFileAtomic(path: string, chunks: Iterable<Chunk> | AsyncIterable<Chunk>): Promise<void> {
  const target = await writableTarget(path);
  const temp = tempPathFor(target);
  let fh: FileHandle | undefined;
  liveTemps.add(temp);
  watchSignals();
  try {
    fh = await open(temp, 'wx');
    await copyMode(target, fh);
    await writeAll(fh, chunks);
    await fh.sync();
    await fh.close();
    fh = undefined;
    await rename(temp, target);
  } catch (e) {
    await fh?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw describeWriteError(path, e);
  } finally {
    liveTemps.delete(temp);
    unwatchSignalsWhenIdle();
  }
}

async function writeAll(fh: FileHandle, chunks: Iterable<Chunk> | AsyncIterable<Chunk>): Promise<void> {
  let pending: Buffer[] = [];
  let size = 0;
  // One batch is written while the next is gathered, so that the encoder and the disk work at once.
  let inFlight: Promise<void> = Promise.resolve();
  let failed: { error: unknown } | undefined;
  const lastWritten = async () => {
    await inFlight;
    if (failed) throw failed.error;
  };
  const flush = async () => {
    await lastWritten();
    if (!size) return;
    // One gathering write: the chunks are views of the caller's data, and copying them into one
    // buffer first would touch every byte of a large trace once more.
    const batch = pending;
    pending = [];
    size = 0;
    inFlight = fh.writev(batch).then(
      () => undefined,
      (error: unknown) => void (failed = { error }),
    );
  };
  try {
    for await (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      pending.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      size += bytes.byteLength;
      if (size >= BATCH) await flush();
    }
    await flush();
    await lastWritten();
  } finally {
    // The file is closed or removed only after its last write has returned.
    await inFlight;
  }
}

/**
 * The file to replace: a symlink is written through (its target is replaced, the link kept), and a
 * directory is refused before anything is written.
 */
async function writableTarget(path: string): Promise<string> {
  const info = await lstat(path).catch(() => undefined);
  const target = info?.isSymbolicLink() ? await realpath(path).catch(() => path) : path;
  if ((await stat(target).catch(() => undefined))?.isDirectory())
    throw new WriteError(`${path}: is a directory; give a file name to write, e.g. ${join(path, 'out')}`, 'EISDIR');
  return target;
}

/** A replaced file keeps its permissions; a new one gets the usual ones (0666 less the umask). */
async function copyMode(target: string, fh: FileHandle): Promise<void> {
  const old = await stat(target).catch(() => undefined);
  if (old?.isFile()) await fh.chmod(old.mode & 0o7777).catch(() => undefined);
}

function describeWriteError(path: string, e: unknown): Error {
  if (e instanceof WriteError) return e;
  const err = e as NodeJS.ErrnoException;
  const dir = dirname(path);
  switch (err.code) {
    case 'ENOENT':
      return existsSync(dir)
        ? new WriteError(`${path}: cannot create a file in ${dir}; choose a directory you can write to`, err.code)
        : new WriteError(`${path}: the directory ${dir} does not exist; create it or write elsewhere`, err.code);
    case 'ENOTDIR':
      return new WriteError(
        `${path}: part of the path is a file, not a directory; give a path in a directory`,
        err.code,
      );
    case 'EISDIR':
      return new WriteError(`${path}: is a directory; give a file name to write`, err.code);
    case 'EACCES':
    case 'EPERM':
      return new WriteError(
        `${path}: permission denied writing in ${dir}; choose a directory you can write to`,
        err.code,
      );
    case 'EROFS':
      return new WriteError(`${path}: the file system is read-only; choose a writable directory`, err.code);
    case 'ENOSPC':
    case 'EDQUOT':
      return new WriteError(`${path}: no space left on the device; free some space or write elsewhere`, err.code);
    default:
      return err.code
        ? new WriteError(`${path}: cannot write (${err.code}); choose another path`, err.code)
        : (e as Error);
  }
}

// Temp files being written now, removed if the process is told to stop.
const liveTemps = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
let watching = false;

function onSignal(signal: NodeJS.Signals): void {
  for (const temp of liveTemps) {
    try {
      unlinkSync(temp);
    } catch {
      // Already renamed or removed.
    }
  }
  liveTemps.clear();
  unwatchSignalsWhenIdle();
  // Where nothing else handles the signal, end the process as the signal would have.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function watchSignals(): void {
  if (watching) return;
  watching = true;
  for (const s of SIGNALS) process.on(s, onSignal);
}

function unwatchSignalsWhenIdle(): void {
  if (!watching || liveTemps.size) return;
  watching = false;
  for (const s of SIGNALS) process.off(s, onSignal);
}
