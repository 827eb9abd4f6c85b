// The waits table: every host wait, sortable, optionally grouped (core/analyze/wait-groups), with
// only the rows in view in the DOM so that a trace of 10^5 waits scrolls as fast as one of ten.
import {
  GROUPING_TITLE,
  groupWaits,
  RELEASE_BASIS_LABEL,
  WAIT_GROUPINGS,
  WaitGroup,
  WaitGrouping,
  WaitRow,
} from '../core/analyze/wait-groups';
import { OP_KINDS, Trace, str } from '../core/trace/model';
import { shortKernelName } from '../core/trace/kernel-names';
import { el } from './dom';
import { formatNs } from './format';

export const WAIT_ROW_H = 22;
/** Rows drawn beyond the visible ones, so that a short scroll shows no gap. */
const OVERSCAN = 6;

type Dir = 1 | -1;
interface Column<T> {
  key: string;
  title: string;
  text(r: T): string;
  /** Sort value: numbers sort as numbers; null sorts last either way. */
  value(r: T): number | string | null;
  numeric?: boolean;
}

const sourceText = (s: NonNullable<WaitRow['source']>): string =>
  'file' in s ? `${s.file.slice(s.file.lastIndexOf('/') + 1)}:${s.line}` : `line ${s.line}`;

const where = (w: WaitRow): string =>
  [w.source ? sourceText(w.source) : '', w.context ?? ''].filter(Boolean).join(' · ');

function waitColumns(t: Trace): Column<WaitRow>[] {
  // A kernel shows its short name (the details pane keeps the full one).
  const opName = (op: number): string => {
    const name = str(t, t.ops.name[op]);
    return (OP_KINDS[t.ops.kind[op]] === 'kernel' ? shortKernelName(name) : name) || OP_KINDS[t.ops.kind[op]];
  };
  const released = (w: WaitRow): string =>
    w.releasedBy === null
      ? '—'
      : w.releasedBy < 0
        ? 'nothing pending'
        : (w.basis === 'timing' ? 'likely ' : '') + opName(w.releasedBy);
  return [
    {
      key: 'wait',
      title: 'Wait',
      text: (w) => (w.target ? `${w.kind}(${w.target})` : w.kind),
      value: (w) => `${w.kind}(${w.target})`,
    },
    { key: 'blocked', title: 'Blocked', text: (w) => formatNs(w.blockedNs), value: (w) => w.blockedNs, numeric: true },
    { key: 'released', title: 'Released by', text: released, value: released },
    { key: 'basis', title: 'Known', text: (w) => RELEASE_BASIS_LABEL[w.basis], value: (w) => w.basis },
    {
      key: 'unblock',
      title: 'Unblock',
      text: (w) => (w.unblockNs === null ? '—' : formatNs(w.unblockNs)),
      value: (w) => w.unblockNs,
      numeric: true,
    },
    { key: 'where', title: 'Where', text: where, value: (w) => (w.source ? w.source.line : where(w) || null) },
  ];
}

const GROUP_COLUMNS: Column<WaitGroup>[] = [
  { key: 'key', title: 'Group', text: (g) => g.key, value: (g) => g.key },
  { key: 'count', title: 'Count', text: (g) => String(g.count), value: (g) => g.count, numeric: true },
  {
    key: 'total',
    title: 'Total',
    text: (g) => formatNs(g.totalBlockedNs),
    value: (g) => g.totalBlockedNs,
    numeric: true,
  },
  { key: 'p50', title: 'p50', text: (g) => formatNs(g.p50BlockedNs), value: (g) => g.p50BlockedNs, numeric: true },
  { key: 'p95', title: 'p95', text: (g) => formatNs(g.p95BlockedNs), value: (g) => g.p95BlockedNs, numeric: true },
];

function compare<T>(col: Column<T>, dir: Dir): (a: T, b: T) => number {
  return (a, b) => {
    const x = col.value(a);
    const y = col.value(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    if (typeof x === 'number' && typeof y === 'number') return (x - y) * dir;
    return String(x).localeCompare(String(y)) * dir;
  };
}

/** One line of the flattened table: a wait, or a group with its waits below it when expanded. */
type Line = { wait: WaitRow; nested: boolean } | { group: WaitGroup };

export class WaitsTable {
  readonly root: HTMLElement;
  readonly grouping: HTMLSelectElement;
  private readonly head = el('div', { class: 'waits-head', role: 'row' });
  private readonly viewport = el('div', { class: 'waits-viewport', tabindex: '0' });
  private readonly spacer = el('div', { class: 'waits-spacer', role: 'rowgroup' });
  private rows: WaitRow[] = [];
  private byId = new Map<number, WaitRow>();
  private columns: Column<WaitRow>[] = [];
  private groups: WaitGroup[] = [];
  private expanded = new Set<string>();
  private lines: Line[] = [];
  private sort = { wait: { key: 'blocked', dir: -1 as Dir }, group: { key: 'total', dir: -1 as Dir } };
  private selected: number | null = null;
  private drawn = '';

  constructor(private readonly pick: (call: number) => void) {
    this.grouping = el(
      'select',
      { class: 'waits-grouping', 'aria-label': 'Group waits' },
      el('option', { value: '' }, 'No grouping'),
      ...WAIT_GROUPINGS.map((g) => el('option', { value: g }, `By ${GROUPING_TITLE[g]}`)),
    );
    this.grouping.addEventListener('change', () => {
      this.expanded.clear();
      this.refresh();
    });
    const table = el('div', { class: 'waits-table', role: 'grid' }, this.head, this.spacer);
    this.viewport.append(table);
    this.viewport.addEventListener('scroll', () => this.paint());
    new ResizeObserver(() => this.paint()).observe(this.viewport);
    this.root = el('div', { class: 'waits' }, el('div', { class: 'waits-tools' }, this.grouping), this.viewport);
  }

  get by(): WaitGrouping | null {
    return (this.grouping.value || null) as WaitGrouping | null;
  }

  setGrouping(by: WaitGrouping | null): void {
    this.grouping.value = by ?? '';
    this.expanded.clear();
    this.refresh();
  }

  load(t: Trace, rows: WaitRow[]): void {
    this.rows = rows;
    this.byId = new Map(rows.map((r) => [r.id, r]));
    this.columns = waitColumns(t);
    this.expanded.clear();
    this.selected = null;
    this.refresh();
  }

  setSelected(call: number | null): void {
    this.selected = call !== null && this.byId.has(call) ? call : null;
    for (const r of this.spacer.children)
      (r as HTMLElement).setAttribute(
        'aria-selected',
        String(Number((r as HTMLElement).dataset.call) === this.selected),
      );
  }

  /** Sorts by a column, or flips the order when it already sorts by it. */
  sortBy(key: string): void {
    const s = this.by ? this.sort.group : this.sort.wait;
    if (s.key === key) s.dir = (s.dir === 1 ? -1 : 1) as Dir;
    else {
      s.key = key;
      s.dir = key === 'wait' || key === 'key' || key === 'released' || key === 'where' || key === 'basis' ? 1 : -1;
    }
    this.refresh();
  }

  private refresh(): void {
    const byWait = compare(
      this.columns.find((c) => c.key === this.sort.wait.key) ?? this.columns[1],
      this.sort.wait.dir,
    );
    const by = this.by;
    if (by) {
      this.groups = groupWaits(this.rows, by).groups.sort(
        compare(GROUP_COLUMNS.find((c) => c.key === this.sort.group.key) ?? GROUP_COLUMNS[2], this.sort.group.dir),
      );
      this.lines = [];
      for (const g of this.groups) {
        this.lines.push({ group: g });
        if (this.expanded.has(g.key))
          for (const w of g.waits.map((id) => this.byId.get(id)!).sort(byWait))
            this.lines.push({ wait: w, nested: true });
      }
    } else this.lines = [...this.rows].sort(byWait).map((wait) => ({ wait, nested: false }));
    this.renderHead();
    this.spacer.style.height = `${this.lines.length * WAIT_ROW_H}px`;
    this.drawn = '';
    this.paint();
  }

  private renderHead(): void {
    const cols = this.by ? GROUP_COLUMNS : this.columns;
    const s = this.by ? this.sort.group : this.sort.wait;
    this.head.className = `waits-head ${this.by ? 'grouped' : 'flat'}`;
    this.head.replaceChildren(
      ...cols.map((c) => {
        const b = el(
          'button',
          {
            type: 'button',
            class: `waits-sort${c.numeric ? ' num' : ''}`,
            'data-key': c.key,
            role: 'columnheader',
            'aria-sort': c.key === s.key ? (s.dir === 1 ? 'ascending' : 'descending') : 'none',
            title: `Sort by ${c.title.toLowerCase()}`,
          },
          c.title,
          c.key === s.key ? (s.dir === 1 ? ' ▴' : ' ▾') : '',
        );
        b.addEventListener('click', () => this.sortBy(c.key));
        return b;
      }),
    );
  }

  /** Puts in the DOM the rows that the viewport shows, and no others. */
  private paint(): void {
    const top = this.viewport.scrollTop;
    const visible = Math.max(this.viewport.clientHeight, 10 * WAIT_ROW_H);
    const first = Math.max(0, Math.floor(top / WAIT_ROW_H) - OVERSCAN);
    const last = Math.min(this.lines.length, Math.ceil((top + visible) / WAIT_ROW_H) + OVERSCAN);
    const key = `${first}:${last}`;
    if (key === this.drawn) return;
    this.drawn = key;
    const out: HTMLElement[] = [];
    for (let i = first; i < last; i++) out.push(this.line(this.lines[i], i));
    this.spacer.replaceChildren(...out);
  }

  private line(l: Line, i: number): HTMLElement {
    let row: HTMLElement;
    if ('group' in l) {
      const g = l.group;
      const open = this.expanded.has(g.key);
      row = el(
        'div',
        {
          class: 'waits-row group',
          role: 'row',
          'aria-expanded': String(open),
          title: `${g.key}: click to ${open ? 'hide' : 'show'} its waits`,
        },
        ...GROUP_COLUMNS.map((c, k) =>
          el(
            'span',
            { class: `cell${c.numeric ? ' num' : ''}`, role: 'gridcell' },
            k ? c.text(g) : `${open ? '▾' : '▸'} ${c.text(g)}`,
          ),
        ),
      );
      row.addEventListener('click', () => {
        if (open) this.expanded.delete(g.key);
        else this.expanded.add(g.key);
        this.refresh();
      });
    } else {
      const w = l.wait;
      row = el(
        'div',
        {
          class: `waits-row wait${l.nested ? ' nested' : ''}${this.by ? ' in-groups' : ''}`,
          role: 'row',
          'data-call': String(w.id),
          'aria-selected': String(w.id === this.selected),
        },
        ...this.columns.map((c) =>
          el(
            'span',
            { class: `cell${c.numeric ? ' num' : ''} col-${c.key}`, role: 'gridcell', title: c.text(w) },
            c.text(w),
          ),
        ),
      );
      row.addEventListener('click', () => this.pick(w.id));
    }
    row.style.top = `${i * WAIT_ROW_H}px`;
    return row;
  }
}
