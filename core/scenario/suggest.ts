// "Did you mean" for names, keys and enum values: the closest candidate by edit distance, when it
// is close enough to be a likely typo rather than a different word.

/** Edit distance counting a swap of two neighbours as one edit ("raed" -> "read"). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The candidate closest to `name`, or undefined when none is a plausible typo of it. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  // A cut-short name ("nonBlock") is a typo however many letters are missing.
  const prefixOf = name.length >= 3 ? candidates.find((c) => c.toLowerCase().startsWith(lower)) : undefined;
  if (prefixOf) return prefixOf;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestDistance && d <= limit && d < name.length) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** `unknown stream "sid"; did you mean "side"? Declared streams: ...`, the hint only when one is close. */
export function unknown(what: string, name: string, list: string, hint: string | undefined, where = ''): string {
  const head = `unknown ${what} "${name}"${where}`;
  return hint === undefined ? `${head}. ${list}` : `${head}; did you mean "${hint}"? ${list}`;
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
  const key = name.toLowerCase().replace(/_/g, '').replace(/^cuda/, '');
  return STEP_KIND_ALIASES[key] ?? kinds.find((k) => k.toLowerCase() === key) ?? closest(name, kinds);
}
