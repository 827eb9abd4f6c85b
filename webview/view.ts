// The timeline canvas: zoom and pan (d3-zoom), the time axis (d3-axis), drawing through the
// level-of-detail index, arrows, the selection's happens-before cone, the ruler and hit-testing.
import { axisTop } from 'd3-axis';
import { scaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import { zoom, zoomIdentity, ZoomBehavior, ZoomTransform } from 'd3-zoom';
import { CONE_AFTER, CONE_BEFORE, CONE_SELF, Cone } from './cone';
import type { Item } from './item';
export type { Item } from './item';
import { CK, OK, isWait } from '../core/trace/kinds';
import { EDGE_KINDS, Trace, str } from '../core/trace/model';
import { shortKernelName } from '../core/trace/kernel-names';
import { buildEdgeIndex, edgeFromIsCall, edgeToIsCall, EdgeIndex, edgesOf } from './edges';
import { formatNs, tickFormatter } from './format';
import { hitTest, visitVisible, View } from './lod';
import {
  arrowDistance,
  arrowPath,
  callColor,
  diamond,
  hatch,
  opColor,
  plate,
  plateX,
  TextWidths,
  textOn,
  triangleDown,
} from './paint';
import { GROUP_H, Rows, Track } from './rows';
import { Palette, readPalette } from './theme';

/** A query's answer: a disc of this radius (px) in the middle of its call. */
const ANSWER_R = 6.5;
const answerX = (x0: number, x1: number): number => Math.max(x0, Math.min((x0 + x1) / 2, x1));

/** What a call row already shows, so that an unblock plate is put where it covers none of it. */
interface RowLabels {
  /** Where the last plate ends, px. */
  end: number;
  /** The calls' own labels and query answers, [from, to] px. */
  texts: [number, number][];
}

export type ArrowKind = 'launch' | 'event' | 'release';

/** Above this many items drawn one by one, arrows are left out unless they touch the selection. */
const ARROW_ITEM_CAP = 2000;
const EK = {
  launch: EDGE_KINDS.indexOf('launch'),
  event: EDGE_KINDS.indexOf('event'),
  release: EDGE_KINDS.indexOf('release'),
};

/** How close (px) the pointer must come to a release arrow to hover it rather than what lies under it. */
const ARROW_HOVER_PX = 3;

export interface ViewEvents {
  select(item: Item | null): void;
  hover(item: Item | null, clientX: number, clientY: number): void;
  /** The pointer is on release arrow `edge` (an index into the trace's edges). */
  hoverRelease(edge: number, clientX: number, clientY: number): void;
  viewChanged(): void;
}

export class TimelineView {
  palette: Palette = readPalette();
  selection: Item | null = null;
  cone: Cone | null = null;
  arrows: Record<ArrowKind, boolean> = { launch: true, event: true, release: true };
  ruler: { a: number; b: number } | null = null;
  rulerMode = false;
  /** Time of the last frame's drawing, for the benchmark. */
  lastFrameMs = 0;
  /** Arrows between two GPUs' rows drawn in the last frame (S21). */
  lastCrossDeviceArrows = 0;
  /** The release arrows of the last frame, in canvas pixels, for hovering. */
  releaseArrows: { edge: number; x0: number; y0: number; x1: number; y1: number }[] = [];

  private readonly ctx: CanvasRenderingContext2D;
  private readonly zoomer: ZoomBehavior<HTMLCanvasElement, unknown>;
  private base = scaleLinear();
  private transform: ZoomTransform = zoomIdentity;
  private width = 1;
  private height = 1;
  private dpr = 1;
  private frame = 0;
  private edgeIndex: EdgeIndex | null = null;
  private edgeTimer = 0;
  private hatchFill: CanvasPattern | string = '';
  private waitHatch: CanvasPattern | string = '';
  private textCache = new Map<string, string>();
  private widths: TextWidths;
  private pointerX = -1;
  private rulerDrag = false;
  private readonly listening = new AbortController();

  constructor(
    readonly trace: Trace,
    public rows: Rows,
    private readonly canvas: HTMLCanvasElement,
    private readonly axis: SVGSVGElement,
    private readonly scroller: HTMLElement,
    private readonly events: ViewEvents,
  ) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('this browser gives no 2D canvas');
    this.ctx = ctx;
    this.widths = new TextWidths(ctx);
    const ext = rows.extent;
    const pad = Math.max((ext.end - ext.start) * 0.02, 100);
    this.base.domain([ext.start - pad, ext.end + pad]);
    this.zoomer = zoom<HTMLCanvasElement, unknown>()
      .filter((e: Event) => {
        const m = e as MouseEvent;
        if (e.type === 'wheel') return !m.shiftKey;
        if (e.type === 'dblclick') return !m.shiftKey && !this.rulerMode;
        return !m.ctrlKey && !m.button && !m.shiftKey && !this.rulerMode;
      })
      .on('zoom', (e: { transform: ZoomTransform }) => {
        this.transform = e.transform;
        this.request();
      })
      .on('end', () => this.events.viewChanged());
    select(canvas).call(this.zoomer).on('dblclick.zoom', null);
    this.listen();
    this.resize();
  }

  // ---- Viewport ------------------------------------------------------------------------------

  get x() {
    return this.transform.rescaleX(this.base);
  }

  visibleRange(): [number, number] {
    const [a, b] = this.x.domain();
    return [a, b];
  }

  setViewport(t0: number, t1: number): void {
    const span = this.base.domain()[1] - this.base.domain()[0];
    const k = span / Math.max(t1 - t0, 1e-3);
    const t = zoomIdentity.scale(k).translate(-this.base(t0), 0);
    // zoom.transform does not constrain (gestures do): keep scripted views inside the trace too.
    const extent: [[number, number], [number, number]] = [
      [0, 0],
      [this.width, this.height],
    ];
    const limit: [[number, number], [number, number]] = [
      [0, -1e9],
      [this.width, 1e9],
    ];
    const [k0, k1] = this.zoomer.scaleExtent();
    const clamped = zoomIdentity.scale(Math.min(k1, Math.max(k0, t.k))).translate(t.x / t.k, 0);
    select(this.canvas).call(this.zoomer.transform, this.zoomer.constrain()(clamped, extent, limit));
  }

  fit(): void {
    select(this.canvas).call(this.zoomer.transform, zoomIdentity);
  }

  zoomBy(factor: number, atPx?: number): void {
    const px = atPx !== undefined && atPx >= 0 ? atPx : this.width / 2;
    select(this.canvas).call(this.zoomer.scaleBy, factor, [px, 0]);
  }

  panBy(fraction: number): void {
    select(this.canvas).call(this.zoomer.translateBy, (-fraction * this.width) / this.transform.k, 0);
  }

  itemSpan(item: Item): [number, number] {
    const t = this.trace;
    return item.table === 'calls'
      ? [t.calls.begin[item.id], t.calls.end[item.id]]
      : [t.ops.start[item.id], t.ops.end[item.id]];
  }

  trackOf(item: Item): Track {
    return this.rows.tracks[item.table === 'calls' ? this.rows.callTrack(item.id) : this.rows.opTrack(item.id)];
  }

  /**
   * Brings an item into view and scrolls to its row. With `zoom`, or when it is out of view or too
   * small to see, the item is made to fill about a third of the width.
   */
  reveal(item: Item, zoom = false): void {
    const [a, b] = this.itemSpan(item);
    const [v0, v1] = this.visibleRange();
    const dur = Math.max(b - a, 200);
    if (zoom || a < v0 || b > v1 || dur < (v1 - v0) / 400) this.setViewport(a - dur, b + dur);
    const track = this.trackOf(item);
    const top = this.scroller.scrollTop;
    if (track.y < top + 4 || track.y + track.h > top + this.height - 4)
      this.scroller.scrollTop = Math.max(0, track.y - this.height / 3);
    this.request();
  }

  /**
   * Fits the canvas to its box. A hidden timeline (the overview's tab in front) has a box of no size:
   * it keeps the size it had, and the range in view, until it is shown and resized again.
   */
  resize(): void {
    const width = this.canvas.parentElement?.clientWidth ?? 0;
    const height = this.scroller.clientHeight;
    if (!width || !height) return;
    const [t0, t1] = this.visibleRange();
    this.dpr = window.devicePixelRatio || 1;
    this.width = width;
    this.height = height;
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${this.height}px`;
    this.canvas.width = Math.round(this.width * this.dpr);
    this.canvas.height = Math.round(this.height * this.dpr);
    this.base.range([0, this.width]);
    const span = this.base.domain()[1] - this.base.domain()[0];
    this.zoomer
      .extent([
        [0, 0],
        [this.width, this.height],
      ])
      .translateExtent([
        [0, -1e9],
        [this.width, 1e9],
      ])
      .scaleExtent([1, Math.max(1, span / 20)]);
    this.axis.setAttribute('width', String(this.width));
    this.themeChanged();
    this.setViewport(t0, t1);
  }

  themeChanged(): void {
    this.palette = readPalette();
    this.hatchFill = hatch(this.ctx, this.palette.blocked, this.dpr);
    this.waitHatch = hatch(this.ctx, this.palette.waitEvent, this.dpr);
    this.textCache.clear();
    this.widths.clear();
    this.request();
  }

  /** New rows for the same trace (a thread's Python frames folded or shown): the time in view stays. */
  setRows(rows: Rows): void {
    this.rows = rows;
    this.request();
  }

  setSelection(item: Item | null, cone: Cone | null): void {
    this.selection = item;
    this.cone = cone;
    this.request();
  }

  /**
   * Detaches the view from its canvas and scroller. The app replaces the view on every trace while
   * the elements stay: listeners left behind would act on stale traces and keep them alive.
   */
  dispose(): void {
    this.listening.abort();
    select(this.canvas).on('.zoom', null);
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    clearTimeout(this.edgeTimer);
  }

  request(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  // ---- Input ---------------------------------------------------------------------------------

  private listen(): void {
    const c = this.canvas;
    const signal = this.listening.signal;
    c.addEventListener(
      'pointermove',
      (e) => {
        this.pointerX = e.offsetX;
        if (this.rulerDrag && this.ruler) {
          this.ruler.b = this.x.invert(e.offsetX);
          this.request();
          return;
        }
        if (e.buttons) return;
        const edge = this.releaseAt(e.offsetX, e.offsetY);
        if (edge >= 0) this.events.hoverRelease(edge, e.clientX, e.clientY);
        else this.events.hover(this.hit(e.offsetX, e.offsetY), e.clientX, e.clientY);
      },
      { signal },
    );
    c.addEventListener('pointerleave', () => this.events.hover(null, 0, 0), { signal });
    c.addEventListener(
      'pointerdown',
      (e) => {
        if (!(e.shiftKey || this.rulerMode) || e.button) return;
        const t = this.x.invert(e.offsetX);
        this.ruler = { a: t, b: t };
        this.rulerDrag = true;
        c.setPointerCapture(e.pointerId);
        this.request();
      },
      { signal },
    );
    c.addEventListener(
      'pointerup',
      () => {
        if (!this.rulerDrag) return;
        this.rulerDrag = false;
        // A click without a drag in ruler mode is a plain selection click.
        if (this.ruler && Math.abs(this.x(this.ruler.b) - this.x(this.ruler.a)) < 3) this.ruler = null;
        else this.suppressClick = true;
        this.request();
      },
      { signal },
    );
    c.addEventListener(
      'click',
      (e) => {
        if (this.suppressClick) {
          this.suppressClick = false;
          return;
        }
        this.events.select(this.hit(e.offsetX, e.offsetY));
      },
      { signal },
    );
    c.addEventListener(
      'wheel',
      (e) => {
        if (!e.shiftKey) return;
        e.preventDefault();
        this.scroller.scrollTop += e.deltaY || e.deltaX;
      },
      { passive: false, signal },
    );
    this.scroller.addEventListener(
      'scroll',
      () => {
        this.request();
        this.events.viewChanged();
      },
      { signal },
    );
  }

  private suppressClick = false;

  get pointer(): number {
    return this.pointerX;
  }

  /** The release arrow drawn nearest canvas position (px, py), within ARROW_HOVER_PX; -1 for none. */
  releaseAt(px: number, py: number): number {
    let best = -1;
    let bestD = ARROW_HOVER_PX;
    for (const a of this.releaseArrows) {
      const d = arrowDistance(px, py, a.x0, a.y0, a.x1, a.y1);
      if (d <= bestD) [best, bestD] = [a.edge, d];
    }
    return best;
  }

  /** The item at canvas position (px, py), or null. */
  hit(px: number, py: number): Item | null {
    const y = py + this.scroller.scrollTop;
    const track = this.rows.tracks.find((t) => t.h > 0 && y >= t.y && y < t.y + t.h);
    if (!track) return null;
    const x = this.x;
    const t = x.invert(px);
    const slop = 4 * (x.invert(1) - x.invert(0));
    const cols =
      track.table === 'calls'
        ? [this.trace.calls.begin, this.trace.calls.end]
        : [this.trace.ops.start, this.trace.ops.end];
    const id = hitTest(track, cols[0], cols[1], t, slop);
    return id < 0 ? null : { table: track.table, id };
  }

  // ---- Drawing -------------------------------------------------------------------------------

  /** Draws one frame now; returns how long it took in milliseconds. */
  draw(): number {
    const started = performance.now();
    const { ctx, palette: p } = this;
    const x = this.x;
    const [t0, t1] = x.domain();
    const view: View = { t0, nsPerPx: (t1 - t0) / this.width, widthPx: this.width, minPx: 2 };
    const top = this.scroller.scrollTop;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = p.background;
    ctx.fillRect(0, 0, this.width, this.height);
    ctx.font = p.font;

    const ticks = x.ticks(Math.max(2, Math.floor(this.width / 110)));
    ctx.fillStyle = p.grid;
    for (const tk of ticks) ctx.fillRect(Math.round(x(tk)), 0, 1, this.height);
    this.drawAxis(ticks);

    for (const g of this.rows.groups) {
      const y = g.y - top;
      if (y > this.height || y + GROUP_H < 0) continue;
      ctx.fillStyle = p.grid;
      ctx.globalAlpha = 0.45;
      ctx.fillRect(0, y, this.width, GROUP_H);
      ctx.globalAlpha = 1;
    }
    for (const r of this.rows.rows) {
      if (r.h === 0) continue;
      ctx.fillStyle = p.grid;
      ctx.fillRect(0, r.y + r.h - top - 1, this.width, 1);
    }

    const shown: Item[] = [];
    const overlays: (() => void)[] = [];
    for (const track of this.rows.tracks) {
      if (track.h === 0 || track.y - top > this.height || track.y + track.h - top < 0) continue;
      this.drawTrack(track, view, track.y - top, shown, overlays);
    }
    const crossDevice = this.drawArrows(shown, x, top);
    for (const o of overlays) o();
    // Arrows between GPUs span other rows' markers and labels: they go on top to stay legible.
    crossDevice();
    this.drawSelection(x, top);
    this.drawRuler(x);
    this.lastFrameMs = performance.now() - started;
    return this.lastFrameMs;
  }

  private drawAxis(ticks: number[]): void {
    const step = ticks.length > 1 ? ticks[1] - ticks[0] : 1;
    const g = select(this.axis)
      .selectAll<SVGGElement, null>('g.axis')
      .data([null])
      .join('g')
      .attr('class', 'axis')
      .attr('transform', 'translate(0, 23)');
    const format = tickFormatter(step, Math.max(...ticks.map(Math.abs)));
    g.call(
      axisTop(this.x)
        .tickValues(ticks)
        .tickFormat((v) => format(Number(v)))
        .tickSizeOuter(0),
    );
  }

  private coneMark(item: Item): number {
    if (!this.cone) return CONE_SELF;
    return (item.table === 'calls' ? this.cone.calls : this.cone.ops)[item.id];
  }

  private drawTrack(track: Track, view: View, y: number, shown: Item[], overlays: (() => void)[]): void {
    const { ctx, palette: p, trace: t } = this;
    const isCalls = track.table === 'calls';
    const start = isCalls ? t.calls.begin : t.ops.start;
    const end = isCalls ? t.calls.end : t.ops.end;
    const h = track.h - 4;
    const y0 = y + 2;
    // Sub-pixel runs of one colour next to each other become one rectangle.
    let runX0 = 0;
    let runX1 = -1;
    let runFill = '';
    let runAlpha = 1;
    const flush = () => {
      if (runX1 < runX0) return;
      ctx.globalAlpha = runAlpha;
      ctx.fillStyle = runFill;
      ctx.fillRect(runX0, y0, runX1 - runX0, h);
      ctx.globalAlpha = 1;
      runX1 = -1;
    };
    const alphaOf = (item: Item) => (this.coneMark(item) === 0 ? 0.22 : 1);
    const typicalFill =
      track.typical < 0 ? p.kernel : isCalls ? callColor(p, t, track.typical) : opColor(p, t, track.typical);
    const labels: RowLabels = { end: -Infinity, texts: [] };
    const one = (id: number, x0: number, x1: number) => {
      flush();
      const item: Item = { table: track.table, id };
      if (shown.length <= ARROW_ITEM_CAP) shown.push(item);
      const mark = this.coneMark(item);
      ctx.globalAlpha = mark === 0 ? 0.22 : 1;
      if (isCalls) this.drawCall(id, x0, x1, y0, h, overlays, labels);
      else this.drawOp(id, x0, x1, y0, h);
      ctx.globalAlpha = 1;
      // The cone: what happens before the selection is underlined in one colour, what after in another.
      if (this.cone && (mark === CONE_BEFORE || mark === CONE_AFTER)) {
        ctx.fillStyle = mark === CONE_BEFORE ? p.coneBefore : p.coneAfter;
        ctx.fillRect(x0, y0 + h + 0.5, Math.max(2, x1 - x0), 2.5);
      }
    };
    visitVisible(track, start, end, view, one, (id, count, x0, x1) => {
      // A lone marker keeps its glyph: event records and waits, query answers, unblocks.
      if (
        count === 1 &&
        (isCalls
          ? t.calls.kind[id] === CK.query || isWait(t, id)
          : t.ops.kind[id] === OK.eventRecord || t.ops.kind[id] === OK.waitEvent)
      ) {
        return one(id, x0, Math.max(x1, x0 + 1));
      }
      const alpha = alphaOf({ table: track.table, id });
      // Touching runs merge whatever their kinds: at this scale a column says "busy", and one
      // rectangle per stretch keeps a frame cheap.
      if (alpha === runAlpha && x0 <= runX1 + 0.5) {
        runX1 = Math.max(runX1, x1);
        runFill = typicalFill;
        return;
      }
      flush();
      runX0 = x0;
      runX1 = x1;
      // Many items in one mark: the track's usual kind colours it, not whichever came first.
      runFill = count > 1 ? typicalFill : isCalls ? callColor(p, t, id) : opColor(p, t, id);
      runAlpha = alpha;
    });
    flush();
    if (shown.length > ARROW_ITEM_CAP) shown.length = ARROW_ITEM_CAP + 1;
  }

  private drawCall(
    id: number,
    x0: number,
    x1: number,
    y: number,
    h: number,
    overlays: (() => void)[],
    labels: RowLabels,
  ): void {
    const { ctx, palette: p, trace: t } = this;
    const c = t.calls;
    const fill = callColor(p, t, id);
    const w = Math.max(1, x1 - x0);
    ctx.fillStyle = fill;
    ctx.fillRect(x0, y, w, h);
    const nsPerPx = (x1 - x0) / Math.max(c.end[id] - c.begin[id], 1e-9);
    if (c.blockedNs[id] > 0 && w >= 2) {
      const bx = Math.max(x0, x1 - c.blockedNs[id] * nsPerPx);
      ctx.fillStyle = p.background;
      ctx.globalAlpha *= 0.55;
      ctx.fillRect(bx, y, x1 - bx, h);
      ctx.globalAlpha /= 0.55;
      ctx.fillStyle = this.hatchFill;
      ctx.fillRect(bx, y, x1 - bx, h);
    }
    if (p.highContrast) {
      ctx.strokeStyle = p.border;
      ctx.strokeRect(x0 + 0.5, y + 0.5, w - 1, h - 1);
    }
    const blockedPx = c.blockedNs[id] > 0 ? c.blockedNs[id] * nsPerPx : 0;
    const text = this.label(str(t, c.name[id]) || 'call', fill, x0, x1 - blockedPx, y, h);
    if (text) labels.texts.push(text);
    const alpha = ctx.globalAlpha;
    if (isWait(t, id) && Number.isFinite(c.unblockNs[id])) {
      overlays.push(() => this.drawUnblock(id, x1, y, h, alpha, labels));
    }
    if (c.kind[id] === CK.query && c.answer[id]) {
      const cx = answerX(x0, x1);
      labels.texts.push([cx - ANSWER_R, cx + ANSWER_R]);
      overlays.push(() => this.drawAnswer(id, cx, y, h, alpha));
    }
  }

  private drawUnblock(id: number, x: number, y: number, h: number, alpha: number, labels: RowLabels): void {
    const { ctx, palette: p, trace: t } = this;
    ctx.globalAlpha = alpha;
    ctx.fillStyle = p.blocked;
    ctx.fillRect(x - 1, y - 2, 2, h + 4);
    ctx.beginPath();
    ctx.moveTo(x, y - 3);
    ctx.lineTo(x - 4, y + 3);
    ctx.lineTo(x + 4, y + 3);
    ctx.closePath();
    ctx.fill();
    // A host-driven call (a pageable copy) returns as its op ends: a "0 ns" plate would say nothing the marker does not.
    if (t.calls.unblockNs[id] > 0) {
      const text = `↑ ${formatNs(t.calls.unblockNs[id])}`;
      const lx = plateX(x, ctx.measureText(text).width + 8, this.width, labels.texts, labels.end);
      if (lx !== undefined) labels.end = lx + plate(ctx, text, lx, y + h / 2, p, p.blocked);
    }
    ctx.globalAlpha = 1;
  }

  private drawAnswer(id: number, cx: number, y: number, h: number, alpha: number): void {
    const { ctx, palette: p, trace: t } = this;
    const ready = t.calls.answer[id] === 1;
    const cy = y + h / 2;
    ctx.globalAlpha = alpha;
    ctx.fillStyle = ready ? p.ready : p.notReady;
    ctx.beginPath();
    ctx.arc(cx, cy, ANSWER_R, 0, Math.PI * 2);
    ctx.fill();
    ctx.strokeStyle = p.background;
    ctx.lineWidth = 1.5;
    ctx.stroke();
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 1.8;
    ctx.beginPath();
    if (ready) {
      ctx.moveTo(cx - 3, cy);
      ctx.lineTo(cx - 0.8, cy + 2.5);
      ctx.lineTo(cx + 3.2, cy - 2.6);
    } else {
      ctx.moveTo(cx - 2.5, cy - 2.5);
      ctx.lineTo(cx + 2.5, cy + 2.5);
      ctx.moveTo(cx + 2.5, cy - 2.5);
      ctx.lineTo(cx - 2.5, cy + 2.5);
    }
    ctx.stroke();
    ctx.globalAlpha = 1;
  }

  private drawOp(id: number, x0: number, x1: number, y: number, h: number): void {
    const { ctx, palette: p, trace: t } = this;
    const kind = t.ops.kind[id];
    const fill = opColor(p, t, id);
    const w = Math.max(1, x1 - x0);
    if (kind === OK.eventRecord || kind === OK.waitEvent) {
      if (kind === OK.waitEvent && w >= 2) {
        ctx.fillStyle = this.waitHatch;
        ctx.fillRect(x0, y + 3, w, h - 6);
      }
      ctx.fillStyle = fill;
      if (kind === OK.eventRecord) triangleDown(ctx, x0, y, 5);
      else diamond(ctx, x0, y + h / 2, 5.5);
      ctx.fill();
      ctx.strokeStyle = p.background;
      ctx.lineWidth = 1;
      ctx.stroke();
      return;
    }
    ctx.fillStyle = fill;
    ctx.fillRect(x0, y, w, h);
    if (p.highContrast) {
      ctx.strokeStyle = p.border;
      ctx.strokeRect(x0 + 0.5, y + 0.5, w - 1, h - 1);
    }
    // Kernels show their short name; the details pane keeps the full one.
    const name = str(t, t.ops.name[id]);
    this.label(t.ops.kind[id] === OK.kernel ? shortKernelName(name) : name, fill, x0, x1, y, h);
  }

  /** The name inside its box, kept on screen when the box starts left of the view, as far as it fits; where it went, in px. */
  private label(
    text: string,
    fill: string,
    x0: number,
    x1: number,
    y: number,
    h: number,
  ): [number, number] | undefined {
    const left = Math.max(x0, 0);
    const fitted = this.widths.fit(text, Math.min(x1, this.width) - left - 6);
    if (!fitted) return undefined;
    this.ctx.fillStyle = textOn(this.ctx, fill, this.textCache);
    this.ctx.textBaseline = 'middle';
    this.ctx.fillText(fitted, left + 3, y + h / 2 + 0.5);
    return [left + 3, left + 3 + this.widths.of(fitted)];
  }

  private ensureEdges(): EdgeIndex {
    return (this.edgeIndex ??= buildEdgeIndex(this.trace));
  }

  /**
   * The edge index for a frame that merely shows arrows: built in a task of its own, then drawn,
   * so that the first frame of a large trace does not wait for an index over every edge. A frame
   * with a selection builds it at once (a click asks for the selection's arrows).
   */
  private edgesWhenReady(): EdgeIndex | null {
    if (this.edgeIndex || this.selection) return this.ensureEdges();
    this.edgeTimer ||= window.setTimeout(() => {
      this.ensureEdges();
      this.request();
    });
    return null;
  }

  /** Where an edge starts and ends on screen (content y). */
  private edgeEnds(e: number, x: (t: number) => number): [number, number, number, number] {
    const t = this.trace;
    const from = t.edges.from[e];
    const to = t.edges.to[e];
    const kind = t.edges.kind[e];
    const fromTrack = this.rows.tracks[edgeFromIsCall(t, e) ? this.rows.callTrack(from) : this.rows.opTrack(from)];
    const toTrack = this.rows.tracks[edgeToIsCall(t, e) ? this.rows.callTrack(to) : this.rows.opTrack(to)];
    // A launch arrow leaves the call's end, or the op's start where a blocking call (a pageable
    // copy) ran the op before it returned.
    const fx = kind === EK.launch ? Math.min(t.calls.end[from], t.ops.start[to]) : t.ops.end[from];
    // A stream's wait for an event ends when the record completes: the arrow meets that end.
    const tx =
      kind === EK.release
        ? t.calls.end[to]
        : kind === EK.event && t.ops.kind[to] === OK.waitEvent
          ? t.ops.end[to]
          : t.ops.start[to];
    const mid = (tr: Track) =>
      tr.h
        ? tr.y + tr.h / 2
        : this.rows.groups[this.rows.rows.find((r) => r.tracks.includes(tr))?.group ?? 0].y + GROUP_H / 2;
    const y0 = mid(fromTrack);
    const y1 = mid(toTrack);
    // Arrive at the target's near edge, clear of its name.
    const edge = toTrack.h && Math.abs(y1 - y0) >= 4 ? (y1 > y0 ? -1 : 1) * (toTrack.h / 2 - 2) : 0;
    return [x(fx), y0, x(tx), y1 + edge];
  }

  /** Strokes the arrows of what is shown; returns the stroke of those between two GPUs, for the caller to draw last. */
  private drawArrows(shown: Item[], x: (t: number) => number, top: number): () => void {
    const t = this.trace;
    this.lastCrossDeviceArrows = 0;
    this.releaseArrows = [];
    if (!t.edges.count) return () => undefined;
    const wanted = (e: number) => {
      const k = t.edges.kind[e];
      return (
        (k === EK.launch && this.arrows.launch) ||
        (k === EK.event && this.arrows.event) ||
        (k === EK.release && this.arrows.release)
      );
    };
    const edges = new Set<number>();
    const idx = shown.length <= ARROW_ITEM_CAP || this.selection ? this.edgesWhenReady() : null;
    if (idx && shown.length <= ARROW_ITEM_CAP)
      for (const it of shown) for (const e of edgesOf(idx, it.table, it.id)) if (wanted(e)) edges.add(e);
    const selected = new Set<number>();
    if (idx && this.selection)
      for (const e of edgesOf(idx, this.selection.table, this.selection.id)) {
        edges.add(e);
        selected.add(e);
      }
    const color = (k: number) =>
      k === EK.launch ? this.palette.arrowLaunch : k === EK.event ? this.palette.arrowEvent : this.palette.arrowRelease;
    // One path per colour and emphasis: a frame strokes a handful of paths, not one per arrow.
    type Paths = { line: Path2D; head: Path2D; color: string; strong: boolean; cross: boolean };
    const paths = new Map<string, Paths>();
    for (const e of edges) {
      const k = t.edges.kind[e];
      if (k !== EK.launch && k !== EK.event && k !== EK.release) continue;
      const strong = selected.has(e);
      const cross = this.crossesDevices(e);
      if (cross) this.lastCrossDeviceArrows++;
      const key = `${k}${strong}${cross}`;
      let path = paths.get(key);
      if (!path)
        paths.set(
          key,
          (path = {
            line: new Path2D(),
            head: new Path2D(),
            color: cross ? this.palette.arrowCrossDevice : color(k),
            strong,
            cross,
          }),
        );
      const [x0, y0, x1, y1] = this.edgeEnds(e, x);
      arrowPath(path.line, path.head, x0, y0 - top, x1, y1 - top);
      if (k === EK.release) this.releaseArrows.push({ edge: e, x0, y0: y0 - top, x1, y1: y1 - top });
    }
    const ctx = this.ctx;
    const stroke = (path: Paths) => {
      // A dimmed arrow outside the selection stays faint; otherwise arrows between GPUs are opaque.
      ctx.globalAlpha = this.selection && !path.strong ? 0.35 : path.cross ? 1 : 0.95;
      ctx.strokeStyle = ctx.fillStyle = path.color;
      ctx.lineWidth = path.strong ? 2.5 : path.cross ? 2 : 1.3;
      ctx.setLineDash(path.cross ? [6, 3] : []);
      ctx.stroke(path.line);
      ctx.setLineDash([]);
      ctx.fill(path.head);
      ctx.globalAlpha = 1;
    };
    const all = [...paths.values()];
    for (const path of all) if (!path.cross) stroke(path);
    return () => {
      for (const path of all) if (path.cross) stroke(path);
    };
  }

  /** An edge between ops on two GPUs' streams, such as a wait for another device's event (S21). */
  private crossesDevices(e: number): boolean {
    const t = this.trace;
    if (edgeFromIsCall(t, e) || edgeToIsCall(t, e)) return false;
    const a = t.lanes[t.ops.lane[t.edges.from[e]]];
    const b = t.lanes[t.ops.lane[t.edges.to[e]]];
    return a !== undefined && b !== undefined && a.device !== b.device;
  }

  private drawSelection(x: (t: number) => number, top: number): void {
    const { ctx, palette: p } = this;
    if (!this.selection) return;
    const [a, b] = this.itemSpan(this.selection);
    const track = this.trackOf(this.selection);
    if (!track.h) return;
    const x0 = x(a);
    const x1 = Math.max(x(b), x0 + 2);
    ctx.strokeStyle = p.selection;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 - 1, track.y - top + 1, x1 - x0 + 2, track.h - 2);
  }

  private drawRuler(x: (t: number) => number): void {
    if (!this.ruler) return;
    const { ctx, palette: p } = this;
    const a = Math.min(this.ruler.a, this.ruler.b);
    const b = Math.max(this.ruler.a, this.ruler.b);
    const xa = x(a);
    const xb = x(b);
    ctx.globalAlpha = 0.12;
    ctx.fillStyle = p.selection;
    ctx.fillRect(xa, 0, xb - xa, this.height);
    ctx.globalAlpha = 1;
    ctx.fillStyle = p.ruler;
    ctx.fillRect(Math.round(xa), 0, 1, this.height);
    ctx.fillRect(Math.round(xb), 0, 1, this.height);
    const text = `↔ ${formatNs(b - a)}`;
    plate(ctx, text, Math.max(2, (xa + xb) / 2 - ctx.measureText(text).width / 2 - 4), 12, p, p.ruler);
  }
}
