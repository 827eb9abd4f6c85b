// Maps device timestamps into the host clock. Each calibration sample brackets one device
// timestamp g between host times h0 (before issuing) and h1 (after seeing it complete), so the
// offset host - device lies in [h0 - g, h1 - g]. Intersecting the brackets of many samples gives a
// tighter range than any one; doing it before and after the run corrects for drift linearly.
import { median } from '../stats';
import { LATENCY_SAMPLE_WIDTH } from './encode';

export interface Sample {
  h0: number;
  h1: number;
  g: number;
}

export interface Offset {
  /** Device time at the calibration point (the samples' median). */
  at: number;
  offset: number;
  /** Half the width of the range the offset is known to lie in. */
  errorNs: number;
}

export interface ClockMap {
  toHost(g: number): number;
  /** Bound on |mapped - true| for any time in the run, in ns. */
  errorNs: number;
  /** Host-clock drift against the device clock, in ns per second of device time. */
  driftNsPerS: number;
}

/**
 * The offset from one burst of samples. Jitter or the device clock's rounding can make the
 * brackets disjoint; then the tightest single bracket decides, widened by how far they disagree.
 */
export function offsetFrom(samples: Sample[], resolutionNs = 0): Offset {
  const ok = samples.filter((s) => [s.h0, s.h1, s.g].every(Number.isFinite) && s.h1 >= s.h0);
  if (ok.length === 0) throw new Error('clock calibration failed: no usable samples');
  const lo = Math.max(...ok.map((s) => s.h0 - s.g));
  const hi = Math.min(...ok.map((s) => s.h1 - s.g));
  const at = median(ok.map((s) => s.g));
  if (lo <= hi) return { at, offset: (lo + hi) / 2, errorNs: (hi - lo) / 2 + resolutionNs / 2 };
  const tight = ok.reduce((a, b) => (b.h1 - b.h0 < a.h1 - a.h0 ? b : a));
  const mid = (tight.h0 + tight.h1) / 2 - tight.g;
  return { at, offset: mid, errorNs: Math.max((tight.h1 - tight.h0) / 2, lo - hi) + resolutionNs / 2 };
}

export function clockMap(before: Sample[], after: Sample[], resolutionNs = 0): ClockMap {
  const a = offsetFrom(before, resolutionNs);
  const b = offsetFrom(after, resolutionNs);
  const span = b.at - a.at;
  const slope = span > 0 ? (b.offset - a.offset) / span : 0;
  return {
    toHost: (g) => g + a.offset + slope * (g - a.at),
    errorNs: Math.max(a.errorNs, b.errorNs),
    driftNsPerS: slope * 1e9,
  };
}

/** The calibration block the addon returns: [n, then 3n each: events before, events after, timer before, timer after]. */
export function splitCalibration(c: Float64Array): { events: [Sample[], Sample[]]; timer: [Sample[], Sample[]] } {
  const n = c[0];
  const block = (k: number): Sample[] =>
    Array.from({ length: n }, (_, i) => {
      const j = 1 + 3 * (k * n + i);
      return { h0: c[j], h1: c[j + 1], g: c[j + 2] };
    });
  return { events: [block(0), block(1)], timer: [block(2), block(3)] };
}

/**
 * The addon's calibration is one block per device the scenario uses (S21), each laid out as
 * runtime.h says: [n, 12n samples, method, m, m latency samples of LATENCY_SAMPLE_WIDTH numbers].
 * Each GPU has its own clock.
 */
export function splitDevices(c: Float64Array): Float64Array[] {
  const out: Float64Array[] = [];
  for (let at = 0; at < c.length;) {
    const n = c[at];
    const m = c[at + 1 + 12 * n + 1];
    const size = 1 + 12 * n + 2 + LATENCY_SAMPLE_WIDTH * (Number.isFinite(m) ? m : 0);
    if (!(n > 0) || at + size > c.length) {
      out.push(c.subarray(at));
      break;
    }
    out.push(c.subarray(at, at + size));
    at += size;
  }
  return out;
}
