// The rules a trace's content follows, one function per concept, whichever codec read it: the JSON
// reader (json-read.ts) applies them field by field, the Arrow reader (arrow-check.ts) column by
// column. Each gives what is wrong with a value, in the words an error prints after the value's
// place (`...: -5 is negative; expected 0 or more`), or undefined when the value is valid; so the
// same content gives the same error text from every codec.
import type { Lane } from './model';

export const INT32 = 2 ** 31 - 1;
export const UINT32 = 2 ** 32 - 1;

const isObj = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as an error message shows it: short, and never a walk over a whole object. */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (isObj(v)) return 'an object';
  return typeof v === 'string' ? JSON.stringify(v.length > 40 ? v.slice(0, 37) + '...' : v) : String(v);
}

// Each rule is a test and, only where it fails, its words: the test alone runs per value, small
// enough for the engine to inline into a loop over millions of rows.

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isAmount = (v: unknown): v is number => isNumber(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER;
const isIntIn = (v: unknown, min: number, max: number): v is number =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** A number that is finite. */
export const finiteFault = (v: unknown): string | undefined => (isNumber(v) ? undefined : notFinite(v));
const notFinite = (v: unknown): string => `got ${describe(v)}; expected a finite number`;

/** A time or size: finite, not negative, and exact as a double (times are integer ns; 2^53 ns is 104 days). */
export const amountFault = (v: unknown): string | undefined => (isAmount(v) ? undefined : notAmount(v));
function notAmount(v: unknown): string {
  if (!isNumber(v)) return notFinite(v);
  return v < 0 ? `${v} is negative; expected 0 or more` : `${v} is too large; expected at most 2^53 - 1`;
}

export const intFault = (v: unknown, min: number, max: number): string | undefined =>
  isIntIn(v, min, max) ? undefined : `got ${describe(v)}; expected an integer from ${min} to ${max}`;

/** An id into a table of `count` rows, each a `what`. */
export const refFault = (v: unknown, count: number, what: string): string | undefined =>
  isIntIn(v, 0, count - 1) ? undefined : noRow(v, count, what);
const noRow = (v: unknown, count: number, what: string): string =>
  count
    ? `no ${what} ${describe(v)}; expected ${what === 'op' ? 'an' : 'a'} ${what} id from 0 to ${count - 1}`
    : `no ${what} ${describe(v)}; there are no ${what}s`;

/** The lanes a reference may name: a call runs on a thread and targets a stream; an op runs on a stream or copy engine. */
export interface LaneKinds {
  lanes: readonly Lane[];
  kinds: readonly string[];
  /** Per lane, whether it is of one of `kinds`: made once, looked up per row. */
  allowed: readonly boolean[];
}

export const THREAD = ['thread'];
export const STREAM = ['stream'];
export const DEVICE_QUEUE = ['stream', 'copyEngine'];

export const laneKinds = (lanes: readonly Lane[], kinds: readonly string[]): LaneKinds => ({
  lanes,
  kinds,
  allowed: lanes.map((l) => kinds.includes(l.kind)),
});

export const laneFault = (v: unknown, to: LaneKinds): string | undefined =>
  isIntIn(v, 0, to.allowed.length - 1) && to.allowed[v] ? undefined : notLaneOf(v, to);
function notLaneOf(v: unknown, { lanes, kinds }: LaneKinds): string {
  const kind = isIntIn(v, 0, lanes.length - 1) && lanes[v].kind;
  return kind ? `lane ${v} is a ${kind}; expected a ${kinds.join(' or ')} lane` : noRow(v, lanes.length, 'lane');
}

/** The end of a span that begins at `from` (named `fromName`). */
export const endFault = (fromName: string, from: number, end: number): string | undefined =>
  end < from ? `end ${end} is before ${fromName} ${from}; expected end >= ${fromName}` : undefined;

/** A call's time blocked: within the call. */
export const blockedFault = (blocked: number, begin: number, end: number): string | undefined =>
  blocked > end - begin
    ? `${blocked} is longer than the call (${end - begin}); expected at most end - begin`
    : undefined;

/** An op's measured span on the GPU: two finite numbers. */
export const truthFault = (v: unknown): string | undefined =>
  Array.isArray(v) && v.length === 2 && isNumber(v[0]) && isNumber(v[1])
    ? undefined
    : `got ${describe(v)}; expected [start, end], two finite numbers`;

export const oneOfFault = (v: unknown, names: ReadonlySet<string> | readonly string[]): string | undefined =>
  typeof v === 'string' && (Array.isArray(names) ? names.includes(v) : (names as ReadonlySet<string>).has(v))
    ? undefined
    : `got ${describe(v)}; expected one of ${[...names].filter(Boolean).join(', ')}`;

/** A position in a scenario: line and column are 1-based. */
export const positionFault = (v: unknown): string | undefined => intFault(v, 1, INT32);
