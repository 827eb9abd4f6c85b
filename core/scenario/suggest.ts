// "Did you mean" for names, keys and enum values: the closest candidate by edit distance, when it
// is close enough to be a likely typo rather than a different word. Bounded in cost whatever the
// input: names past SUGGEST_MAX_NAME get no suggestion, candidates whose length differs by more than
// the allowed distance are skipped, at most SUGGEST_MAX_CANDIDATES are compared, and each comparison
// keeps three rows and stops once a row cannot get back under the limit.

/** A longer name is not a typo of a scenario's names, and comparing it would cost its length. */
export const SUGGEST_MAX_NAME = 64;
/** Past this many comparisons a suggestion costs more than it helps. */
export const SUGGEST_MAX_CANDIDATES = 1000;
/** A typo is at most this many edits from what was meant. */
const MAX_EDITS = 3;

/**
 * Edit distance counting a swap of two neighbours as one edit ("raed" -> "read"). With `limit`,
 * any distance above it comes back as limit + 1, computed without finishing the table.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      row[j] = d;
      if (d < least) least = d;
    }
    if (least > limit) return limit + 1;
    [before, prev, row] = [prev, row, before];
  }
  return Math.min(prev[b.length], limit + 1);
}

/** The candidate closest to `name`, or undefined when none is a plausible typo of it. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  if (name.length > SUGGEST_MAX_NAME) return undefined;
  const lower = name.toLowerCase();
  const limit = Math.min(MAX_EDITS, Math.max(1, Math.floor(name.length / 3)));
  // A cut-short name ("nonBlock") is a typo however many letters are missing.
  const prefixOf = name.length >= 3 ? candidates.find((c) => c.toLowerCase().startsWith(lower)) : undefined;
  if (prefixOf) return prefixOf;
  let best: string | undefined;
  let bestDistance = Infinity;
  let compared = 0;
  for (const c of candidates) {
    if (Math.abs(c.length - name.length) > limit) continue;
    if (++compared > SUGGEST_MAX_CANDIDATES) break;
    const d = editDistance(lower, c.toLowerCase(), limit);
    if (d < bestDistance && d <= limit && d < name.length) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** `unknown stream "sid"; did you mean "side"? Declared streams: ...`, the hint only when one is close. */
export function unknown(what: string, name: string, list: string, hint: string | undefined, where = ''): string {
  const head = `unknown ${what} ${quote(name)}${where}`;
  return hint === undefined ? `${head}. ${list}` : `${head}; did you mean "${hint}"? ${list}`;
}

/** A name in double quotes; a very long one cut short, so that a message stays readable. */
export function quote(name: string): string {
  if (name.length <= SUGGEST_MAX_NAME) return `"${name}"`;
  return `"${name.slice(0, SUGGEST_MAX_NAME)}..." (${name.length} characters)`;
}

/** At most this many names in a list of what is declared or allowed. */
const MAX_LISTED = 50;

/** `a, b, c`; past MAX_LISTED names, the first ones and how many more there are. */
export function listOf(names: readonly string[]): string {
  if (names.length <= MAX_LISTED) return names.join(', ');
  return `${names.slice(0, MAX_LISTED).join(', ')} and ${names.length - MAX_LISTED} more`;
}

/** CUDA and PyTorch spellings of our step kinds, keyed by their lower-case form without `cuda` and `_`. */
const STEP_KIND_ALIASES: Record<string, string> = {
  kernel: 'launch',
  launchkernel: 'launch',
  eventrecord: 'record',
  streamwaitevent: 'wait',
  waitevent: 'wait',
  eventquery: 'query',
  eventsynchronize: 'eventSync',
  streamsynchronize: 'streamSync',
  synchronize: 'deviceSync',
  devicesynchronize: 'deviceSync',
  elapsedtime: 'elapsed',
  eventelapsedtime: 'elapsed',
  memcpy: 'copy',
  memcpyasync: 'copy',
  memsetasync: 'memset',
  sleep: 'hostWork',
  launchhostfunc: 'hostFunc',
  loop: 'repeat',
  times: 'repeat',
};

/** The step kind that an unknown step key most likely meant. */
export function closestStepKind(name: string, kinds: readonly string[]): string | undefined {
  if (name.length > SUGGEST_MAX_NAME) return undefined;
  const key = name.toLowerCase().replace(/_/g, '').replace(/^cuda/, '');
  return STEP_KIND_ALIASES[key] ?? kinds.find((k) => k.toLowerCase() === key) ?? closest(name, kinds);
}
