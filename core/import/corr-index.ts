// Row by CUDA correlation id. The ids are small dense integers, so an array beats a Map by far on
// millions of rows; sparse or huge ids fall back to a Map.

export interface CorrIndex {
  /** The first row given for `corr`, or -1. */
  get(corr: number): number;
  /** Keeps the first row given for each id. */
  add(corr: number, row: number): void;
}

export function corrIndex(maxCorr: number, rows: number): CorrIndex {
  if (maxCorr >= 0 && maxCorr <= 8 * rows + (1 << 20)) {
    const at = new Int32Array(Math.floor(maxCorr) + 1).fill(-1);
    return {
      get: (c) => (c >= 0 && c < at.length && Number.isInteger(c) ? at[c] : -1),
      add(c, row) {
        if (c >= 0 && c < at.length && Number.isInteger(c) && at[c] < 0) at[c] = row;
      },
    };
  }
  const m = new Map<number, number>();
  return {
    get: (c) => m.get(c) ?? -1,
    add(c, row) {
      if (c >= 0 && !m.has(c)) m.set(c, row);
    },
  };
}
