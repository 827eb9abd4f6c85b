// Host syncs hidden inside calls that look asynchronous: cudaMemcpyAsync with pageable host memory
// (S17), launches that blocked on a full launch queue (S19), and in imported PyTorch traces the
// copy-then-synchronize pattern behind `.item()`, `.cpu()` and `nonzero`.
import type { Program } from '../scenario/program';
import { CK } from '../trace/kinds';
import { COPY_KINDS, Finding, HOST_MEMORY, Trace, str } from '../trace/model';
import type { AccessIndex } from './accesses';
import type { Bindings } from './bindings';
import { IntList } from './csr';
import { FindingList, placeKey } from './collect';
import { atLine, callSource, isAsyncCall, laneName, opName } from './describe';
import { formatNs } from '../units';

export function hostSyncSmells(t: Trace, b: Bindings, access: AccessIndex, program?: Program): Finding[] {
  const out = new FindingList();
  const claimed = hiddenSyncs(t, b, out);
  pageableCopies(t, access, out, claimed, program);
  queueStalls(t, out);
  return out.list();
}

/** The framework op behind a call: the outermost aten:: op of its context, else the innermost. */
function frameworkOp(context: string): string {
  const parts = context.split(' > ');
  return parts.find((p) => p.startsWith('aten::')) ?? parts[parts.length - 1];
}

const copyWords = (t: Trace, op: number): string =>
  [COPY_KINDS[t.ops.copy[op]], HOST_MEMORY[t.ops.hostMemory[op]]].filter(Boolean).join(', ');

/**
 * Each stream synchronize made inside a framework op, with the device-to-host copy before it on its
 * lane, or -1: pairs (sync, copy) in time order. One tight pass over every call, kept apart from
 * the words of the findings, which only the few pairs need.
 */
function syncsAfterCopies(t: Trace, b: Bindings): Int32Array {
  const c = t.calls;
  const L = t.lanes.length;
  const lastCopy = new Int32Array(L + 1).fill(-1); // lane -> last device-to-host copy call
  const dtoh = COPY_KINDS.indexOf('DtoH');
  const { kind: kindOf, lane: laneOf, context } = c;
  const { opsStart, opsOf, timeOrder: order } = b;
  const copyKind = t.ops.copy;
  const memcpy = CK.memcpy;
  const streamSync = CK.streamSync;
  const pairs = new IntList();
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    const kind = kindOf[i];
    const lane = laneOf[i] < L ? laneOf[i] : L;
    if (kind === memcpy && opsStart[i + 1] > opsStart[i] && copyKind[opsOf[opsStart[i]]] === dtoh) lastCopy[lane] = i;
    else if (kind === streamSync && context[i]) {
      pairs.push(i);
      pairs.push(lastCopy[lane]);
    }
  }
  return pairs.view();
}

/**
 * A stream synchronize made by a framework op (not by the user's own synchronize), after a
 * device-to-host copy inside the same op: the host stops until the GPU catches up, although the
 * Python line only asked for a value. Returns the copy calls it explains; each copy explains one sync.
 */
function hiddenSyncs(t: Trace, b: Bindings, out: FindingList): Set<number> {
  const c = t.calls;
  const claimed = new Set<number>();
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
    const context = str(t, c.context[i]);
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
  const pairs = syncsAfterCopies(t, b);
  for (let k = 0; k < pairs.length; k += 2) {
    i = pairs[k];
    copyIn = pairs[k + 1];
    op = opOfContext(c.context[i]);
    if (!op || copyIn < 0 || claimed.has(copyIn) || !c.context[copyIn] || opOfContext(c.context[copyIn]) !== op)
      continue;
    claimed.add(copyIn);
    blocked = c.blockedNs[i] + c.blockedNs[copyIn];
    if (keyOf[0] !== c.context[i] || keyOf[1] !== c.name[copyIn] || keyOf[2] !== c.name[i]) {
      keyOf = [c.context[i], c.name[copyIn], c.name[i]];
      key = `hidden-sync|${str(t, c.context[i])}|${str(t, c.name[copyIn]) || 'memcpy'},${str(t, c.name[i]) || 'stream synchronize'}`;
    }
    ids[0] = copyIn;
    ids[1] = i;
    ops[0] = firstOp(copyIn);
    out.addLazily(key, ids, ops, blocked, finding);
  }
  return claimed;
}

function pageableCopies(
  t: Trace,
  access: AccessIndex,
  out: FindingList,
  claimed: Set<number>,
  program?: Program,
): void {
  const c = t.calls;
  const pageable = HOST_MEMORY.indexOf('pageable');
  const { hostMemory, count } = t.ops;
  for (let j = 0; j < count; j++) {
    if (hostMemory[j] !== pageable) continue;
    const call = t.ops.call[j];
    if (call < 0 || claimed.has(call) || c.kind[call] !== CK.memcpy) continue;
    const dir = COPY_KINDS[t.ops.copy[j]];
    if ((dir !== 'HtoD' && dir !== 'DtoH') || !isAsyncCall(t, call, program)) continue;
    let buffer = '';
    for (let k = access.start[j]; k < access.start[j + 1]; k++) {
      const row = access.rows[k];
      if ((t.accesses.write[row] === 1) === (dir === 'DtoH')) buffer = str(t, t.accesses.buffer[row]);
    }
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

function queueStalls(t: Trace, out: FindingList): void {
  const c = t.calls;
  const launch = CK.launch;
  // Stalls repeat at one place: its key is made again only where the place changes.
  let key = '';
  let line = NaN;
  let column = NaN;
  let lane = NaN;
  const { kind, blockedNs, count } = c;
  for (let i = 0; i < count; i++) {
    if (kind[i] !== launch || !(blockedNs[i] > 0)) continue;
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
          'the launch queue was full (about 1021 launches queue behind running work)',
        fix: 'wait for earlier work (an event synchronize) before queuing more, or launch fewer, larger kernels',
        savedNs: c.blockedNs[i],
      };
    });
  }
}
