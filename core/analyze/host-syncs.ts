// Host syncs hidden inside calls that look asynchronous: cudaMemcpyAsync with pageable host memory
// (S17), launches that blocked on a full launch queue (S19), and in imported PyTorch traces the
// copy-then-synchronize pattern behind `.item()`, `.cpu()` and `nonzero`.
import type { Program } from '../scenario/program';
import { countAtMost } from '../stats';
import { CK } from '../trace/kinds';
import { COPY_KINDS, Finding, HOST_MEMORY, Trace, str } from '../trace/model';
import type { AccessIndex } from './accesses';
import type { Bindings } from './bindings';
import { IntList, rowsWhere } from './csr';
import { FindingList, placeKey } from './collect';
import { atLine, callSiteText, callSource, isAsyncCall, laneName, opName } from './describe';
import { formatNs } from '../units';

export function hostSyncSmells(t: Trace, b: Bindings, access: AccessIndex, program?: Program): Finding[] {
  const out = new FindingList();
  const claimed = hiddenSyncs(t, b, out);
  pageableCopies(t, access, out, (call) => isClaimed(claimed, call), program);
  queueStalls(t, b.waits, out);
  return out.list();
}

/** The framework op behind a call: the outermost aten:: op of its context, else the innermost. */
function frameworkOp(context: string): string {
  const parts = context.split(' > ');
  return parts.find((p) => p.startsWith('aten::')) ?? parts[parts.length - 1];
}

const copyWords = (t: Trace, op: number): string =>
  [COPY_KINDS[t.ops.copy[op]], HOST_MEMORY[t.ops.hostMemory[op]]].filter(Boolean).join(', ');

/** The lane slot the replay keeps a call's last copy in (Bindings.syncCopies): its lane, lanes the trace does not list sharing one. */
const copySlot = (t: Trace, call: number): number => Math.min(t.calls.lane[call], t.lanes.length);

/**
 * A stream synchronize made by a framework op (not by the user's own synchronize), after a
 * device-to-host copy inside the same op: the host stops until the GPU catches up, although the
 * Python line only asked for a value. Returns the copy calls it explains, ascending; each copy
 * explains one sync.
 */
function hiddenSyncs(t: Trace, b: Bindings, out: FindingList): Int32Array {
  const c = t.calls;
  const claimed = new IntList();
  // A sync's copy is its slot's last copy: the syncs of one slot meet each copy in one stretch,
  // so a copy was claimed before if it is the last one its slot claimed.
  const lastClaimed = new Int32Array(t.lanes.length + 1).fill(-1);
  const firstOp = (call: number) => (b.opsStart[call + 1] > b.opsStart[call] ? b.opsOf[b.opsStart[call]] : -1);
  // A run repeats the same few framework contexts: each one's op is found once ('' for a context
  // without an aten:: op, which makes no finding).
  const opOf = new Map<number, string>();
  const opOfContext = (context: number) => {
    let op = opOf.get(context);
    if (op === undefined) {
      const text = str(t, context);
      opOf.set(context, (op = text.includes('aten::') ? frameworkOp(text) : ''));
    }
    return op;
  };
  // The pair at hand, read by `finding`, which the list calls only for the first pair of a place:
  // one function for every pair, and the ids handed over in the same two arrays, which the list
  // only reads.
  let i = -1;
  let copyIn = -1;
  let op = '';
  let blocked = 0;
  const ids = [0, 0];
  const ops = [0];
  const finding = (): Finding => {
    const context = str(t, c.context[i]) || 'the copy and the synchronize made there';
    const names = [str(t, c.name[copyIn]) || 'memcpy', str(t, c.name[i]) || 'stream synchronize'];
    return {
      rule: 'S17',
      kind: 'hidden-sync',
      severity: 'warning',
      calls: [copyIn, i],
      ops: [firstOp(copyIn)],
      message:
        `${op} (${context}) synchronizes the host: ${names[0]} (${copyWords(t, firstOp(copyIn))}) then ${names[1]} ` +
        `on ${laneName(t, c.lane[i])} blocked it for ${formatNs(blocked)} until the GPU caught up`,
      fix: `keep the value on the GPU, or read it later (after more work is queued); ${
        op === 'aten::item' || op === 'aten::_local_scalar_dense'
          ? 'each .item() waits for every kernel queued before it'
          : 'use a pinned destination with non_blocking=True and an event where the host needs the data'
      }`,
      savedNs: blocked,
    };
  };
  // The syncs of one place repeat: its key is made again only where the place changes.
  let key = '';
  let keyOf = [-1, -1, -1];
  const pairs = b.syncCopies;
  for (let k = 0; k < pairs.length; k += 2) {
    i = pairs[k];
    copyIn = pairs[k + 1];
    // Only a synchronize made inside a framework op (not by the user's own synchronize).
    if (copyIn < 0) continue;
    op =
      c.context[i] && c.context[copyIn] && opOfContext(c.context[i]) === opOfContext(c.context[copyIn])
        ? opOfContext(c.context[i])
        : '';
    // A capture names no framework op, but the Python line of each call: one line that made both
    // the copy and the synchronize (`.item()`, `.cpu()`) asked for a value, not for a synchronize.
    const line = !op && c.site[i] > 0 && c.site[copyIn] === c.site[i] ? callSiteText(t, i) : '';
    const slot = copySlot(t, i);
    if ((!op && !line) || lastClaimed[slot] === copyIn) continue;
    op ||= `the line ${line}`;
    lastClaimed[slot] = copyIn;
    claimed.push(copyIn);
    blocked = c.blockedNs[i] + c.blockedNs[copyIn];
    const place = c.context[i] || -c.site[i];
    if (keyOf[0] !== place || keyOf[1] !== c.name[copyIn] || keyOf[2] !== c.name[i]) {
      keyOf = [place, c.name[copyIn], c.name[i]];
      key = `hidden-sync|${line ? `site ${c.site[i]}` : str(t, c.context[i])}|${str(t, c.name[copyIn]) || 'memcpy'},${str(t, c.name[i]) || 'stream synchronize'}`;
    }
    ids[0] = copyIn;
    ids[1] = i;
    ops[0] = firstOp(copyIn);
    out.addLazily(key, ids, ops, blocked, finding);
  }
  const sorted = claimed.view();
  for (let k = 1; k < sorted.length; k++) if (sorted[k - 1] > sorted[k]) return sorted.sort();
  return sorted;
}

/** Whether `call` is in the ascending `claimed`. */
function isClaimed(claimed: Int32Array, call: number): boolean {
  // Call ids are integers: those below `call` are those at most call - 1.
  return claimed[countAtMost(claimed.length, (k) => claimed[k], call - 1)] === call;
}

function pageableCopies(
  t: Trace,
  access: AccessIndex,
  out: FindingList,
  claimed: (call: number) => boolean,
  program?: Program,
): void {
  const c = t.calls;
  for (const j of rowsWhere(t.ops.hostMemory, t.ops.count, HOST_MEMORY.indexOf('pageable'))) {
    const call = t.ops.call[j];
    if (call < 0 || claimed(call) || c.kind[call] !== CK.memcpy) continue;
    const dir = COPY_KINDS[t.ops.copy[j]];
    if ((dir !== 'HtoD' && dir !== 'DtoH') || !isAsyncCall(t, call, program)) continue;
    const buffer = hostBuffer(t, access, j, dir === 'DtoH');
    const src = callSource(t, call);
    const took = c.end[call] - c.begin[call];
    out.add(`pageable|${placeKey(c.line[call], c.column[call], `${c.lane[call]} ${opName(t, j)}`)}`, {
      rule: 'S17',
      kind: 'pageable-async-copy',
      severity: 'warning',
      calls: [call],
      ops: [j],
      ...(src ? { source: src } : {}),
      message:
        `asynchronous ${dir} copy${atLine(t, call)} uses pageable host memory${buffer ? ` "${buffer}"` : ''}, so it is synchronous ` +
        `for the host: the call took ${formatNs(took)}${c.blockedNs[call] > 0 ? `, ${formatNs(c.blockedNs[call])} of it blocked` : ''}`,
      fix: buffer
        ? `allocate "${buffer}" as pinned host memory ("host": "pinned"; in PyTorch, pin_memory())`
        : 'copy from or to pinned host memory',
      savedNs: c.blockedNs[call],
    });
  }
}

/** The host-side buffer of copy op j by name (the last it writes for a copy to the host, else reads), or ''. */
function hostBuffer(t: Trace, access: AccessIndex, j: number, toHost: boolean): string {
  // A trace that declares no accesses (an imported one) has no row to read.
  if (!t.accesses.count) return '';
  let buffer = '';
  for (let k = access.start[j]; k < access.start[j + 1]; k++) {
    const row = access.rows[k];
    if ((t.accesses.write[row] === 1) === toHost) buffer = str(t, t.accesses.buffer[row]);
  }
  return buffer;
}

/** The launches that blocked, found among `waits` (in call order): a launch that blocked is a wait. */
function queueStalls(t: Trace, waits: Int32Array, out: FindingList): void {
  const c = t.calls;
  const launch = CK.launch;
  // Stalls repeat at one place: its key is made again only where the place changes.
  let key = '';
  let line = NaN;
  let column = NaN;
  let lane = NaN;
  for (const i of waits) {
    if (c.kind[i] !== launch || !(c.blockedNs[i] > 0)) continue;
    if (c.line[i] !== line || c.column[i] !== column || c.lane[i] !== lane) {
      line = c.line[i];
      column = c.column[i];
      lane = c.lane[i];
      key = `queue|${placeKey(line, column, lane)}`;
    }
    out.addLazily(key, [i], [], c.blockedNs[i], () => {
      const src = callSource(t, i);
      return {
        rule: 'S19',
        kind: 'launch-queue-stall',
        severity: 'warning',
        calls: [i],
        ops: [],
        ...(src ? { source: src } : {}),
        message:
          `launch${atLine(t, i)} on ${laneName(t, c.lane[i])} blocked the host for ${formatNs(c.blockedNs[i])}: ` +
          "its stream's launch queue was full (about 1021 kernels, copies, memsets and event records queue on a stream behind running work)",
        fix: 'wait for earlier work (an event synchronize) before queuing more, or launch fewer, larger kernels',
        savedNs: c.blockedNs[i],
      };
    });
  }
}
