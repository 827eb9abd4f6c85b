// Every file the CLI and the extension write goes through here: the text is written to a temp file
// in the target's directory, synced, and renamed over the target. A reader (or a crash, a kill, a
// second writer) therefore sees the old file or the complete new one, never a torn one. Two writers
// of one path each rename a complete file; the last rename wins. SIGINT and SIGTERM remove the temp
// file; only SIGKILL can leave one behind, and the next write to the same target removes it
// (temp-files.ts). A write is staged (its bytes on disk under the temp name) and then committed
// (renamed), so that the outputs of one command are all staged before any is renamed, and then
// renamed one after another with nothing in between (`writeTogether`).
import { randomBytes } from 'node:crypto';
import { existsSync, renameSync } from 'node:fs';
import { lstat, open, realpath, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { holdTemp, isHeld, releaseTemp, removeStaleTemps, tempPathFor } from './temp-files';

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

export type Chunk = string | Uint8Array;

/** Small chunks are gathered into writes of about this size: one system call per chunk is slow. */
const BATCH = 1 << 20;

/** Output written under a temporary name, waiting to be renamed into place. */
export interface Staged {
  /**
   * Puts the output in place. Synchronous: no signal handler runs between two commits, nor
   * between the renames of one.
   */
  commit(): void;
  /** Removes the temporary when the commit did not happen, or what the commit moved aside. */
  cleanup(): Promise<void>;
}

/**
 * An id for one write, the same in every output of it (`-o x.syncscope --parquet`): when it was
 * made, by which process, and random digits, so that no two writes share one.
 */
export const newWriteId = (): string =>
  `${new Date().toISOString().replace(/[-:]|\.\d+/g, '')}-${process.pid}-${randomBytes(4).toString('hex')}`;

/**
 * Stages every output in turn, then commits them one after another: a failure or a signal before
 * the last is staged leaves every target as it was.
 */
export async function writeTogether(stagers: Iterable<() => Promise<Staged>>): Promise<void> {
  const staged: Staged[] = [];
  try {
    for (const stage of stagers) staged.push(await stage());
    for (const s of staged) s.commit();
  } finally {
    for (const s of staged) await s.cleanup();
  }
}

/**
 * Writes `chunks` to `path` atomically, one batch on its way to the disk while the next is
 * gathered: a chunk's bytes must stay as they are once it is handed over.
 */
export const writeFileAtomic = (path: string, chunks: Iterable<Chunk> | AsyncIterable<Chunk>): Promise<void> =>
  writeTogether([() => stageFile(path, chunks)]);

/** Writes `chunks` to a temp file beside `path`, to be renamed over it by the commit. */
export async function stageFile(path: string, chunks: Iterable<Chunk> | AsyncIterable<Chunk>): Promise<Staged> {
  const target = await writableTarget(path);
  await removeStaleTemps(target);
  const temp = tempPathFor(target);
  holdTemp(temp);
  let placed = false;
  const staged: Staged = {
    commit() {
      checkNotCancelled(path, temp);
      try {
        renameSync(temp, target);
      } catch (e) {
        throw describeWriteError(path, e);
      }
      placed = true;
    },
    async cleanup() {
      if (!placed) await rm(temp, { force: true }).catch(() => undefined);
      releaseTemp(temp);
    },
  };
  try {
    await writeChunksTo(temp, chunks, target);
  } catch (e) {
    await staged.cleanup();
    throw describeWriteError(path, e);
  }
  return staged;
}

/** A signal removed the temporary (and the process is still running, as something else handles it). */
export function checkNotCancelled(path: string, temp: string): void {
  if (!isHeld(temp))
    throw new WriteError(`${path}: the write was interrupted by a signal; the old content is kept`, 'EINTR');
}

/**
 * A new file `path` holding `chunks`, synced. `modeOf`: a file whose permissions it takes (the
 * target it will replace); otherwise it gets the usual ones (0666 less the umask).
 */
export async function writeChunksTo(
  path: string,
  chunks: Iterable<Chunk> | AsyncIterable<Chunk>,
  modeOf?: string,
): Promise<void> {
  const fh = await open(path, 'wx');
  try {
    if (modeOf) await copyMode(modeOf, fh);
    await writeAll(fh, chunks);
    await fh.sync();
  } finally {
    await fh.close();
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
  const target = await throughLink(path);
  if ((await stat(target).catch(() => undefined))?.isDirectory())
    throw new WriteError(`${path}: is a directory; give a file name to write, e.g. ${join(path, 'out')}`, 'EISDIR');
  return target;
}

/** What a write to `path` replaces: the path itself, or where it links to. */
export async function throughLink(path: string): Promise<string> {
  const info = await lstat(path).catch(() => undefined);
  return info?.isSymbolicLink() ? await realpath(path).catch(() => path) : path;
}

/** A replaced file keeps its permissions; a new one gets the usual ones (0666 less the umask). */
async function copyMode(target: string, fh: FileHandle): Promise<void> {
  const old = await stat(target).catch(() => undefined);
  if (old?.isFile()) await fh.chmod(old.mode & 0o7777).catch(() => undefined);
}

export function describeWriteError(path: string, e: unknown): Error {
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
