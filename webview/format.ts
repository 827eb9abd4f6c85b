// Time labels for the axis: one unit for all ticks, chosen from the tick step, with just enough
// decimals to tell neighbouring ticks apart.
export { formatNs } from '../core/units';

const UNITS: [number, string][] = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
];

/**
 * The unit for times up to `maxNs` in magnitude, and the decimals that tell apart times `stepNs`
 * apart: "284.55 ms" rather than "284550 µs".
 */
export function axisUnit(stepNs: number, maxNs = stepNs): { scale: number; unit: string; decimals: number } {
  const [scale, unit] = UNITS.find(([s]) => Math.max(Math.abs(maxNs), stepNs) >= s) ?? UNITS[UNITS.length - 1];
  const decimals = Math.min(9, Math.max(0, Math.ceil(-Math.log10(stepNs / scale) - 1e-9)));
  return { scale, unit, decimals };
}

/** Formats tick values (ns from the trace start) that are `stepNs` apart, none beyond `maxNs`. */
export function tickFormatter(stepNs: number, maxNs = stepNs): (ns: number) => string {
  const { scale, unit, decimals } = axisUnit(stepNs, maxNs);
  return (ns) => `${(ns / scale).toFixed(decimals)} ${unit}`;
}

/** A point in time, precise to `resolutionNs`. */
export const formatAt = (ns: number, resolutionNs: number): string => tickFormatter(Math.max(1, resolutionNs), ns)(ns);

/** "1.5 MiB" */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${Number(v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2))} ${units[u]}`;
}
