// The timeline page: toolbar, row headers, canvas, details, findings and legend, wired to the host
// through the protocol messages. State that should survive a reload (viewport, selection, toggles)
// goes through the host's getState/setState.
import { waitRows } from '../core/analyze/wait-groups';
import type { Overview } from '../core/overview/types';
import type { Offer, ToWebview } from '../core/protocol';
import type { Trace } from '../core/trace/model';
import { ConeFinder } from './cone';
import { renderDetails, itemLabel } from './details';
import { button, el } from './dom';
import { renderFindings } from './findings';
import { formatNs } from './format';
import type { HostApi } from './host';
import { dragToResize, LayoutPrefs, planLayout } from './layout';
import { renderLegend } from './legend';
import { releaseArrowLines } from './release-tip';
import { buildRows, layoutRows, Row, Rows } from './rows';
import { OverviewActions, OverviewPanel } from './overview';
import { findMatches } from './search';
import { TabName, Tabs } from './tabs';
import { watchTheme } from './theme';
import { ArrowKind, Item, TimelineView } from './view';
import { WaitsTable } from './waits-table';

/** What one trace's view keeps. */
interface TraceState {
  key: string;
  t0: number;
  t1: number;
  scrollTop: number;
  selection: Item | null;
  arrows: Record<ArrowKind, boolean>;
  collapsed: string[];
  /** Host threads whose Python frames are all shown, by lane id. */
  unfolded: number[];
  /** The tab in front, where the trace has an overview. */
  tab?: TabName;
}

/** The panel's state: the last trace's view, and the layout, which outlives traces. */
type Saved = Partial<TraceState> & { layout?: LayoutPrefs };

const HELP =
  'Wheel or W/S: zoom · drag or A/D: pan · shift+wheel: scroll rows · shift+drag: measure · F: fit · Z: zoom to selection · Esc: clear';

export class TimelineApp {
  trace: Trace | null = null;
  view: TimelineView | null = null;
  rows: Rows | null = null;
  private cones: ConeFinder | null = null;
  private unfolded = new Set<number>();
  private matches: Item[] = [];
  private matchIndex = -1;
  private key = '';
  /** The buttons the host offers for this trace. */
  private offers: Offer[] = [];
  /** The range last told to the host, or shown from a linked timeline. */
  private told?: [number, number];
  /** True while a linked timeline's range is being shown. */
  private following = false;
  private readonly ui = buildLayout();
  private readonly prefs: LayoutPrefs;
  /** What to fix first, where the host sent it for this trace. */
  overview: Overview | null = null;
  readonly overviewPanel = new OverviewPanel();
  readonly tabs: Tabs;
  /** The user has worked in the timeline since the trace came: an overview sent later does not take its place. */
  private touched = false;
  /** The tab the view's saved state had in front, kept until the overview arrives (a reload restores it). */
  private restoredTab?: TabName;
  readonly waits = new WaitsTable((call) => this.select({ table: 'calls', id: call }, true, true));
  /** True once the waits of the trace last loaded are listed (they follow its first frame). */
  waitsReady = false;

  constructor(
    root: HTMLElement,
    private readonly host: HostApi,
  ) {
    this.prefs = { ...(this.saved().layout ?? {}) };
    this.tabs = new Tabs({ overview: this.ui.overviewBox, timeline: this.ui.main }, (tab, byUser) =>
      this.tabShown(tab, byUser),
    );
    this.ui.tools.before(this.tabs.root);
    this.ui.overviewBox.append(this.overviewPanel.root);
    this.tabs.visible = false;
    this.tabs.show('timeline');
    root.replaceChildren(this.ui.root);
    this.ui.waitsBox.append(this.waits.root);
    this.wireToolbar();
    this.wireLayout();
    renderLegend(this.ui.legend);
    renderDetails(this.ui.details, emptyTrace, null, this.actions);
    const resized = new ResizeObserver(() => this.view?.resize());
    resized.observe(this.ui.scroller);
    resized.observe(this.ui.plot);
    new ResizeObserver(() => this.applyLayout()).observe(this.ui.root);
    watchTheme(() => this.view?.themeChanged());
    window.addEventListener('keydown', (e) => this.onKey(e));
    const touch = () => (this.touched = true);
    for (const box of [this.ui.main, this.ui.tools]) {
      box.addEventListener('pointerdown', touch, true);
      box.addEventListener('keydown', touch, true);
    }
  }

  receive(msg: ToWebview): void {
    switch (msg.type) {
      case 'trace':
        this.offers = msg.offers ?? [];
        this.ui.openScenario.hidden = !this.offers.includes('openScenario');
        this.load(msg.trace, msg.title, msg.origin, msg.range, msg.overview);
        break;
      case 'overview':
        if (this.trace) this.showOverview(msg.overview, this.restoredTab);
        break;
      case 'select':
        this.select(
          msg.call !== undefined
            ? { table: 'calls', id: msg.call }
            : msg.op !== undefined
              ? { table: 'ops', id: msg.op }
              : null,
          msg.reveal ?? true,
          false,
        );
        break;
      case 'showRange':
        this.follow(msg.range);
        break;
      case 'status':
        this.ui.status.textContent = msg.text;
        this.ui.status.classList.toggle('busy', msg.busy);
        break;
      case 'error':
        this.clearStatus();
        this.ui.error.textContent = msg.message;
        this.ui.error.hidden = false;
        break;
    }
  }

  load(trace: Trace, title: string, origin?: string, range?: [number, number], overview?: Overview): void {
    this.trace = trace;
    this.touched = false;
    this.overview = null;
    this.overviewPanel.clear();
    this.cones = new ConeFinder(trace);
    this.ui.error.hidden = true;
    this.clearStatus();
    this.ui.title.textContent = title;
    this.ui.origin.textContent = origin ?? describeSource(trace, title);
    this.key = `${title}|${trace.calls.count}|${trace.ops.count}`;
    const saved = this.saved();
    const state = saved.key === this.key ? (saved as TraceState) : undefined;
    this.unfolded = new Set(state?.unfolded ?? []);
    this.rows = buildRows(trace, new Set(state?.collapsed ?? []), this.unfolded);
    renderLegend(this.ui.legend, this.rows.groups.filter((g) => g.key !== 'host').length > 1);
    this.renderHeaders();
    this.view?.dispose();
    this.view = new TimelineView(trace, this.rows, this.ui.canvas, this.ui.axis, this.ui.scroller, {
      select: (item) => this.select(item, false, true),
      hover: (item, cx, cy) => this.hover(item, cx, cy),
      hoverRelease: (edge, cx, cy) => this.hoverRelease(edge, cx, cy),
      viewChanged: () => {
        this.save();
        this.tellRange();
      },
    });
    if (state) {
      Object.assign(this.view.arrows, state.arrows);
      for (const k of Object.keys(this.ui.arrowBoxes) as ArrowKind[])
        this.ui.arrowBoxes[k].checked = this.view.arrows[k];
      this.view.setViewport(state.t0, state.t1);
      this.ui.scroller.scrollTop = state.scrollTop;
    } else if (range) this.view.setViewport(range[0], range[1]);
    this.listFindings(trace);
    // The previous trace's waits go now; this one's are listed after the first frame.
    this.waitsReady = false;
    this.waits.load(trace, []);
    this.ui.waitsCount.textContent = '';
    this.select(state?.selection ?? null, false, false);
    this.restoredTab = state?.tab;
    if (overview) this.showOverview(overview, state?.tab ?? 'overview');
    else {
      this.tabs.visible = false;
      this.tabs.show('timeline');
    }
    this.view.draw();
    // The timeline draws first: at 10^7 ops the waits table's rows take seconds to build, and the
    // first frame does not need them. They are listed in a task after that frame is painted.
    requestAnimationFrame(() => setTimeout(() => this.listWaits(trace)));
  }

  /** The findings list, ranked by the overview's predicted savings once it came. */
  private listFindings(trace: Trace): void {
    const pick = (item: Item) => this.select(item, 'zoom', true);
    renderFindings(this.ui.findings, trace, pick, this.actions.simulateFix, this.overview?.findings);
    this.ui.findingsCount.textContent = String(trace.findings.length);
  }

  private listWaits(trace: Trace): void {
    if (this.trace !== trace) return;
    const waits = waitRows(trace);
    this.waits.load(trace, waits);
    this.ui.waitsCount.textContent = String(waits.length);
    const selected = this.view?.selection;
    this.waits.setSelected(selected?.table === 'calls' ? selected.id : null);
    this.waitsReady = true;
  }

  /**
   * Draws the overview and shows the tabs. `tab`: the tab to bring to front; else the overview comes
   * to front the first time, unless the user has worked in the timeline meanwhile, and an overview
   * made again replaces the old one where it is.
   */
  private showOverview(overview: Overview, tab?: TabName): void {
    const t = this.trace;
    if (!t) return;
    const first = !this.overview;
    this.overview = overview;
    this.restoredTab = undefined;
    this.tabs.visible = true;
    this.overviewPanel.show(overview, t, this.overviewActions);
    this.listFindings(t);
    if (tab) this.tabs.show(tab);
    else if (first && !this.touched) this.tabs.show('overview');
  }

  private get overviewActions(): OverviewActions {
    return {
      showCall: (call) => {
        this.tabs.show('timeline', true);
        this.select({ table: 'calls', id: call }, 'zoom', true);
      },
      showIterations: (first, count) => {
        const its = this.overview?.iterations ?? [];
        const a = its[first];
        const b = its[first + count - 1] ?? a;
        if (!a) return;
        this.tabs.show('timeline', true);
        this.view?.setViewport(a.beginNs, b.endNs);
      },
      openSource: this.offers.includes('openSource') ? this.actions.openSource : undefined,
      simulateFix: this.actions.simulateFix,
    };
  }

  /** After a tab comes to front: the timeline fits its canvas to the box it had none of while hidden. */
  private tabShown(tab: TabName, byUser: boolean): void {
    this.ui.tools.hidden = tab !== 'timeline';
    this.ui.tooltip.hidden = true;
    if (tab === 'timeline') {
      this.applyLayout();
      this.view?.resize();
    } else this.overviewPanel.drawChart();
    if (byUser) this.save();
  }

  /** A busy status belongs to the work whose trace or error has now arrived. */
  private clearStatus(): void {
    this.ui.status.textContent = '';
    this.ui.status.classList.remove('busy');
  }

  get actions() {
    return {
      select: (item: Item) => this.select(item, true, true),
      revealSource: (line: number, column: number) => this.host.postMessage({ type: 'revealSource', line, column }),
      openSource: (file: string, line: number) => this.host.postMessage({ type: 'openSource', file, line }),
      simulateFix: this.offers.includes('simulateFix')
        ? (finding: number) => this.host.postMessage({ type: 'simulateFix', finding })
        : undefined,
    };
  }

  select(item: Item | null, reveal: boolean | 'zoom', tell: boolean): void {
    const t = this.trace;
    const v = this.view;
    if (!t || !v) return;
    if (item && (item.id < 0 || item.id >= (item.table === 'calls' ? t.calls.count : t.ops.count))) item = null;
    // A frame folded away (a search match, a restored selection) is shown by unfolding its thread.
    if (item && v.trackOf(item).hidden) this.toggleFold(t.calls.lane[item.id]);
    v.setSelection(item, item && this.cones ? this.cones.of(item) : null);
    renderDetails(this.ui.details, t, item, this.actions);
    this.waits.setSelected(item?.table === 'calls' ? item.id : null);
    // What the canvas selects, readable where the page's script is not (a test inside VS Code).
    this.ui.canvas.dataset.selected = item ? `${item.table}:${item.id}` : '';
    if (item && reveal) v.reveal(item, reveal === 'zoom');
    if (tell)
      this.host.postMessage({
        type: 'selected',
        ...(item ? (item.table === 'calls' ? { call: item.id } : { op: item.id }) : {}),
      });
    this.save();
  }

  /** Shows a linked timeline's range, without telling it back. */
  private follow(range: [number, number]): void {
    if (!this.view) return;
    this.following = true;
    try {
      this.view.setViewport(range[0], range[1]);
    } finally {
      this.following = false;
    }
    this.told = this.view.visibleRange();
  }

  /** Tells the host the range in view when it moved, for a linked timeline to follow. */
  private tellRange(): void {
    if (this.following || !this.view) return;
    const range = this.view.visibleRange();
    if (this.told && range[0] === this.told[0] && range[1] === this.told[1]) return;
    this.told = range;
    this.host.postMessage({ type: 'viewed', range });
  }

  private saved(): Saved {
    const s = this.host.getState();
    return s && typeof s === 'object' ? (s as Saved) : {};
  }

  private save(): void {
    const v = this.view;
    if (!v || !this.rows) {
      this.host.setState({ ...this.saved(), layout: this.prefs });
      return;
    }
    const [t0, t1] = v.visibleRange();
    const state: Saved = {
      key: this.key,
      t0,
      t1,
      scrollTop: this.ui.scroller.scrollTop,
      selection: v.selection,
      arrows: { ...v.arrows },
      collapsed: this.rows.groups.filter((g) => g.collapsed).map((g) => g.key),
      unfolded: [...this.unfolded],
      tab: this.overview ? this.tabs.current : this.restoredTab,
      layout: this.prefs,
    };
    this.host.setState(state);
  }

  /** Places the drawer beside or below the timeline and sizes the lane labels for the panel's width. */
  applyLayout(): void {
    const ui = this.ui;
    const plan = planLayout(ui.root.clientWidth, ui.main.clientHeight || ui.root.clientHeight, this.prefs);
    const open = this.prefs.drawerOpen !== false;
    ui.main.classList.toggle('layout-side', plan.mode === 'side');
    ui.main.classList.toggle('layout-bottom', plan.mode === 'bottom');
    ui.main.classList.toggle('drawer-closed', !open);
    ui.drawer.style.width = plan.mode === 'side' ? `${plan.sideWidth}px` : '';
    ui.drawer.style.height = plan.mode === 'bottom' && open ? `${plan.drawerHeight}px` : '';
    ui.splitter.setAttribute('aria-orientation', plan.mode === 'side' ? 'vertical' : 'horizontal');
    ui.root.style.setProperty('--label-w', `${plan.labelWidth}px`);
    const collapsed = !!this.prefs.labelsCollapsed;
    ui.headers.classList.toggle('labels-collapsed', collapsed);
    ui.labelsToggle.textContent = collapsed ? '›' : '‹';
    ui.labelsToggle.title = collapsed ? 'Show lane labels' : 'Hide lane labels';
    ui.labelsToggle.setAttribute('aria-expanded', String(!collapsed));
    ui.drawerToggle.setAttribute('aria-pressed', String(open));
    ui.drawerToggle.classList.toggle('on', open);
  }

  private wireLayout(): void {
    const ui = this.ui;
    const prefs = this.prefs;
    // The legend is open the first time a panel shows a timeline; after that it starts folded,
    // unless it was left open.
    ui.legendBox.open = prefs.legendOpen ?? true;
    prefs.legendOpen ??= false;
    ui.legendSummary.addEventListener('click', () => {
      prefs.legendOpen = !ui.legendBox.open;
      this.save();
    });
    ui.labelsToggle.addEventListener('click', () => {
      prefs.labelsCollapsed = !prefs.labelsCollapsed;
      this.applyLayout();
      this.save();
    });
    ui.drawerToggle.addEventListener('click', () => {
      prefs.drawerOpen = prefs.drawerOpen === false;
      this.applyLayout();
      this.save();
    });
    dragToResize(
      ui.splitter,
      () => (ui.main.classList.contains('layout-side') ? ui.drawer.offsetWidth : ui.drawer.offsetHeight),
      (start, dx, dy) => {
        if (ui.main.classList.contains('layout-side')) prefs.sideWidth = start - dx;
        else {
          prefs.drawerHeight = start - dy;
          prefs.drawerOpen = true;
        }
        this.applyLayout();
      },
      () => this.save(),
    );
    this.applyLayout();
    this.save();
  }

  private hover(item: Item | null, cx: number, cy: number): void {
    const tip = this.ui.tooltip;
    const t = this.trace;
    if (!item || !t) {
      tip.hidden = true;
      return;
    }
    const [a, b] =
      item.table === 'calls'
        ? [t.calls.begin[item.id], t.calls.end[item.id]]
        : [t.ops.start[item.id], t.ops.end[item.id]];
    const lines = [itemLabel(t, item), `${formatNs(b - a)} at ${formatNs(a)}`];
    if (item.table === 'calls' && t.calls.blockedNs[item.id] > 0)
      lines.push(`blocked ${formatNs(t.calls.blockedNs[item.id])}`);
    if (item.table === 'calls' && Number.isFinite(t.calls.unblockNs[item.id]))
      lines.push(`unblocked ${formatNs(t.calls.unblockNs[item.id])} after the releasing op ended`);
    this.showTip(lines, cx, cy);
  }

  /** A release arrow under the pointer: the line that waited and the line that launched the op that released it. */
  private hoverRelease(edge: number, cx: number, cy: number): void {
    if (this.trace) this.showTip(releaseArrowLines(this.trace, edge), cx, cy);
  }

  private showTip(lines: string[], cx: number, cy: number): void {
    const tip = this.ui.tooltip;
    tip.replaceChildren(...lines.map((l, k) => el('div', { class: k ? '' : 'tip-title' }, l)));
    tip.hidden = false;
    const w = tip.offsetWidth;
    tip.style.left = `${Math.min(cx + 14, window.innerWidth - w - 8)}px`;
    tip.style.top = `${cy + 16}px`;
  }

  /** Folds or unfolds a host thread's Python frames (fold.ts), keeping the time in view and the selection. */
  private toggleFold(lane: number): void {
    const t = this.trace;
    const old = this.rows;
    if (!t || !old || !this.view) return;
    if (!this.unfolded.delete(lane)) this.unfolded.add(lane);
    this.rows = buildRows(t, new Set(old.groups.filter((g) => g.collapsed).map((g) => g.key)), this.unfolded);
    this.view.setRows(this.rows);
    this.renderHeaders();
    this.save();
  }

  private renderHeaders(): void {
    const rows = this.rows;
    if (!rows) return;
    const box = this.ui.headers;
    box.replaceChildren();
    this.ui.content.style.height = `${rows.height}px`;
    rows.groups.forEach((g) => {
      const head = el(
        'button',
        {
          type: 'button',
          class: 'group-header',
          'aria-expanded': String(!g.collapsed),
          title: g.collapsed ? 'Expand' : 'Collapse',
        },
        el('span', { class: 'twisty' }, g.collapsed ? '▸' : '▾'),
        el('span', { class: 'group-title' }, g.title),
      );
      head.style.top = `${g.y}px`;
      head.addEventListener('click', () => {
        g.collapsed = !g.collapsed;
        layoutRows(rows);
        this.renderHeaders();
        this.view?.request();
        this.save();
      });
      box.append(head);
      if (g.collapsed) return;
      for (const r of g.rows) {
        const h = el(
          'div',
          { class: `row-header ${r.lane.kind}` },
          r.fold && this.foldButton(r.lane.id, r.fold),
          el('span', { class: 'row-title' }, r.title),
          ...r.flags.map((f) => el('span', { class: 'flag' }, f)),
        );
        h.title = [r.title, ...r.flags].join(' · ');
        h.style.top = `${r.y}px`;
        h.style.height = `${r.h}px`;
        box.append(h);
      }
    });
  }

  /** The row header's switch between the user's Python frames and the whole stack. */
  private foldButton(lane: number, fold: NonNullable<Row['fold']>): HTMLButtonElement {
    const b = el(
      'button',
      {
        type: 'button',
        class: 'fold-toggle',
        'aria-expanded': String(!fold.folded),
        'data-lane': String(lane),
        title: fold.folded
          ? `Python stack folded to your code${fold.saves > 0 ? ` (${fold.saves} rows of library and launcher frames hidden)` : ''}: click to show every frame`
          : 'Every Python frame is shown: click to fold the stack to your code',
      },
      fold.folded ? (fold.saves > 0 ? `+${fold.saves}` : '+') : '−',
    );
    b.addEventListener('click', () => this.toggleFold(lane));
    return b;
  }

  private wireToolbar(): void {
    const ui = this.ui;
    const runSearch = (step: number) => {
      const t = this.trace;
      if (!t) return;
      if (ui.search.dataset.query !== ui.search.value) {
        ui.search.dataset.query = ui.search.value;
        this.matches = findMatches(t, ui.search.value);
        this.matchIndex = -1;
      }
      if (!this.matches.length) {
        ui.matchCount.textContent = ui.search.value.trim() ? 'no match' : '';
        return;
      }
      this.matchIndex = (this.matchIndex + step + this.matches.length) % this.matches.length;
      ui.matchCount.textContent = `${this.matchIndex + 1} / ${this.matches.length}`;
      this.select(this.matches[this.matchIndex], true, true);
    };
    ui.search.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') runSearch(e.shiftKey ? -1 : 1);
      if (e.key === 'Escape') ui.search.blur();
    });
    ui.prev.addEventListener('click', () => runSearch(-1));
    ui.next.addEventListener('click', () => runSearch(1));
    ui.fit.addEventListener('click', () => this.view?.fit());
    ui.openScenario.addEventListener('click', () => this.host.postMessage({ type: 'openScenario' }));
    ui.zoomSel.addEventListener('click', () => this.zoomToSelection());
    ui.ruler.addEventListener('click', () => {
      if (!this.view) return;
      this.view.rulerMode = !this.view.rulerMode;
      ui.ruler.setAttribute('aria-pressed', String(this.view.rulerMode));
      ui.ruler.classList.toggle('on', this.view.rulerMode);
    });
    for (const k of Object.keys(ui.arrowBoxes) as ArrowKind[]) {
      ui.arrowBoxes[k].addEventListener('change', () => {
        if (!this.view) return;
        this.view.arrows[k] = ui.arrowBoxes[k].checked;
        this.view.request();
        this.save();
      });
    }
  }

  private zoomToSelection(): void {
    if (this.view?.selection) this.view.reveal(this.view.selection, true);
  }

  private onKey(e: KeyboardEvent): void {
    const v = this.view;
    if (!v || e.ctrlKey || e.metaKey || e.altKey || this.tabs.current !== 'timeline') return;
    const target = e.target as HTMLElement | null;
    if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA')) return;
    const key = e.key.toLowerCase();
    const handled = true;
    if (key === 'w') v.zoomBy(1.3, v.pointer);
    else if (key === 's') v.zoomBy(1 / 1.3, v.pointer);
    else if (key === 'a') v.panBy(-0.15);
    else if (key === 'd') v.panBy(0.15);
    else if (key === 'f') v.fit();
    else if (key === 'z') this.zoomToSelection();
    else if (key === '/') this.ui.search.focus();
    else if (key === 'escape') {
      if (v.ruler) {
        v.ruler = null;
        v.request();
      } else this.select(null, false, true);
    } else return;
    if (handled) e.preventDefault();
  }
}

/** Where the trace came from, without repeating the title (a scenario's trace is titled by its name). */
function describeSource(t: Trace, title: string): string {
  const m = t.meta;
  const parts: string[] = [m.source];
  if (m.device?.name) parts.push(m.device.name);
  if (m.scenario?.name && m.scenario.name !== title) parts.push(m.scenario.name);
  if (m.alignmentErrorNs) parts.push(`clock alignment ±${formatNs(m.alignmentErrorNs)}`);
  return parts.join(' · ');
}

const emptyTrace = { findings: [] } as unknown as Trace;

function buildLayout() {
  const title = el('h1', { class: 'title' }, 'Syncscope');
  const origin = el('span', { class: 'origin' });
  const search = el('input', {
    type: 'search',
    placeholder: 'Search names  (/)',
    'aria-label': 'Search by name',
    class: 'search',
  });
  const prev = el('button', { type: 'button', title: 'Previous match (shift+Enter)', class: 'icon' }, '‹');
  const next = el('button', { type: 'button', title: 'Next match (Enter)', class: 'icon' }, '›');
  const matchCount = el('span', { class: 'match-count', 'aria-live': 'polite' });
  const fit = button('Fit', 'Show the whole trace (F)', () => undefined);
  const zoomSel = button('Zoom to selection', 'Zoom to the selected call or op (Z)', () => undefined);
  const ruler = button('Ruler', 'Measure: drag across the timeline (or shift+drag at any time)', () => undefined);
  ruler.setAttribute('aria-pressed', 'false');
  const openScenario = button(
    'Open as Scenario',
    'Open what this timeline shows as an editable scenario',
    () => undefined,
  );
  openScenario.hidden = true;
  const drawerToggle = button('Panels', 'Show or hide the details, waits, findings and legend', () => undefined);
  const arrowBoxes = {} as Record<ArrowKind, HTMLInputElement>;
  const arrowLabels = (['launch', 'event', 'release'] as ArrowKind[]).map((k) => {
    arrowBoxes[k] = el('input', { type: 'checkbox', class: `arrow-${k}` });
    arrowBoxes[k].checked = true;
    return el('label', { class: `toggle toggle-${k}`, title: `Show ${k} arrows` }, arrowBoxes[k], k);
  });
  const status = el('span', { class: 'status', 'aria-live': 'polite' });
  const error = el('div', { class: 'error', role: 'alert' });
  error.hidden = true;
  // The timeline's own tools, hidden while the overview is in front; the status serves both.
  const tools = el(
    'div',
    { class: 'tools' },
    search,
    prev,
    next,
    matchCount,
    fit,
    zoomSel,
    ruler,
    el('span', { class: 'arrows', title: 'Arrows' }, ...arrowLabels),
    drawerToggle,
    openScenario,
    el('span', { class: 'help', title: HELP, tabindex: '0' }, '?'),
  );
  const toolbar = el('header', { class: 'toolbar' }, el('div', { class: 'heading' }, title, origin), tools, status);
  const axis = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  axis.classList.add('axis');
  axis.setAttribute('height', '24');
  const canvas = el('canvas', { class: 'plot-canvas', 'aria-label': 'Timeline', tabindex: '0' });
  const headers = el('div', { class: 'headers' });
  const plot = el('div', { class: 'plot' }, canvas);
  const content = el('div', { class: 'content' }, headers, plot);
  const scroller = el('div', { class: 'scroller' }, content);
  const labelsToggle = el('button', { type: 'button', class: 'labels-toggle icon' }, '‹');
  const timeline = el(
    'section',
    { class: 'timeline' },
    el('div', { class: 'axis-row' }, el('div', { class: 'corner' }, labelsToggle), axis),
    scroller,
  );
  const details = el('div', { class: 'details' });
  const findings = el('div', { class: 'findings-box' });
  const findingsCount = el('span', { class: 'count' }, '0');
  const legend = el('div', { class: 'legend-box' });
  const legendSummary = el('summary', {}, 'Legend');
  const legendBox = el('details', { class: 'panel legend-panel' }, legendSummary, legend);
  const waitsBox = el('div', { class: 'waits-box' });
  const waitsCount = el('span', { class: 'count' }, '0');
  const splitter = el('div', {
    class: 'splitter',
    role: 'separator',
    title: 'Drag to resize',
    'aria-label': 'Resize the panels',
  });
  const drawer = el(
    'aside',
    { class: 'drawer' },
    el('section', { class: 'panel details-panel' }, el('h2', { class: 'panel-title' }, 'Details'), details),
    el('section', { class: 'panel waits-panel' }, el('h2', { class: 'panel-title' }, 'Waits ', waitsCount), waitsBox),
    el(
      'div',
      { class: 'drawer-col' },
      el('section', { class: 'panel' }, el('h2', { class: 'panel-title' }, 'Findings ', findingsCount), findings),
      legendBox,
    ),
  );
  const tooltip = el('div', { class: 'tooltip', role: 'tooltip' });
  tooltip.hidden = true;
  const main = el('div', { class: 'main' }, timeline, splitter, drawer);
  const overviewBox = el('div', { class: 'overview-panel', tabindex: '-1' });
  const root = el('div', { class: 'app' }, toolbar, error, overviewBox, main, tooltip);
  return {
    root,
    main,
    overviewBox,
    tools,
    title,
    origin,
    search,
    prev,
    next,
    matchCount,
    fit,
    openScenario,
    zoomSel,
    ruler,
    arrowBoxes,
    drawerToggle,
    status,
    error,
    axis,
    canvas,
    labelsToggle,
    headers,
    plot,
    content,
    scroller,
    splitter,
    drawer,
    details,
    waitsBox,
    waitsCount,
    findings,
    findingsCount,
    legend,
    legendBox,
    legendSummary,
    tooltip,
  };
}
