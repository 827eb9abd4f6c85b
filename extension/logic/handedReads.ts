// The reads of trace files in flight, one per file, so that the editor that replaces a blank one
// (blankWatch.ts) takes the read of the one it replaces over, rather than starting it anew: a page
// slow to load on a busy machine would otherwise restart the read of a large file each time.

interface Read<T> {
  result: Promise<T>;
  stop: () => void;
  /** The editor that started it is being replaced; the next editor of the file takes it. */
  handed: boolean;
}

export class HandedReads<T> {
  private readonly reads = new Map<string, Read<T>>();

  /** The read of `key`: the one handed over to this editor, or a new one from `start`. */
  open(key: string, start: () => { result: Promise<T>; stop: () => void }): Promise<T> {
    const handed = this.reads.get(key);
    if (handed?.handed) {
      handed.handed = false;
      return handed.result;
    }
    // Kept until its editor closes, finished or not: a page can stay blank after the trace came.
    const read = { ...start(), handed: false };
    this.reads.set(key, read);
    return read.result;
  }

  /** The editor of `key` is being replaced: its read goes on for the next one. */
  handOver(key: string): void {
    const read = this.reads.get(key);
    if (read) read.handed = true;
  }

  /**
   * The editor of `key` that waits for `result` closed: the read stops, unless it was handed over
   * (`force`: even then). Another editor of the same file, with a read of its own, keeps its read.
   */
  close(key: string, result: Promise<T>, force = false): void {
    const read = this.reads.get(key);
    if (!read || read.result !== result || (read.handed && !force)) return;
    this.reads.delete(key);
    read.stop();
  }
}
