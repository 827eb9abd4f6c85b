// The findings of the analysis, each linked to the timeline: a click selects what it refers to.
import { rankFindings, savingText } from '../core/overview/rank';
import type { OverviewFinding } from '../core/overview/types';
import type { Finding, Trace } from '../core/trace/model';
import { simulatesFix } from '../core/whatif/fix-view';
import { el } from './dom';
import type { Item } from './view';

/** "Simulate this fix" for a finding with an edit the simulator can run; `simulate` absent: the host offers none. */
export function simulateFixButton(t: Trace, f: Finding, simulate?: (finding: number) => void): HTMLElement | null {
  if (!simulate || !simulatesFix(f)) return null;
  const b = el(
    'button',
    { type: 'button', class: 'simulate-fix', title: 'Simulate the trace with this fix, beside it' },
    'Simulate this fix',
  );
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    simulate(t.findings.indexOf(f));
  });
  b.addEventListener('keydown', (e) => e.stopPropagation());
  return b;
}

/** What the list says of a finding's prediction: the saving, or why there is none; nothing before the overview came. */
function predictionText(o: OverviewFinding | undefined): string | null {
  if (!o) return null;
  if (o.predictedSavingNs !== undefined) return savingText(o.predictedSavingNs, o.perIterationNs);
  return o.noSaving ? `no prediction: ${o.noSaving}` : null;
}

/**
 * The findings, ranked (core/overview/rank.ts): by the overview's predicted savings once the host
 * sent them (`ranked`: the overview's findings), by severity before; each keeps its id F1..Fn.
 */
export function renderFindings(
  box: HTMLElement,
  t: Trace,
  pick: (item: Item, f: Finding) => void,
  simulate?: (finding: number) => void,
  ranked?: readonly OverviewFinding[],
): void {
  box.replaceChildren();
  if (!t.findings.length) {
    box.append(el('p', { class: 'hint' }, 'No findings.'));
    return;
  }
  const list = el('ul', { class: 'findings' });
  const predicted = new Map(ranked?.map((o) => [o.index, o]));
  const order = ranked ?? rankFindings(t.findings.map((f, index) => ({ index, severity: f.severity })));
  for (const { index } of order) {
    const f = t.findings[index];
    if (!f) continue;
    const prediction = predictionText(predicted.get(index));
    const target: Item | null = f.calls.length
      ? { table: 'calls', id: f.calls[0] }
      : f.ops.length
        ? { table: 'ops', id: f.ops[0] }
        : null;
    const li = el(
      'li',
      { class: `finding ${f.severity}`, tabindex: '0', role: 'button' },
      el('span', { class: 'id' }, `F${index + 1}`),
      el('span', { class: 'sev' }, f.severity),
      el('span', { class: 'rule' }, f.rule),
      el('span', { class: 'msg' }, f.message),
      prediction ? el('span', { class: 'saving' }, prediction) : null,
      f.fix ? el('span', { class: 'fix' }, `Fix: ${f.fix}`) : null,
      simulateFixButton(t, f, simulate),
    );
    if (target) {
      const go = () => pick(target, f);
      li.addEventListener('click', go);
      li.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          go();
        }
      });
    } else li.classList.add('static');
    list.append(li);
  }
  box.append(list);
}
