// Host waits that cost more than they buy: waits on work the host already knew was complete,
// and device-wide waits where an event wait on the op the host needed would have returned sooner.
import type { Finding, Trace } from '../trace/model';
import { boundRecord, NEVER_RECORDED } from './bindings';
import { FindingList, placeKey } from './collect';
import { rowEnd, rowFirst } from './csr';
import { atLine, callSource, NARROWER_DEDUCED, opLabel } from './describe';
import { lanePrev } from './graph';
import type { HappensBefore } from './hb';
import type { WaitExplanation } from './types';
import type { WaitFacts } from './waits';
import { CK } from '../trace/kinds';
import { formatNs } from '../units';

/** Savings below this are within the unblock latency's noise (S15). */
export const MIN_SAVED_NS = 1000;

const WHAT: Record<string, string> = {
  eventSync: 'event synchronize',
  streamSync: 'stream synchronize',
  deviceSync: 'device synchronize',
};

/**
 * `explain(k)` explains the k-th wait of `facts`: only the synchronizes that may make a finding
 * are explained, since a long run holds many and most make none.
 */
export function waitSmells(
  t: Trace,
  hb: HappensBefore,
  facts: WaitFacts,
  explain: (k: number) => WaitExplanation,
  complete: boolean,
): Finding[] {
  const g = hb.graph;
  const b = g.bindings;
  const out = new FindingList();
  const { ids, narrower } = facts;
  const kindOf = t.calls.kind;
  for (let k = 0; k < ids.length; k++) {
    const i = ids[k];
    const ck = kindOf[i];
    if (ck !== CK.eventSync && ck !== CK.streamSync && ck !== CK.deviceSync) continue;
    const redundant = complete && boundRecord(b, i) !== NEVER_RECORDED;
    if (!redundant && !(ck === CK.deviceSync && (narrower.get(i)?.savedNs ?? 0) >= MIN_SAVED_NS)) continue;
    const w = explain(k);
    const what = WHAT[w.kind];
    const src = callSource(t, i);
    const key = (kind: string) =>
      `${kind}|${placeKey(t.calls.line[i], t.calls.column[i], `${t.calls.lane[i]} ${w.kind} ${w.target}`)}`;
    if (redundant) {
      const prev = lanePrev(g, i);
      let known = true;
      const first = rowFirst(b.awaits, i);
      const end = rowEnd(b.awaits, i);
      for (let q = first; q < end && known; q++) known = prev >= 0 && hb.beforeNode(g.calls + b.awaits.ids[q], prev);
      if (known) {
        const empty = end === first;
        out.add(key('redundant-wait'), {
          rule: w.kind === 'eventSync' ? 'S12' : w.kind === 'streamSync' ? 'S13' : 'S14',
          kind: 'redundant-wait',
          severity: 'info',
          calls: [i],
          ops: [],
          ...(src ? { source: src } : {}),
          message:
            `${what} on ${w.target}${atLine(t, i)} had nothing to wait for: ` +
            (empty
              ? `no work had been issued to ${w.target}`
              : 'everything it covers was already complete by earlier waits of this thread'),
          fix: `remove this ${w.kind}`,
          savedNs: w.endNs - w.beginNs,
        });
      }
    }
    if (w.kind === 'deviceSync' && w.narrower && w.narrower.savedNs >= MIN_SAVED_NS)
      out.add(key('device-wide-wait'), deviceWideWait(t, i, w, w.narrower));
  }
  return out.list();
}

/**
 * A device synchronize that an event wait on the op the host needed would have released sooner.
 * Where the trace lists no buffers (an imported one), "needed" is a deduction (narrower.deduced):
 * the message labels it so, and the fix says that later GPU work on another stream that uses the
 * skipped work's memory must be ordered after it on the GPU, since the synchronize no longer does.
 */
function deviceWideWait(
  t: Trace,
  i: number,
  w: WaitExplanation,
  narrower: NonNullable<WaitExplanation['narrower']>,
): Finding {
  const op = narrower.op;
  const released = w.releasedBy?.[0];
  const src = callSource(t, i);
  const stream = t.lanes[t.ops.lane[op]].name;
  return {
    rule: 'S14',
    kind: 'device-wide-wait',
    severity: 'warning',
    calls: [i],
    ops: [op, ...(released ? [released.op] : [])],
    ...(src ? { source: src } : {}),
    message:
      `device synchronize${atLine(t, i)} blocked the host ${formatNs(w.blockedNs)}` +
      (released ? ` until "${released.name}" on stream ${released.stream} finished` : '') +
      `; the host needed only ${opLabel(t, op)}` +
      (narrower.deduced ? ` (deduced: ${NARROWER_DEDUCED})` : '') +
      `, so an event wait on it would have released the host ${formatNs(narrower.savedNs)} sooner`,
    fix:
      `record an event on stream ${stream} after "${t.strings[t.ops.name[op]] || 'it'}"${atLine(t, t.ops.call[op])} ` +
      'and synchronize on that event instead of the whole device' +
      (narrower.deduced
        ? '; where work queued later on another stream uses memory that the rest of the work this synchronize waited for reads or writes, ' +
          'make that stream wait for it on the GPU (cudaStreamWaitEvent; in PyTorch, wait_stream) before that work'
        : ''),
    savedNs: narrower.savedNs,
  };
}
