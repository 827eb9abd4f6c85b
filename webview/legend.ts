// The legend: the same marks as the canvas, drawn by CSS from the same theme variables.
import { el } from './dom';

const ENTRIES: [string, string][] = [
  ['kernel', 'Kernel'],
  ['memcpy', 'Copy'],
  ['memset', 'Memset'],
  ['hostfunc', 'Host function'],
  ['launch', 'Launch call'],
  ['wait', 'Host wait (sync call)'],
  ['blocked', 'Host blocked on the GPU'],
  ['unblock', 'Unblock: wait returned (↑ latency after the releasing op ended)'],
  ['record', 'Event record'],
  ['waitevent', 'Stream waits for event'],
  ['ready', 'Query answered ready'],
  ['notready', 'Query answered not ready'],
  ['a-launch', 'Arrow: launch (call → op)'],
  ['a-event', 'Arrow: event (record → wait)'],
  ['a-release', 'Arrow: release (op end → host unblock)'],
  ['a-device', 'Arrow between two GPUs (dashed)'],
  ['before', 'Happens before the selection'],
  ['after', 'Happens after the selection'],
];

/** `severalGpus`: the trace has streams on more than one GPU, so cross-device arrows can appear. */
export function renderLegend(box: HTMLElement, severalGpus = false): void {
  const entries = severalGpus ? ENTRIES : ENTRIES.filter(([k]) => k !== 'a-device');
  box.replaceChildren(el('ul', { class: 'legend' }, ...entries.map(([k, label]) => el('li', {}, el('span', { class: `sw sw-${k}` }), label))));
}
