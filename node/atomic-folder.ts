// Writes a folder of files as a whole: every file goes into a temporary folder beside the target
// (temp-files.ts), which one rename then puts in place. An old folder at the target is renamed
// aside first and removed once the new one is in place. Both renames are made back to back,
// synchronously, so a SIGINT, an error or a second writer leaves the old folder or the whole new
// one under the name, never a mix of the two. A reader opening it in the instant between the
// renames finds no folder; a SIGKILL (or a crash) in that instant leaves the name empty, with the
// old folder whole beside it until the next write to the same target.
import { closeSync, existsSync, fsyncSync, openSync, renameSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  checkNotCancelled,
  describeWriteError,
  throughLink,
  writeChunksTo,
  WriteError,
  type Chunk,
  type Staged,
} from './atomic-write';
import { holdTemp, releaseTemp, removeStaleTemps, tempPathFor } from './temp-files';

export interface FolderFile {
  file: string;
  chunks: Iterable<Chunk> | AsyncIterable<Chunk>;
}

export interface FolderKind {
  /** A name the writer puts in the folder: a folder holding anything else is never replaced or removed. */
  isOwnEntry(name: string): boolean;
  /** What the folder holds, in words, for the error that refuses to replace a folder of other files. */
  contents: string;
}

/** Writes `files` into a temporary folder beside `path`, which the commit puts in its place. */
export async function stageFolder(path: string, files: Iterable<FolderFile>, kind: FolderKind): Promise<Staged> {
  const target = await throughLink(path);
  await checkReplaceable(path, target, kind);
  await mkdir(dirname(target), { recursive: true }).catch((e: unknown) => {
    throw describeWriteError(path, e);
  });
  await removeStaleTemps(target, kind.isOwnEntry);
  const temp = tempPathFor(target);
  holdTemp(temp);
  const asides: string[] = [];
  let placed = false;
  const staged: Staged = {
    commit() {
      checkNotCancelled(path, temp);
      try {
        swapFolderSync(temp, target, () => tempPathFor(target, 'old'), asides);
      } catch (e) {
        throw describeWriteError(path, e);
      } finally {
        // Asides are held at once: a signal from now on removes them, never the folder in place.
        for (const aside of asides) holdTemp(aside);
      }
      placed = true;
    },
    async cleanup() {
      for (const p of placed ? asides : [temp, ...asides]) {
        await rm(p, { recursive: true, force: true }).catch(() => undefined);
        releaseTemp(p);
      }
      releaseTemp(temp);
    },
  };
  try {
    await mkdir(temp);
    for (const { file, chunks } of files) await writeChunksTo(join(temp, file), chunks);
    syncFolder(temp);
  } catch (e) {
    await staged.cleanup();
    throw describeWriteError(path, e);
  }
  return staged;
}

/** The codes of a rename onto a folder that another writer has just put in place. */
const RACED = new Set(['ENOTEMPTY', 'EEXIST', ...(process.platform === 'win32' ? ['EPERM'] : [])]);
const ATTEMPTS = 8;

/**
 * Puts the folder `staged` at `target`: whatever is at `target` is renamed to a fresh `asidePath()`
 * (pushed on `asides`, for the caller to remove), then `staged` to `target`. When another writer
 * puts its folder at `target` between the two, that one is moved aside too and the rename tried
 * again, so the last writer's folder is the one left, whole. On failure the name holds a whole
 * folder again: the newest one moved aside goes back when nothing else took its place.
 */
export function swapFolderSync(staged: string, target: string, asidePath: () => string, asides: string[]): void {
  let error: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const aside = asidePath();
    try {
      renameSync(target, aside);
      asides.push(aside);
    } catch (e) {
      if (code(e) !== 'ENOENT') throw e;
    }
    try {
      renameSync(staged, target);
      return;
    } catch (e) {
      error = e;
      if (!RACED.has(code(e))) break;
    }
  }
  restoreNewestAside(target, asides);
  if (RACED.has(code(error)))
    throw new WriteError(`${target}: other writers kept replacing it; write again when they are done`, 'EBUSY');
  throw error;
}

function restoreNewestAside(target: string, asides: string[]): void {
  if (!asides.length || existsSync(target)) return;
  try {
    renameSync(asides[asides.length - 1], target);
    asides.pop();
  } catch {
    // Another writer's folder took the name in the meantime: it is whole, and ours may go.
  }
}

const code = (e: unknown): string => String((e as NodeJS.ErrnoException | undefined)?.code ?? '');

/** A folder at `target` is replaced only when it holds nothing but what this kind of writer puts there. */
async function checkReplaceable(path: string, target: string, kind: FolderKind): Promise<void> {
  const info = await stat(target).catch(() => undefined);
  if (!info) return;
  if (!info.isDirectory())
    throw new WriteError(
      `${path}: is a file; this output is a folder of ${kind.contents}, so remove the file or write to another name`,
      'ENOTDIR',
    );
  const names = await readdir(target).catch((e: unknown) => {
    throw describeWriteError(path, e);
  });
  const foreign = names.filter((n) => !kind.isOwnEntry(n)).sort();
  if (foreign.length)
    throw new WriteError(
      `${path}: holds ${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ` and ${foreign.length - 3} more` : ''} ` +
        `besides ${kind.contents}; the folder is replaced as a whole, so move those out or write to another name`,
      'ENOTEMPTY',
    );
}

/** The folder's entries reach the disk before the rename that publishes them (where folders can be synced). */
function syncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Windows cannot open a folder to sync it.
  }
}
