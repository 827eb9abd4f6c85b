// The legend: the same marks as the canvas, drawn by CSS from the same theme variables.
import { el } from './dom';

// Grouped by where the mark appears: the theme has six chart colours, so a memset and a launch
// call share purple, a host function and a host wait orange, and only the row tells them apart.
const GROUPS: [string, [string, string][]][] = [
  [
    'On GPU streams',
    [
      ['kernel', 'Kernel'],
      ['memcpy', 'Copy'],
      ['memset', 'Memset'],
      ['hostfunc', 'Host function'],
      ['record', 'Event record'],
      ['waitevent', 'Stream waits for event'],
    ],
  ],
  [
    'On host threads',
    [
      ['launch', 'Launch call'],
      ['wait', 'Host wait (sync call)'],
      ['blocked', 'Host blocked on the GPU'],
      ['unblock', 'Unblock: wait returned (↑ latency after the releasing op ended)'],
      ['ready', 'Query answered ready'],
      ['notready', 'Query answered not ready'],
    ],
  ],
  [
    'Arrows and the selection',
    [
      ['a-launch', 'Launch (call → op)'],
      ['a-event', 'Event (record → wait)'],
      ['a-release', 'Release (op end → host unblock)'],
      ['a-device', 'Between two GPUs (dashed)'],
      ['before', 'Happens before the selection'],
      ['after', 'Happens after the selection'],
    ],
  ],
];

/** `severalGpus`: the trace has streams on more than one GPU, so cross-device arrows can appear. */
export function renderLegend(box: HTMLElement, severalGpus = false): void {
  box.replaceChildren(
    ...GROUPS.map(([title, entries]) =>
      el(
        'div',
        { class: 'legend-group' },
        el('h3', { class: 'legend-title' }, title),
        el(
          'ul',
          { class: 'legend' },
          ...entries
            .filter(([k]) => severalGpus || k !== 'a-device')
            .map(([k, label]) => el('li', {}, el('span', { class: `sw sw-${k}` }), label)),
        ),
      ),
    ),
  );
}
