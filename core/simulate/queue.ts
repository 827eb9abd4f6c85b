// The simulator's agenda: a binary min-heap of (time, class, sequence) with three integer payloads,
// in typed arrays that grow by doubling: a million-op run schedules a few million entries, and an
// object (or a closure) per entry would cost as many allocations and much of the run in GC. The
// sequence number makes ties, and so the whole run, deterministic.

/** GPU happenings at a time are settled before any host thread acts at that time. */
export const GPU = 0;
export const HOST = 1;

export class Agenda {
  /** time * 2 + class, and the sequence number that breaks ties (a double: it may pass 2^31). */
  private key = new Float64Array(256);
  private seq = new Float64Array(256);
  private kind = new Int32Array(256);
  private a = new Int32Array(256);
  private b = new Int32Array(256);
  private next = 0;
  size = 0;

  /** Time, class and what to do; `kind`, `a`, `b` mean what the caller says. */
  push(time: number, cls: number, kind: number, a: number, b = 0): void {
    if (this.size === this.key.length) this.grow();
    const { key, seq } = this;
    let i = this.size++;
    const k = time * 2 + cls;
    const s = this.next++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (key[p] < k || (key[p] === k && seq[p] < s)) break;
      this.move(p, i);
      i = p;
    }
    this.set(i, k, s, kind, a, b);
  }

  /** The class-folded key of the first entry: time * 2 + class. */
  topKey(): number {
    return this.key[0];
  }

  /** Time of the first entry. */
  topTime(): number {
    return Math.floor(this.key[0] / 2);
  }

  /** Payloads of the first entry; read them before `pop`. */
  topKind(): number {
    return this.kind[0];
  }

  topA(): number {
    return this.a[0];
  }

  topB(): number {
    return this.b[0];
  }

  /** Removes the first entry. */
  pop(): void {
    const last = --this.size;
    if (last === 0) return;
    const { key, seq } = this;
    const k = key[last];
    const s = seq[last];
    const kind = this.kind[last];
    const a = this.a[last];
    const b = this.b[last];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= last) break;
      if (c + 1 < last && (key[c + 1] < key[c] || (key[c + 1] === key[c] && seq[c + 1] < seq[c]))) c++;
      if (k < key[c] || (k === key[c] && s < seq[c])) break;
      this.move(c, i);
      i = c;
    }
    this.set(i, k, s, kind, a, b);
  }

  private move(from: number, to: number): void {
    this.key[to] = this.key[from];
    this.seq[to] = this.seq[from];
    this.kind[to] = this.kind[from];
    this.a[to] = this.a[from];
    this.b[to] = this.b[from];
  }

  private set(i: number, k: number, s: number, kind: number, a: number, b: number): void {
    this.key[i] = k;
    this.seq[i] = s;
    this.kind[i] = kind;
    this.a[i] = a;
    this.b[i] = b;
  }

  private grow(): void {
    const n = 2 * this.key.length;
    const f = (x: Float64Array) => {
      const y = new Float64Array(n);
      y.set(x);
      return y;
    };
    const g = (x: Int32Array) => {
      const y = new Int32Array(n);
      y.set(x);
      return y;
    };
    this.key = f(this.key);
    this.seq = f(this.seq);
    this.kind = g(this.kind);
    this.a = g(this.a);
    this.b = g(this.b);
  }
}
