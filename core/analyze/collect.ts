// Findings of one kind at one place are one finding: a bug inside a `repeat` of a thousand
// iterations is reported once, with its count, its first ids, and the time it cost in total.
import type { Finding } from '../trace/model';

const MAX_IDS = 50;

export class FindingList {
  private readonly byKey = new Map<string, { f: Finding; count: number }>();

  add(key: string, f: Finding): void {
    this.addLazily(key, f.calls, f.ops, f.savedNs, () => f);
  }

  /** The same, where `make` builds the finding only for the first of its place: its words cost more than the count. */
  addLazily(key: string, calls: number[], ops: number[], savedNs: number | undefined, make: () => Finding): void {
    const seen = this.byKey.get(key);
    if (!seen) {
      this.byKey.set(key, { f: make(), count: 1 });
      return;
    }
    seen.count++;
    for (const c of calls) if (seen.f.calls.length < MAX_IDS && !seen.f.calls.includes(c)) seen.f.calls.push(c);
    for (const o of ops) if (seen.f.ops.length < MAX_IDS && !seen.f.ops.includes(o)) seen.f.ops.push(o);
    if (savedNs !== undefined) seen.f.savedNs = (seen.f.savedNs ?? 0) + savedNs;
  }

  list(): Finding[] {
    return [...this.byKey.values()].map(({ f, count }) =>
      count > 1 ? { ...f, message: `${f.message} (${count} times)` } : f,
    );
  }
}

/** A key for "the same place": the call's scenario position, or its lane and name. */
export const placeKey = (line: number, column: number, fallback: string | number): string =>
  line > 0 ? `${line}:${column}` : `#${fallback}`;
