// The panel's tabs, Overview then Timeline, as the WAI-ARIA tabs pattern has them: one tab stop,
// the arrow keys, Home and End move between tabs and show the one they land on.
import { el } from './dom';

export type TabName = 'overview' | 'timeline';

const TABS: [TabName, string][] = [
  ['overview', 'Overview'],
  ['timeline', 'Timeline'],
];

export class Tabs {
  readonly root = el('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Views of this trace' });
  private readonly buttons = new Map<TabName, HTMLButtonElement>();
  current: TabName = 'timeline';

  /** `panels`: each tab's panel; `onShow` runs after a tab's panel is shown. */
  constructor(
    private readonly panels: Record<TabName, HTMLElement>,
    private readonly onShow: (tab: TabName, byUser: boolean) => void,
  ) {
    for (const [name, label] of TABS) {
      const b = el(
        'button',
        { type: 'button', role: 'tab', id: `tab-${name}`, class: 'tab', 'aria-controls': `panel-${name}` },
        label,
      );
      b.addEventListener('click', () => this.show(name, true));
      b.addEventListener('keydown', (e) => this.onKey(e, name));
      this.buttons.set(name, b);
      this.root.append(b);
      panels[name].id = `panel-${name}`;
      panels[name].setAttribute('role', 'tabpanel');
      panels[name].setAttribute('aria-labelledby', `tab-${name}`);
    }
  }

  /** Shows a tab's panel and hides the other's. */
  show(tab: TabName, byUser = false): void {
    this.current = tab;
    for (const [name, b] of this.buttons) {
      const on = name === tab;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      this.panels[name].hidden = !on;
    }
    this.onShow(tab, byUser);
  }

  /** Without an overview the timeline is the whole page: no tabs. */
  set visible(on: boolean) {
    this.root.hidden = !on;
  }

  private onKey(e: KeyboardEvent, from: TabName): void {
    const names = TABS.map(([n]) => n);
    const at = names.indexOf(from);
    const to =
      e.key === 'ArrowRight'
        ? names[(at + 1) % names.length]
        : e.key === 'ArrowLeft'
          ? names[(at - 1 + names.length) % names.length]
          : e.key === 'Home'
            ? names[0]
            : e.key === 'End'
              ? names[names.length - 1]
              : undefined;
    if (!to) return;
    e.preventDefault();
    e.stopPropagation();
    this.show(to, true);
    this.buttons.get(to)?.focus();
  }
}
