// Human-readable durations, shared by the report, the CLI and the timeline so that the same wait
// reads the same everywhere.

const UNITS: [number, string][] = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
];

/** 3600 -> "3.6 µs", 1234567 -> "1.23 ms": three significant digits, the largest fitting unit. */
export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return '—';
  const abs = Math.abs(ns);
  for (const [scale, unit] of UNITS) {
    if (abs >= scale || scale === 1) {
      const v = ns / scale;
      const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
      return `${Number(v.toFixed(digits))} ${unit}`;
    }
  }
  return `${ns} ns`;
}

export const formatPct = (p: number): string => `${p.toFixed(1)}%`;

/** 2 ** 31 -> "2 GiB", 2.534 * 2 ** 30 -> "2.53 GiB", 914.3 * 2 ** 20 -> "914 MiB": three significant digits at most. */
export function formatBytes(bytes: number): string {
  const [v, unit] = bytes >= 2 ** 30 ? [bytes / 2 ** 30, 'GiB'] : [bytes / 2 ** 20, 'MiB'];
  return `${Number(v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2))} ${unit}`;
}
