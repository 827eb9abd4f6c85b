// Event misuse: waits on events never recorded (S9), waits that bind to a newer record than the
// one they were meant for (S7), and queries whose answer was decided by timing (S10).
import type { Program } from '../scenario/program';
import { CK, isWait, OK } from '../trace/kinds';
import { ANSWERS, CALL_KINDS, Finding, Trace, callKind, str } from '../trace/model';
import { formatNs } from '../units';
import type { AccessIndex } from './accesses';
import { boundRecord, NEVER_RECORDED, NOT_EVENT_CALL, recordOpOf, replacedRecord } from './bindings';
import { FindingList, placeKey } from './collect';
import { atLine, callSource, laneName, opLabel, programStep, workAt } from './describe';
import { laneNext, lanePrev } from './graph';
import type { HappensBefore } from './hb';

/** A query whose record completed this close to it could have answered the other way. */
export const CLOSE_QUERY_NS = 20_000;

const VERB: Record<string, string> = { streamWait: 'wait on', eventSync: 'synchronize on', query: 'query of' };

export function eventSmells(t: Trace, hb: HappensBefore, access: AccessIndex, program?: Program): Finding[] {
  const c = t.calls;
  const g = hb.graph;
  const b = g.bindings;
  const out = new FindingList();
  const firstRecord = new Map<number, number>();
  const order = b.timeOrder;
  const record = CK.record;
  const { kind: kindOf, event } = c;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (kindOf[i] === record && !firstRecord.has(event[i])) firstRecord.set(event[i], i);
  }
  const key = (kind: string, i: number) =>
    `${kind}|${placeKey(c.line[i], c.column[i], `${c.lane[i]} ${c.kind[i]} ${c.event[i]}`)}`;

  // Only these kinds are judged here: the rest are passed over without their names.
  const judged = Uint8Array.from(CALL_KINDS, (k) =>
    k === 'elapsed' || k === 'streamWait' || k === 'eventSync' || k === 'query' ? 1 : 0,
  );
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (!judged[kindOf[i]]) continue;
    const kind = callKind(t, i);
    if (kind === 'elapsed') elapsedUnrecorded(t, b, i, firstRecord, out);
    if (kind !== 'streamWait' && kind !== 'eventSync' && kind !== 'query') continue;
    const r = boundRecord(b, i);
    if (r === NEVER_RECORDED) {
      const ev = str(t, c.event[i]);
      const src = callSource(t, i);
      const later = firstRecord.get(c.event[i]);
      out.add(key('no-op-wait', i), {
        rule: 'S9',
        kind: 'no-op-wait',
        severity: 'error',
        calls: [i],
        ops: [],
        ...(src ? { source: src } : {}),
        message: `${VERB[kind]} event "${ev}"${atLine(t, i)} happens before "${ev}" was ever recorded: it returns at once and orders nothing`,
        fix:
          later !== undefined
            ? `move this ${kind} after the record of "${ev}"${atLine(t, later)}`
            : `record "${ev}" on the stream whose work this should wait for, before this ${kind}`,
      });
      continue;
    }
    if (r < 0) continue;
    const p = replacedRecord(b, r);
    if (p >= 0 && b.consumers[p] === 0) {
      const newOp = recordOpOf(b, r);
      const oldOp = recordOpOf(b, p);
      const otherThread = c.lane[r] !== c.lane[i];
      const uncovered = oldOp >= 0 && newOp >= 0 && !hb.beforeNode(g.calls + oldOp, g.calls + newOp);
      const overWaits = !otherThread && !uncovered && usesOnlyOlder(t, hb, access, i, p, r);
      if (otherThread || uncovered || overWaits) {
        const ev = str(t, c.event[i]);
        const src = callSource(t, i);
        out.add(key('stale-wait', i), {
          rule: 'S7',
          kind: 'stale-wait',
          severity: 'warning',
          calls: [i, r, p],
          ops: [oldOp, newOp].filter((o) => o >= 0),
          ...(src ? { source: src } : {}),
          message:
            `${VERB[kind]} "${ev}"${atLine(t, i)} binds to the record${atLine(t, r)}${otherThread ? ` made by thread ${laneName(t, c.lane[r])}` : ''}: ` +
            `the earlier record${atLine(t, p)}, which nothing waited on, was replaced before this call` +
            (uncovered ? `, so this ${kind} does not cover ${opLabel(t, workAt(t, g, oldOp))}` : '') +
            (overWaits
              ? `, so it also waits for ${opLabel(t, workAt(t, g, newOp))}, which the work after it does not use`
              : ''),
          ...(overWaits ? { savedNs: t.ops.end[newOp] - t.ops.end[oldOp] } : {}),
          fix: `use a separate event for each record, or issue the ${kind} before "${ev}" is recorded again`,
        });
      }
    }
    if (kind === 'query') queryRace(t, hb, i, r, out, program, key('timing-dependent-query', i));
  }
  return out.list();
}

/** S11: elapsed time read from an event never recorded at that moment is an error, and measures nothing. */
function elapsedUnrecorded(
  t: Trace,
  b: HappensBefore['graph']['bindings'],
  i: number,
  firstRecord: Map<number, number>,
  out: FindingList,
): void {
  const c = t.calls;
  const unrecorded = [
    [boundRecord(b, i), c.event[i]],
    [b.bound2.get(i) ?? NOT_EVENT_CALL, c.event2[i]],
  ].filter(([r]) => r === NEVER_RECORDED);
  if (!unrecorded.length) return;
  const ev = unrecorded[0][1];
  const name = str(t, ev);
  const later = firstRecord.get(ev);
  const src = callSource(t, i);
  out.add(`elapsed-unrecorded|${placeKey(c.line[i], c.column[i], `${c.lane[i]} ${c.kind[i]} ${ev}`)}`, {
    rule: 'S11',
    kind: 'elapsed-unrecorded',
    severity: 'error',
    calls: [i],
    ops: [],
    ...(src ? { source: src } : {}),
    message:
      `elapsed time from "${str(t, c.event[i])}" to "${str(t, c.event2[i])}"${atLine(t, i)} reads "${name}" before it was ever recorded: ` +
      'cudaEventElapsedTime returns an error and measures nothing',
    fix:
      later !== undefined
        ? `move this elapsed after the record of "${name}"${atLine(t, later)}, and synchronize on it first`
        : `record "${name}" where the measured span should end or begin, and synchronize on it before this elapsed`,
  });
}

function queryRace(
  t: Trace,
  hb: HappensBefore,
  i: number,
  r: number,
  out: FindingList,
  program: Program | undefined,
  key: string,
): void {
  const g = hb.graph;
  const op = recordOpOf(g.bindings, r);
  if (op < 0) return;
  const prev = lanePrev(g, i);
  if (prev >= 0 && hb.beforeNode(g.calls + op, prev)) return; // the host already knew: ready by ordering
  const c = t.calls;
  const end = t.ops.end[op];
  const margin = Math.max(0, end - c.end[i], c.begin[i] - end);
  const answer = ANSWERS[c.answer[i]] || 'ready';
  const step = programStep(t, i, program);
  const expect = step?.op === 'query' ? step.expect : undefined;
  const mismatch = expect !== undefined && expect !== answer;
  if (margin >= CLOSE_QUERY_NS && !mismatch) return;
  const ev = str(t, c.event[i]);
  const when =
    end > c.end[i]
      ? `${formatNs(end - c.end[i])} after the query returned`
      : end < c.begin[i]
        ? `${formatNs(c.begin[i] - end)} before the query began`
        : 'while the query ran';
  const src = callSource(t, i);
  out.add(key, {
    rule: 'S10',
    kind: 'timing-dependent-query',
    severity: 'warning',
    calls: [i, r],
    ops: [op],
    ...(src ? { source: src } : {}),
    message:
      `query of "${ev}"${atLine(t, i)} answered ${answer}${mismatch ? ` (the scenario expected ${expect})` : ''}; ` +
      `nothing orders it against the record, which completed ${when}: the answer depended on timing`,
    fix: `if the answer matters, synchronize on "${ev}" (eventSync) instead of querying it`,
  });
}

/** Ops on the record's stream that record `r` captured and its predecessor record did not. */
function segment(hb: HappensBefore, r: number): number[] {
  const g = hb.graph;
  const b = g.bindings;
  const op = recordOpOf(b, r);
  if (op < 0) return [];
  const prev = replacedRecord(b, r) >= 0 ? recordOpOf(b, replacedRecord(b, r)) : -1;
  const out: number[] = [];
  for (let n = g.calls + op, k = 0; n >= 0 && n !== g.calls + prev && k < SCAN; n = lanePrev(g, n), k++)
    out.push(n - g.calls);
  return out;
}

/** How far the scans below look, so that one suspicious wait never costs a pass over the trace. */
const SCAN = 4096;

/**
 * The work that follows a wait (on its stream for a stream wait, or launched by its thread for a
 * synchronize, up to the next wait) touches buffers of the replaced record's work and none of
 * the new record's: the wait was meant for the replaced record.
 */
function usesOnlyOlder(t: Trace, hb: HappensBefore, access: AccessIndex, w: number, p: number, r: number): boolean {
  const g = hb.graph;
  const b = g.bindings;
  const after: number[] = [];
  if (t.calls.kind[w] === CK.streamWait) {
    const own = b.opsStart[w + 1] > b.opsStart[w] ? b.opsOf[b.opsStart[w]] : -1;
    const waitKind = OK.waitEvent;
    for (let n = own < 0 ? -1 : laneNext(g, g.calls + own), k = 0; n >= 0 && k < SCAN; n = laneNext(g, n), k++) {
      if (t.ops.kind[n - g.calls] === waitKind) break;
      after.push(n - g.calls);
    }
  } else {
    for (let n = laneNext(g, w), k = 0; n >= 0 && k < SCAN && !isWait(t, n); n = laneNext(g, n), k++) {
      for (let q = b.opsStart[n]; q < b.opsStart[n + 1]; q++) after.push(b.opsOf[q]);
    }
  }
  const used = new Map<number, boolean>(); // buffer -> written by the work after the wait
  for (const j of after)
    for (let k = access.start[j]; k < access.start[j + 1]; k++) {
      const row = access.rows[k];
      used.set(t.accesses.buffer[row], (used.get(t.accesses.buffer[row]) ?? false) || t.accesses.write[row] === 1);
    }
  const conflicts = (ops: number[]) =>
    ops.some((j) => {
      for (let k = access.start[j]; k < access.start[j + 1]; k++) {
        const row = access.rows[k];
        const w2 = used.get(t.accesses.buffer[row]);
        if (w2 !== undefined && (w2 || t.accesses.write[row] === 1)) return true;
      }
      return false;
    });
  return used.size > 0 && conflicts(segment(hb, p)) && !conflicts(segment(hb, r));
}
