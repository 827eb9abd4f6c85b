// The overview's chart of where each iteration's time goes (docs/timeline.md, "The overview"): per
// iteration a bar of the host's time, running, blocked by call kind and other, stacked to the
// iteration's span, and under it a row per GPU stream with the share of the span the stream was
// busy. SVG through d3: a few hundred bars at most, since more iterations than fit are averaged.
import { axisLeft } from 'd3-axis';
import { scaleBand, scaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import type { OverviewIteration } from '../core/overview/types';
import { el } from './dom';
import { formatNs, tickFormatter } from './format';

const SVG = 'http://www.w3.org/2000/svg';
/** Room for the time axis's labels ("12.5 ms") on the left, and for the iteration labels below. */
const MARGIN = { left: 52, right: 8, top: 8, bottom: 22 };
const HOST_H = 150;
const STREAM_LABEL_H = 16;
const STREAM_H = 18;
/** A band narrower than this (px) would hide its bar: more iterations than fit are averaged in groups. */
const MIN_BAND = 3;
/** Chart colours for the blocked kinds, largest first (timeline.css .ov-b0 to .ov-b5); more kinds cycle. */
export const BLOCKED_COLOURS = 6;

/** One bar: an iteration, or the mean of a run of them where too many to draw one by one. */
export interface Bar {
  label: string;
  /** The index of the first iteration the bar stands for, and how many it is the mean of. */
  first: number;
  count: number;
  spanNs: number;
  runningNs: number;
  blocked: Map<string, number>;
  otherNs: number;
  gpu: Map<string, { busyNs: number; idleNs: number }>;
}

/** A part of the host's time, as the bars stack them from the bottom. */
export interface Part {
  /** `running`, `blocked:<kind>` or `other`: the segment's data-part. */
  key: string;
  label: string;
  /** Its colour (timeline.css). */
  cls: string;
  ns(bar: Bar): number;
}

export interface ChartTip {
  show(lines: string[], clientX: number, clientY: number): void;
  hide(): void;
}

const spanOf = (it: OverviewIteration) => it.endNs - it.beginNs;

function toBar(it: OverviewIteration, first: number): Bar {
  return {
    label: it.label,
    first,
    count: 1,
    spanNs: spanOf(it),
    runningNs: it.host.runningNs,
    blocked: new Map(it.host.blocked.map((b) => [b.kind, b.ns])),
    otherNs: it.host.otherNs,
    gpu: new Map(it.gpu.map((g) => [g.stream, { busyNs: g.busyNs, idleNs: g.idleNs }])),
  };
}

/** The mean of a run of iterations, labelled by its first and last. */
function meanBar(run: OverviewIteration[], first: number): Bar {
  const n = run.length;
  const bar: Bar = {
    label: `${run[0].label} – ${run[n - 1].label}`,
    first,
    count: n,
    spanNs: 0,
    runningNs: 0,
    blocked: new Map(),
    otherNs: 0,
    gpu: new Map(),
  };
  for (const it of run) {
    bar.spanNs += spanOf(it) / n;
    bar.runningNs += it.host.runningNs / n;
    bar.otherNs += it.host.otherNs / n;
    for (const b of it.host.blocked) bar.blocked.set(b.kind, (bar.blocked.get(b.kind) ?? 0) + b.ns / n);
    for (const g of it.gpu) {
      const s = bar.gpu.get(g.stream) ?? { busyNs: 0, idleNs: 0 };
      s.busyNs += g.busyNs / n;
      s.idleNs += g.idleNs / n;
      bar.gpu.set(g.stream, s);
    }
  }
  return bar;
}

/** One bar per iteration where `maxBars` fit; else runs of consecutive iterations, each drawn as its mean. */
export function barsFor(iterations: readonly OverviewIteration[], maxBars: number): Bar[] {
  if (iterations.length <= maxBars) return iterations.map((it, i) => toBar(it, i));
  const per = Math.ceil(iterations.length / Math.max(1, maxBars));
  const bars: Bar[] = [];
  for (let i = 0; i < iterations.length; i += per) bars.push(meanBar(iterations.slice(i, i + per), i));
  return bars;
}

/** The stacked parts from the bottom: running, each blocked kind (most blocked first), other. */
export function partsOf(iterations: readonly OverviewIteration[]): Part[] {
  const total = new Map<string, number>();
  for (const it of iterations) for (const b of it.host.blocked) total.set(b.kind, (total.get(b.kind) ?? 0) + b.ns);
  const kinds = [...total.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  return [
    { key: 'running', label: 'Host running in calls', cls: 'ov-running', ns: (b) => b.runningNs },
    ...kinds.map((k, i): Part => ({
      key: `blocked:${k}`,
      label: `Host blocked in ${k}`,
      cls: `ov-b${i % BLOCKED_COLOURS}`,
      ns: (b) => b.blocked.get(k) ?? 0,
    })),
    { key: 'other', label: 'Host, other work', cls: 'ov-other', ns: (b) => b.otherNs },
  ];
}

export function streamsOf(iterations: readonly OverviewIteration[]): string[] {
  const names: string[] = [];
  for (const it of iterations) for (const g of it.gpu) if (!names.includes(g.stream)) names.push(g.stream);
  return names;
}

/**
 * Labels without the prefix they all share up to a number ("ProfilerStep#" of "ProfilerStep#3"),
 * which the chart names once: the ticks stay short enough to stand side by side.
 */
export function shortLabels(labels: readonly string[]): { prefix: string; short: string[] } {
  if (labels.length < 2) return { prefix: '', short: [...labels] };
  let n = 0;
  const first = labels[0];
  while (n < first.length && labels.every((l) => l[n] === first[n])) n++;
  // Cut before the shared digits: "step 10", "step 11" share "step 1", and read as "10", "11".
  while (n > 0 && /\d/.test(first[n - 1])) n--;
  return n
    ? { prefix: first.slice(0, n).trim(), short: labels.map((l) => l.slice(n)) }
    : { prefix: '', short: [...labels] };
}

/** The figures of one bar, for its tooltip and its accessible name. */
export function barLines(bar: Bar, parts: readonly Part[], streams: readonly string[]): string[] {
  const pct = (ns: number, of: number) => (of > 0 ? ` (${Math.round((100 * ns) / of)}%)` : '');
  const lines = [
    bar.count > 1
      ? `${bar.label}: mean of ${bar.count} iterations, ${formatNs(bar.spanNs)}`
      : `${bar.label}: ${formatNs(bar.spanNs)}`,
  ];
  for (const p of parts) {
    const ns = p.ns(bar);
    if (ns > 0) lines.push(`${p.label}: ${formatNs(ns)}${pct(ns, bar.spanNs)}`);
  }
  for (const s of streams) {
    const g = bar.gpu.get(s);
    if (g) lines.push(`GPU ${s} busy: ${formatNs(g.busyNs)}${pct(g.busyNs, g.busyNs + g.idleNs)}`);
  }
  return lines;
}

const svgEl = <K extends keyof SVGElementTagNameMap>(tag: K, cls = ''): SVGElementTagNameMap[K] => {
  const e = document.createElementNS(SVG, tag);
  if (cls) e.setAttribute('class', cls);
  return e;
};

/** The legend: one swatch per part, then the GPU's busy and idle. */
export function chartLegend(parts: readonly Part[]): HTMLElement {
  const item = (cls: string, label: string) =>
    el('li', {}, el('span', { class: `sw ov-sw ${cls}`, 'aria-hidden': 'true' }), label);
  return el(
    'ul',
    { class: 'ov-legend', 'aria-label': 'Legend' },
    ...parts.map((p) => item(p.cls, p.label)),
    item('ov-busy', 'GPU stream busy'),
    item('ov-idle', 'GPU stream idle'),
  );
}

/**
 * Draws the chart into `box` for its current width. `pick` is called with the index of the first
 * iteration a clicked bar stands for, and the number it stands for.
 */
export function drawChart(
  box: HTMLElement,
  iterations: readonly OverviewIteration[],
  tip: ChartTip,
  pick: (first: number, count: number) => void,
): void {
  const width = box.clientWidth;
  if (!width) return;
  const plotW = Math.max(40, width - MARGIN.left - MARGIN.right);
  const bars = barsFor(iterations, Math.floor(plotW / MIN_BAND));
  const parts = partsOf(iterations);
  const streams = streamsOf(iterations);
  // A bar of several iterations is labelled by its first.
  const { prefix, short: shortOfEach } = shortLabels(iterations.map((it) => it.label));
  const short = bars.map((b) => shortOfEach[b.first]);
  const gpuTop = MARGIN.top + HOST_H + MARGIN.bottom;
  const height = gpuTop + streams.length * (STREAM_LABEL_H + STREAM_H) + 4;

  const x = scaleBand<number>()
    .domain(bars.map((_, i) => i))
    .range([MARGIN.left, MARGIN.left + plotW])
    .paddingInner(bars.length > 40 ? 0.15 : 0.3)
    .paddingOuter(0.15);
  const maxSpan = Math.max(1, ...bars.map((b) => b.spanNs));
  const y = scaleLinear()
    .domain([0, maxSpan])
    .range([MARGIN.top + HOST_H, MARGIN.top])
    .nice(4);
  const yMax = y.domain()[1];

  const svg = svgEl('svg', 'ov-chart');
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('role', 'group');
  svg.setAttribute('aria-label', 'Where each iteration’s time goes');
  const root = select(svg);

  // The time axis, its ticks drawn across as grid lines.
  const ticks = y.ticks(4);
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : yMax;
  root
    .append('g')
    .attr('class', 'ov-axis')
    .attr('transform', `translate(${MARGIN.left},0)`)
    .call(
      axisLeft(y)
        .tickValues(ticks)
        .tickFormat((v) => (Number(v) === 0 ? '0' : tickFormatter(step, yMax)(Number(v))))
        .tickSize(-plotW)
        .tickPadding(6),
    )
    .call((g) => g.select('.domain').remove());

  // The bars: each iteration's stacked host time, then each stream's busy share below.
  const bandW = x.bandwidth();
  bars.forEach((bar, i) => {
    const g = svgEl('g', 'ov-bar');
    g.setAttribute('role', 'img');
    const lines = barLines(bar, parts, streams);
    g.setAttribute('aria-label', lines.join('; '));
    const x0 = x(i) ?? 0;
    let cum = 0;
    for (const p of parts) {
      const ns = p.ns(bar);
      if (ns <= 0) continue;
      const top = y(cum + ns);
      const r = svgEl('rect', `ov-seg ${p.cls}`);
      r.setAttribute('x', String(x0));
      r.setAttribute('width', String(bandW));
      r.setAttribute('y', String(top));
      r.setAttribute('height', String(y(cum) - top));
      r.dataset.part = p.key;
      g.append(r);
      cum += ns;
    }
    streams.forEach((s, k) => {
      const g2 = bar.gpu.get(s);
      const rowTop = gpuTop + k * (STREAM_LABEL_H + STREAM_H) + STREAM_LABEL_H;
      const track = svgEl('rect', 'ov-idle ov-track');
      track.setAttribute('x', String(x0));
      track.setAttribute('width', String(bandW));
      track.setAttribute('y', String(rowTop));
      track.setAttribute('height', String(STREAM_H));
      g.append(track);
      const total = g2 ? g2.busyNs + g2.idleNs : 0;
      if (!g2 || total <= 0) return;
      const h = (STREAM_H * g2.busyNs) / total;
      const busy = svgEl('rect', 'ov-busy ov-gpu');
      busy.setAttribute('x', String(x0));
      busy.setAttribute('width', String(bandW));
      busy.setAttribute('y', String(rowTop + STREAM_H - h));
      busy.setAttribute('height', String(h));
      busy.dataset.stream = s;
      g.append(busy);
    });
    // The whole column answers the pointer, the gaps between bars included; its highlight lies behind the bars.
    const hit = svgEl('rect', 'ov-hit');
    const pad = (x.step() - bandW) / 2;
    hit.setAttribute('x', String(x0 - pad));
    hit.setAttribute('width', String(bandW + 2 * pad));
    hit.setAttribute('y', String(MARGIN.top));
    hit.setAttribute('height', String(height - MARGIN.top));
    g.prepend(hit);
    g.addEventListener('pointermove', (e) => tip.show(lines, e.clientX, e.clientY));
    g.addEventListener('pointerleave', () => tip.hide());
    g.addEventListener('click', () => {
      tip.hide();
      pick(bar.first, bar.count);
    });
    svg.append(g);
  });

  // Iteration labels, whole where each fits its band, else without their shared prefix; as many as
  // stand side by side without touching.
  const widthOf = (labels: string[]) => Math.max(...labels.map((s) => s.length)) * 7 + 8;
  const whole = bars.map((b) => b.label);
  const labels = bars.length === iterations.length && widthOf(whole) <= x.step() ? whole : short;
  const every = Math.max(1, Math.ceil(widthOf(labels) / x.step()));
  labels.forEach((s, i) => {
    if (i % every) return;
    const t = svgEl('text', 'ov-tick');
    t.setAttribute('x', String((x(i) ?? 0) + bandW / 2));
    t.setAttribute('y', String(MARGIN.top + HOST_H + 15));
    t.setAttribute('text-anchor', 'middle');
    t.textContent = s;
    svg.append(t);
  });
  streams.forEach((s, k) => {
    const t = svgEl('text', 'ov-stream');
    t.setAttribute('x', String(MARGIN.left));
    t.setAttribute('y', String(gpuTop + k * (STREAM_LABEL_H + STREAM_H) + STREAM_LABEL_H - 4));
    t.textContent = `GPU ${s}: busy share of each iteration`;
    svg.append(t);
  });

  const caption = el(
    'p',
    { class: 'ov-caption' },
    bars.length < iterations.length
      ? `Each bar is the mean of ${bars[0].count} consecutive iterations (${iterations.length} in all), labelled by its first${prefix ? `, ${prefix}<number>` : ''}.`
      : labels === short && prefix
        ? `Under each bar: its iteration, ${prefix}<number>.`
        : '',
  );
  box.replaceChildren(chartLegend(parts), svg, caption);
  if (!caption.textContent) caption.remove();
}
