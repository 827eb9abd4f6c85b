// Findings of one kind at one place are one finding: a bug inside a `repeat` of a thousand
// iterations is reported once, with its count, its first ids, and the time it cost in total.
import type { Finding, Trace } from '../trace/model';
import { opName } from './describe';

/** A finding lists at most this many of its calls and ops (findingCalls has every call). */
export const MAX_IDS = 50;

/** Every call a finding stands for, where its `calls` lists only the first MAX_IDS of them. */
const members = new WeakMap<Finding, readonly number[]>();

/**
 * Every call `f` stands for, in the order they were met: a fix applies to all of them (a what-if
 * over a loop of a thousand steps pins every copy, not the first fifty). `f.calls` keeps the first
 * few, so that a report and a trace file stay bounded; a finding read back from a file has those.
 */
export const findingCalls = (f: Finding): readonly number[] => members.get(f) ?? f.calls;

/** `f`, which stands for every call of `all` (findingCalls). */
export function withMembers(f: Finding, all: readonly number[]): Finding {
  if (all.length > f.calls.length) members.set(f, all);
  return f;
}

export class FindingList {
  /** Per place: its finding, how many times it was met, and every call it stands for (repeats dropped in list()). */
  private readonly byKey = new Map<string, { f: Finding; count: number; all: number[] }>();

  add(key: string, f: Finding): void {
    this.addLazily(key, f.calls, f.ops, f.savedNs, () => f);
  }

  /** The same, where `make` builds the finding only for the first of its place: its words cost more than the count. */
  addLazily(key: string, calls: number[], ops: number[], savedNs: number | undefined, make: () => Finding): void {
    const seen = this.byKey.get(key);
    if (!seen) {
      this.byKey.set(key, { f: make(), count: 1, all: calls.slice() });
      return;
    }
    seen.count++;
    // Indexed loops: a place met thousands of times runs this as often, mostly before the engine
    // has optimized it, where each for-of takes an iterator.
    const f = seen.f;
    for (let k = 0; k < calls.length; k++) {
      const c = calls[k];
      seen.all.push(c);
      if (f.calls.length < MAX_IDS && !f.calls.includes(c)) f.calls.push(c);
    }
    for (let k = 0; k < ops.length; k++) if (f.ops.length < MAX_IDS && !f.ops.includes(ops[k])) f.ops.push(ops[k]);
    if (savedNs !== undefined) f.savedNs = (f.savedNs ?? 0) + savedNs;
  }

  list(): Finding[] {
    return [...this.byKey.values()].map(({ f, count, all }) =>
      withMembers(
        count > 1 ? { ...f, message: `${f.message} (${count} times)` } : f,
        all.length > MAX_IDS ? distinct(all) : all,
      ),
    );
  }
}

/** `ids` without repeats, each where first met: `ids` itself when they rise throughout, as calls met in time order do. */
function distinct(ids: number[]): number[] {
  for (let k = 1; k < ids.length; k++) if (!(ids[k - 1] < ids[k])) return [...new Set(ids)];
  return ids;
}

/** A key for "the same place": the call's scenario position, or its lane and name. */
export const placeKey = (line: number, column: number, fallback: string | number): string =>
  line > 0 ? `${line}:${column}` : `#${fallback}`;

/** A key for the place an op was issued: its call's scenario position, or its lane and name. */
export const opPlaceKey = (t: Trace, op: number): string => {
  const call = t.ops.call[op];
  return placeKey(t.calls.line[call] ?? 0, t.calls.column[call] ?? 0, `${t.ops.lane[op]} ${opName(t, op)}`);
};

/** Where in the program a call was made, where the trace says: its source site, else its scenario line. */
export function sourcePlace(t: Trace, call: number): string | undefined {
  if (t.calls.site[call] > 0) return `site ${t.calls.site[call]}`;
  if (t.calls.line[call] > 0) return `line ${t.calls.line[call]}:${t.calls.column[call]}`;
  return undefined;
}
