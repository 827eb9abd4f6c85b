// The simulator's agenda: a binary min-heap of (time, class, sequence) with two integer payloads.
// Parallel arrays instead of an object per entry, because a million-op run schedules a few
// million entries. The sequence number makes ties, and so the whole run, deterministic.

/** GPU happenings at a time are settled before any host thread acts at that time. */
export const GPU = 0;
export const HOST = 1;

export class Agenda {
  private key: number[] = [];
  private seq: number[] = [];
  private kind: number[] = [];
  private a: number[] = [];
  private b: number[] = [];
  private next = 0;
  size = 0;

  /** Time, class and what to do; `kind`, `a`, `b` mean what the caller says. */
  push(time: number, cls: number, kind: number, a: number, b = 0): void {
    let i = this.size++;
    const k = time * 2 + cls;
    const s = this.next++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.key[p] < k || (this.key[p] === k && this.seq[p] < s)) break;
      this.move(p, i);
      i = p;
    }
    this.set(i, k, s, kind, a, b);
  }

  /** The class-folded key of the first entry: time * 2 + class. */
  topKey(): number {
    return this.key[0];
  }

  /** Removes the first entry into `out`: [time, kind, a, b]. */
  pop(out: number[]): void {
    out[0] = Math.floor(this.key[0] / 2);
    out[1] = this.kind[0];
    out[2] = this.a[0];
    out[3] = this.b[0];
    const last = --this.size;
    if (last === 0) return;
    const k = this.key[last];
    const s = this.seq[last];
    const kind = this.kind[last];
    const a = this.a[last];
    const b = this.b[last];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= last) break;
      if (c + 1 < last && (this.key[c + 1] < this.key[c] || (this.key[c + 1] === this.key[c] && this.seq[c + 1] < this.seq[c]))) c++;
      if (k < this.key[c] || (k === this.key[c] && s < this.seq[c])) break;
      this.move(c, i);
      i = c;
    }
    this.set(i, k, s, kind, a, b);
  }

  private move(from: number, to: number): void {
    this.set(to, this.key[from], this.seq[from], this.kind[from], this.a[from], this.b[from]);
  }

  private set(i: number, k: number, s: number, kind: number, a: number, b: number): void {
    this.key[i] = k;
    this.seq[i] = s;
    this.kind[i] = kind;
    this.a[i] = a;
    this.b[i] = b;
  }
}
