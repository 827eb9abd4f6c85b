// The overview tab (docs/timeline.md, "The overview"): the recorded window, where each iteration's
// time goes, the lines that block the host longest and the findings ranked by predicted saving.
// The host side makes the Overview (core/overview/build.ts); this draws it, and every row leads in
// one click to its wait in the timeline, its line in the editor or the simulation of its fix.
import { launchedText, siteLabel } from '../core/analyze/describe';
import { RELEASE_BASIS_LABEL } from '../core/analyze/wait-groups';
import type {
  Overview,
  OverviewFinding,
  OverviewLaunch,
  OverviewLine,
  OverviewRelease,
  OverviewWhere,
} from '../core/overview/types';
import type { Trace } from '../core/trace/model';
import { el } from './dom';
import { simulateFixButton } from './findings';
import { formatNs } from './format';
import { drawChart } from './overview-chart';

export interface OverviewActions {
  /** Shows a call in the timeline: its tab in front, the call selected and in view. */
  showCall(call: number): void;
  /** Shows iterations `first` to `first + count - 1` in the timeline. */
  showIterations(first: number, count: number): void;
  /** Absent where no editor opens files (the standalone page): file:line is then text. */
  openSource?: (file: string, line: number) => void;
  /** Absent where the host cannot simulate fixes. */
  simulateFix?: (finding: number) => void;
}

/** A long path as its last two parts: the whole path is the title and what the link opens. */
const shortPath = (file: string): string => {
  const parts = file.split(/[\\/]/);
  return parts.length > 3 ? `…/${parts.slice(-2).join('/')}` : file;
};

/** file:line, a link where an editor opens it. */
function fileLine(file: string, line: number, open?: (file: string, line: number) => void): HTMLElement {
  const text = `${shortPath(file)}${line > 0 ? `:${line}` : ''}`;
  const title = `${file}${line > 0 ? `:${line}` : ''}`;
  if (!open) return el('span', { class: 'ov-file', title }, text);
  const a = el('a', { href: '#', class: 'source-link ov-file', title: `Open ${title}` }, text);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    e.stopPropagation();
    open(file, line);
  });
  return a;
}

/** `words` (describe.ts's) with the file:line in them shown by fileLine. */
function withFileLine(
  words: string,
  file: string,
  line: number,
  open: ((file: string, line: number) => void) | undefined,
  cls: string,
): HTMLElement {
  const at = words.indexOf(file);
  if (at < 0) return el('span', { class: cls }, words);
  const end = at + file.length + (line > 0 ? `:${line}`.length : 0);
  return el('span', { class: cls }, words.slice(0, at), fileLine(file, line, open), words.slice(end));
}

/**
 * Where, in siteLabel's words: "train.py:42 in loop()", "in loop() (train.py:8)", or the op context;
 * a helper's waits add the line that called it: "train.py:11 in to_host(), called from train.py:16".
 */
function whereNode(where: OverviewWhere, open?: (file: string, line: number) => void): HTMLElement {
  if ('context' in where)
    return el('span', { class: 'ov-where ov-context', title: 'Op context: the trace has no line' }, where.context);
  const { precision, calledFrom, ...frame } = where;
  const node = withFileLine(siteLabel({ frame, precision, stack: [] }), where.file, where.line, open, 'ov-where');
  if (calledFrom) node.append(', called from ', fileLine(calledFrom.file, calledFrom.line, open));
  return node;
}

/** A figure per iteration where the window has iterations, else the total. */
function figure(totalNs: number, perIterationNs: number | undefined): [string, string] {
  return perIterationNs !== undefined
    ? [`${formatNs(perIterationNs)} / iteration`, `${formatNs(totalNs)} in the window`]
    : [formatNs(totalNs), 'in the window'];
}

function showButton(call: number | undefined, actions: OverviewActions): HTMLElement | null {
  if (call === undefined) return null;
  const b = el(
    'button',
    { type: 'button', class: 'ov-show', title: 'Select this call in the timeline' },
    'Show in timeline',
  );
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    actions.showCall(call);
  });
  return b;
}

/** A row that shows its call in the timeline when clicked anywhere but on its own links and buttons. */
function clickable(row: HTMLElement, call: number | undefined, actions: OverviewActions): HTMLElement {
  if (call === undefined) row.classList.add('static');
  else row.addEventListener('click', () => actions.showCall(call));
  return row;
}

/** The window's sentence names each iteration left out and why: nothing else lists them. */
function windowSection(o: Overview): HTMLElement {
  return el(
    'section',
    { class: 'ov-section ov-window' },
    el('h2', { class: 'ov-title' }, 'Recorded window'),
    el('p', { class: 'ov-sentence' }, o.window.text),
    o.simulatedPart ? el('p', { class: 'ov-sentence' }, o.simulatedPart) : null,
  );
}

/** `, queued behind 27 ops, the last multi_tensor_apply_kernel, launched at train.py:22`. */
function queuedNode(q: NonNullable<OverviewRelease['queuedBehind']>, open: OverviewActions['openSource']): HTMLElement {
  return el(
    'span',
    {},
    q.ops > 1 ? `, queued behind ${q.ops} ops, the last ` : ', queued behind ',
    el('span', { class: 'ov-op', title: q.name }, q.shortName),
    q.launch ? el('span', {}, ', ', launchNode(q.launch, open)) : null,
  );
}

function lineRow(l: OverviewLine, rank: number, actions: OverviewActions): HTMLElement {
  const [main, sub] = figure(l.blockedNs, l.perIterationNs);
  const r = l.releasedBy;
  const released = r
    ? el(
        'span',
        { class: 'ov-released' },
        `released by `,
        el('span', { class: 'ov-op', title: r.name }, r.shortName),
        ` on ${r.stream}`,
        r.launch ? el('span', {}, ', ', launchNode(r.launch, actions.openSource)) : null,
        r.queuedBehind ? queuedNode(r.queuedBehind, actions.openSource) : null,
        ' ',
        el(
          'span',
          { class: `ov-how ov-how-${r.how}`, title: 'How the releasing op is known' },
          RELEASE_BASIS_LABEL[r.how],
        ),
      )
    : el('span', { class: 'ov-released' }, l.releasedByText);
  const share = Math.max(0, Math.min(1, l.share));
  const bar = el('span', { class: 'ov-share', title: `${Math.round(share * 100)}% of the window's blocked host time` });
  const fill = el('span', { class: 'ov-share-fill' });
  fill.style.width = `${(share * 100).toFixed(1)}%`;
  bar.append(fill);
  return clickable(
    el(
      'li',
      { class: 'ov-row ov-line' },
      el('span', { class: 'ov-rank' }, String(rank)),
      el('div', { class: 'ov-head' }, whereNode(l.where, actions.openSource)),
      el('div', { class: 'ov-text ov-detail' }, released),
      el(
        'div',
        { class: 'ov-actions' },
        el('span', { class: 'ov-note' }, `${l.waits} wait${l.waits === 1 ? '' : 's'}; shows the longest`),
        showButton(l.longest, actions),
      ),
      el(
        'div',
        { class: 'ov-figure' },
        el('span', { class: 'ov-main' }, main),
        el('span', { class: 'ov-sub' }, sub),
        el('span', { class: 'ov-share-row' }, bar, el('span', { class: 'ov-pct' }, `${Math.round(share * 100)}%`)),
      ),
    ),
    l.longest,
    actions,
  );
}

/** "launched at train.py:20 in step()", the file:line a link where an editor opens it. */
function launchNode(launch: OverviewLaunch, open?: (file: string, line: number) => void): HTMLElement {
  const precision = launch.precision ?? 'line';
  return withFileLine(launchedText({ ...launch, precision }), launch.file, launch.line, open, 'ov-launch');
}

function savingNode(f: OverviewFinding): HTMLElement {
  if (f.predictedSavingNs === undefined)
    return el(
      'div',
      { class: 'ov-figure ov-none' },
      el('span', { class: 'ov-sub' }, `No prediction: ${f.noSaving ?? 'unknown'}`),
    );
  const costs = f.isCost || f.predictedSavingNs < 0;
  const magnitude = (ns: number | undefined) => (ns === undefined ? undefined : Math.abs(ns));
  const [main, sub] = figure(Math.abs(f.predictedSavingNs), magnitude(f.perIterationNs));
  return el(
    'div',
    { class: `ov-figure ${costs ? 'ov-cost' : 'ov-saving'}` },
    el('span', { class: 'ov-main' }, `${costs ? 'costs' : 'saves'} ${main}`),
    el('span', { class: 'ov-sub' }, costs && f.isCost ? `${sub}; the fix adds a wait` : sub),
  );
}

function findingRow(f: OverviewFinding, rank: number, trace: Trace, actions: OverviewActions): HTMLElement {
  const finding = trace.findings[f.index];
  return clickable(
    el(
      'li',
      { class: `ov-row ov-finding ov-sev-${f.severity}` },
      el('span', { class: 'ov-rank' }, String(rank)),
      el(
        'div',
        { class: 'ov-head' },
        el('span', { class: 'ov-id' }, f.id),
        el('span', { class: 'ov-kind' }, f.kind),
        el('span', { class: 'sev' }, f.severity),
      ),
      el('div', { class: 'ov-text ov-message' }, f.message),
      f.where ? el('div', { class: 'ov-place ov-detail' }, whereNode(f.where, actions.openSource)) : null,
      el(
        'div',
        { class: 'ov-actions' },
        showButton(f.call, actions),
        finding ? simulateFixButton(trace, finding, actions.simulateFix) : null,
      ),
      savingNode(f),
    ),
    f.call,
    actions,
  );
}

function listSection(title: string, note: string, empty: string, rows: HTMLElement[], cls: string): HTMLElement {
  return el(
    'section',
    { class: `ov-section ${cls}` },
    el('h2', { class: 'ov-title' }, title),
    note ? el('p', { class: 'ov-caption' }, note) : null,
    rows.length ? el('ol', { class: 'ov-list' }, ...rows) : el('p', { class: 'hint' }, empty),
  );
}

/** The overview of `trace` in `box`; the chart follows the box's width (redraw on resize). */
export class OverviewPanel {
  readonly root = el('div', { class: 'overview' });
  private readonly chartBox = el('div', { class: 'ov-chart-box' });
  private readonly tip = el('div', { class: 'tooltip', role: 'tooltip' });
  private drawn: { o: Overview; width: number } | null = null;
  private overview: Overview | null = null;
  private actions: OverviewActions | null = null;

  constructor() {
    this.tip.hidden = true;
    new ResizeObserver(() => this.drawChart()).observe(this.chartBox);
  }

  show(o: Overview, trace: Trace, actions: OverviewActions): void {
    this.overview = o;
    this.actions = actions;
    this.drawn = null;
    const chart = el(
      'section',
      { class: 'ov-section ov-iterations' },
      el('h2', { class: 'ov-title' }, 'Where each iteration’s time goes'),
      o.iterations.length
        ? this.chartBox
        : el('p', { class: 'hint' }, 'No iterations: the window is counted as a whole.'),
    );
    const lines = listSection(
      'Lines that block the host longest',
      '',
      'No wait blocked the host.',
      o.lines.map((l, i) => lineRow(l, i + 1, actions)),
      'ov-lines',
    );
    const findings = listSection(
      'What to fix first',
      o.profile ? `Savings predicted by the simulator with the ${o.profile} profile.` : '',
      'No findings.',
      o.findings.map((f, i) => findingRow(f, i + 1, trace, actions)),
      'ov-findings',
    );
    this.root.replaceChildren(windowSection(o), chart, lines, findings, this.tip);
    this.drawChart();
  }

  clear(): void {
    this.overview = null;
    this.drawn = null;
    this.root.replaceChildren();
  }

  /** Draws the chart for the box's width, unless drawn for it already (or hidden: no width). */
  drawChart(): void {
    const o = this.overview;
    const width = this.chartBox.clientWidth;
    if (!o || !this.actions || !width || (this.drawn?.o === o && this.drawn.width === width)) return;
    this.drawn = { o, width };
    const actions = this.actions;
    drawChart(
      this.chartBox,
      o.iterations,
      { show: (l, x, y) => this.showTip(l, x, y), hide: () => (this.tip.hidden = true) },
      (first, count) => actions.showIterations(first, count),
    );
  }

  private showTip(lines: string[], cx: number, cy: number): void {
    const tip = this.tip;
    tip.replaceChildren(...lines.map((l, k) => el('div', { class: k ? '' : 'tip-title' }, l)));
    tip.hidden = false;
    const w = tip.offsetWidth;
    tip.style.left = `${Math.max(4, Math.min(cx + 14, window.innerWidth - w - 8))}px`;
    tip.style.top = `${cy + 16}px`;
  }
}
