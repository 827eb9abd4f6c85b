// Canvas primitives of the timeline: item colours, hatching, markers, labels and arrows.
import { CK, OK, isWait } from '../core/trace/kinds';
import type { Trace } from '../core/trace/model';
import type { Palette } from './theme';

export function callColor(p: Palette, t: Trace, i: number): string {
  const k = t.calls.kind[i];
  if (k === CK.context) return p.context;
  if (isWait(t, i)) return p.wait;
  if (k === CK.launch) return p.launch;
  return p.call;
}

export function opColor(p: Palette, t: Trace, i: number): string {
  switch (t.ops.kind[i]) {
    case OK.memcpy:
      return p.memcpy;
    case OK.memset:
      return p.memset;
    case OK.eventRecord:
      return p.record;
    case OK.waitEvent:
      return p.waitEvent;
    case OK.hostFunc:
      return p.hostFunc;
    default:
      return p.kernel;
  }
}

/** Black or white, whichever reads better on `fill` (any CSS colour the canvas understands). */
export function textOn(ctx: CanvasRenderingContext2D, fill: string, cache: Map<string, string>): string {
  let c = cache.get(fill);
  if (c) return c;
  ctx.fillStyle = '#000';
  ctx.fillStyle = fill;
  const norm = String(ctx.fillStyle);
  const m = norm.startsWith('#')
    ? [1, 3, 5].map((k) => parseInt(norm.slice(k, k + 2), 16))
    : (norm.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map(Number);
  const [r, g, b] = m.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  c = lum > 0.22 ? '#111111' : '#ffffff';
  cache.set(fill, c);
  return c;
}

/** Diagonal hatching in `color`, drawn at device resolution. */
export function hatch(ctx: CanvasRenderingContext2D, color: string, dpr: number): CanvasPattern | string {
  const size = Math.round(7 * dpr);
  const c = document.createElement('canvas');
  c.width = c.height = size;
  const g = c.getContext('2d');
  if (!g) return color;
  g.strokeStyle = color;
  g.lineWidth = 1.6 * dpr;
  g.beginPath();
  for (const o of [-size, 0, size]) {
    g.moveTo(o, size);
    g.lineTo(o + size, 0);
  }
  g.stroke();
  const p = ctx.createPattern(c, 'repeat');
  if (!p) return color;
  p.setTransform(new DOMMatrix().scale(1 / dpr));
  return p;
}

export function triangleDown(ctx: CanvasRenderingContext2D, x: number, y: number, size: number): void {
  ctx.beginPath();
  ctx.moveTo(x - size, y);
  ctx.lineTo(x + size, y);
  ctx.lineTo(x, y + size * 1.4);
  ctx.closePath();
}

export function diamond(ctx: CanvasRenderingContext2D, x: number, y: number, size: number): void {
  ctx.beginPath();
  ctx.moveTo(x, y - size);
  ctx.lineTo(x + size, y);
  ctx.lineTo(x, y + size);
  ctx.lineTo(x - size, y);
  ctx.closePath();
}

/**
 * Adds an arrow from (x0, y0) to (x1, y1) to two paths, the line and its head, so that a frame
 * strokes all arrows of one colour at once. Between rows it leaves horizontally and drops into its
 * target vertically, so that long arrows run along the source's row instead of striking through
 * the names on the target's.
 */
export function arrowPath(line: Path2D, head: Path2D, x0: number, y0: number, x1: number, y1: number): void {
  const a = arrowShape(x0, y0, x1, y1);
  line.moveTo(x0, y0);
  if (a.c) line.bezierCurveTo(a.c[0], a.c[1], a.c[2], a.c[3], a.bx, a.by);
  else line.lineTo(a.bx, a.by);
  head.moveTo(x1, y1);
  head.lineTo(x1 - ARROW_HEAD * Math.cos(a.angle - 0.45), y1 - ARROW_HEAD * Math.sin(a.angle - 0.45));
  head.lineTo(x1 - ARROW_HEAD * Math.cos(a.angle + 0.45), y1 - ARROW_HEAD * Math.sin(a.angle + 0.45));
  head.closePath();
}

const ARROW_HEAD = 7;

/** An arrow's line: straight within a row, else a curve with control points `c`; it ends at (bx, by), where the head begins. */
function arrowShape(x0: number, y0: number, x1: number, y1: number) {
  if (Math.abs(y1 - y0) < 4) {
    const angle = x1 >= x0 ? 0 : Math.PI;
    return { angle, bx: x1 - Math.cos(angle) * ARROW_HEAD * 0.7, by: y1, c: undefined };
  }
  const angle = y1 > y0 ? Math.PI / 2 : -Math.PI / 2;
  const c = [x0 + (x1 - x0) * 0.6, y0, x1, y0 + (y1 - y0) * 0.4] as const;
  return { angle, bx: x1, by: y1 - Math.sin(angle) * ARROW_HEAD * 0.7, c };
}

/** How far (px) the point (px, py) is from the arrow arrowPath draws from (x0, y0) to (x1, y1), head included. */
export function arrowDistance(px: number, py: number, x0: number, y0: number, x1: number, y1: number): number {
  const a = arrowShape(x0, y0, x1, y1);
  const points: [number, number][] = [];
  const STEPS = 24;
  for (let k = 0; k <= STEPS; k++) {
    const u = k / STEPS;
    const v = 1 - u;
    points.push(
      a.c
        ? [
            v * v * v * x0 + 3 * v * v * u * a.c[0] + 3 * v * u * u * a.c[2] + u * u * u * a.bx,
            v * v * v * y0 + 3 * v * v * u * a.c[1] + 3 * v * u * u * a.c[3] + u * u * u * a.by,
          ]
        : [x0 + (a.bx - x0) * u, y0 + (a.by - y0) * u],
    );
  }
  points.push([x1, y1]);
  let best = Infinity;
  for (let k = 1; k < points.length; k++) best = Math.min(best, segmentDistance(px, py, points[k - 1], points[k]));
  return best;
}

function segmentDistance(px: number, py: number, [ax, ay]: [number, number], [bx, by]: [number, number]): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const u = len2 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
  return Math.hypot(px - (ax + u * dx), py - (ay + u * dy));
}

/** Text widths by string: labels repeat (kernel names), and measuring is the costly part of a label. */
export class TextWidths {
  private cache = new Map<string, number>();
  constructor(private readonly ctx: CanvasRenderingContext2D) {}

  of(text: string): number {
    let w = this.cache.get(text);
    if (w === undefined) {
      w = this.ctx.measureText(text).width;
      if (this.cache.size > 5000) this.cache.clear();
      this.cache.set(text, w);
    }
    return w;
  }

  /** Text cut to fit `width` px; empty when even a few letters would not fit. */
  fit(text: string, width: number): string {
    if (width < 18 || !text) return '';
    const full = this.of(text);
    if (full <= width) return text;
    // Proportional first guess, then shorten until it fits: one or two measurements.
    let n = Math.floor((text.length * (width - this.of('…'))) / full);
    while (n >= 2 && this.of(text.slice(0, n) + '…') > width) n--;
    return n >= 2 ? text.slice(0, n) + '…' : '';
  }

  clear(): void {
    this.cache.clear();
  }
}

/**
 * Where a plate `w` px wide goes beside a marker at `x` on a row: right of the marker, unless that
 * covers a label already on the row (`texts`, [from, to] px) or leaves the canvas; then left of it,
 * inside the wait the marker ends, where no label is; failing both, on whichever side fits the
 * canvas. Undefined when it would cover the row's previous plate, which ends at `after`.
 */
export function plateX(
  x: number,
  w: number,
  width: number,
  texts: readonly (readonly [number, number])[],
  after: number,
): number | undefined {
  const free = (lx: number) =>
    lx > after + 4 && lx >= 0 && lx + w <= width && !texts.some(([a, b]) => lx < b && lx + w > a);
  const right = x + 4;
  const left = x - 4 - w;
  if (free(right)) return right;
  if (free(left)) return left;
  const lx = right + w <= width ? right : left;
  return lx > after + 4 ? lx : undefined;
}

/** A label on a small rounded plate, legible over anything drawn below it. */
export function plate(
  ctx: CanvasRenderingContext2D,
  text: string,
  x: number,
  yMid: number,
  p: Palette,
  accent: string,
): number {
  const w = ctx.measureText(text).width + 8;
  const h = 14;
  ctx.fillStyle = p.background;
  ctx.strokeStyle = accent;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.roundRect(x + 0.5, yMid - h / 2 + 0.5, w, h, 3);
  ctx.fill();
  ctx.stroke();
  ctx.fillStyle = p.foreground;
  ctx.textBaseline = 'middle';
  ctx.fillText(text, x + 4.5, yMid + 0.5);
  return w;
}
