// The temporaries of an atomic write (atomic-write.ts, atomic-folder.ts): their names, the ones this
// process is using now (removed if it is told to stop), and the removal of stale ones that a killed
// writer left behind.
//
// A temporary sits beside its target, on the same file system so that one rename puts it in place,
// under a name no reader opens: `.NAME.PID.ID.tmp` for what is being written (a file, or a folder
// of files) and `.NAME.PID.ID.old.tmp` for an old folder moved aside. NAME is the target's name, PID
// the writer's process id, ID 12 random hex digits.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export type TempRole = 'new' | 'old';

export const tempPathFor = (target: string, role: TempRole = 'new'): string =>
  join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}${role === 'old' ? '.old' : ''}.tmp`,
  );

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The process id in the name of one of `target`'s temporaries, or undefined for any other name. */
export function tempOwner(target: string): (name: string) => number | undefined {
  const ours = new RegExp(`^\\.${escapeRegExp(basename(target))}\\.(\\d{1,10})\\.[0-9a-f]{12}(\\.old)?\\.tmp$`);
  return (name) => {
    const m = ours.exec(name);
    return m ? Number(m[1]) : undefined;
  };
}

/**
 * A temporary untouched this long is stale whoever holds its process id: the id may have been
 * given to an unrelated process since (after a reboot, say), and a live write touches its
 * temporary far more often than this.
 */
export const STALE_AFTER_MS = 24 * 3600 * 1000;

/** A process with this id runs now (on this host). */
export function processRuns(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporaries a killed write to `target` left: those of our naming whose writer no
 * longer runs, or that nobody has touched for STALE_AFTER_MS. A temporary folder goes only when
 * every entry in it passes `isOwnEntry` (what the writer puts there), so nothing else is ever
 * deleted; this process's own temporaries in use are kept.
 */
export async function removeStaleTemps(
  target: string,
  isOwnEntry: (name: string) => boolean = () => false,
  now = Date.now(),
): Promise<string[]> {
  const dir = dirname(target);
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  const ownerOf = tempOwner(target);
  for (const name of names) {
    const pid = ownerOf(name);
    const path = join(dir, name);
    if (pid === undefined || liveTemps.has(path)) continue;
    const info = await lstat(path).catch(() => undefined);
    if (!info || info.isSymbolicLink()) continue;
    const stale = pid === process.pid || !processRuns(pid) || now - info.mtimeMs > STALE_AFTER_MS;
    if (!stale) continue;
    if (info.isDirectory()) {
      const entries = await readdir(path).catch(() => undefined);
      if (!entries?.every(isOwnEntry)) continue;
      await rm(path, { recursive: true, force: true });
    } else if (info.isFile()) await rm(path, { force: true });
    else continue;
    removed.push(path);
  }
  return removed;
}

// Temporaries in use by this process, removed if it is told to stop. SIGKILL cannot be caught;
// what it leaves is stale, and the next write to the same target removes it.
const liveTemps = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
let watching = false;

/** `path` is this process's temporary now: a signal removes it, and no stale sweep touches it. */
export function holdTemp(path: string): void {
  liveTemps.add(path);
  if (watching) return;
  watching = true;
  for (const s of SIGNALS) process.on(s, onSignal);
}

/** Still held: not yet released, and not removed by a signal. */
export const isHeld = (path: string): boolean => liveTemps.has(path);

export function releaseTemp(path: string): void {
  liveTemps.delete(path);
  if (!watching || liveTemps.size) return;
  watching = false;
  for (const s of SIGNALS) process.off(s, onSignal);
}

function onSignal(signal: NodeJS.Signals): void {
  for (const temp of [...liveTemps]) {
    try {
      rmSync(temp, { recursive: true, force: true });
    } catch {
      // Already renamed or removed.
    }
    releaseTemp(temp);
  }
  // Where nothing else handles the signal, end the process as the signal would have.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}
