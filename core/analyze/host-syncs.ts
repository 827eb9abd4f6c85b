// Host syncs hidden inside calls that look asynchronous: cudaMemcpyAsync with pageable host memory
// (S17), launches that blocked on a full launch queue (S19), and in imported PyTorch traces the
// copy-then-synchronize pattern behind `.item()`, `.cpu()` and `nonzero`.
import type { Program } from '../scenario/program';
import { CK, OK } from '../trace/kinds';
import { COPY_KINDS, Finding, HOST_MEMORY, Trace, callSite, str } from '../trace/model';
import type { AccessIndex } from './accesses';
import type { Bindings } from './bindings';
import { IntList, rowsWhere, sortedHas } from './csr';
import { FindingList, placeKey } from './collect';
import { atLine, callSiteText, callSource, isAsyncCall, laneName, opName } from './describe';
import { formatNs } from '../units';
import { readFix, readOfContext, readOfCopy } from './host-reads';
import { madeCompiling } from './compile-time';
import { loaderOnLane, loaderPinFix } from './data-loader';

/**
 * The findings, and `ownedSyncs` (ascending): the synchronizes these findings explain, which a
 * framework op made to read a value the host needed or to end a blocking copy, so that no other
 * rule calls them needless.
 */
export function hostSyncSmells(
  t: Trace,
  b: Bindings,
  access: AccessIndex,
  program?: Program,
): { findings: Finding[]; ownedSyncs: Int32Array } {
  const out = new FindingList();
  const siteText = siteTexts(t);
  const { copies, syncs } = hiddenSyncs(t, b, out, siteText);
  const copySyncs = pageableCopies(t, access, out, siteText, (call) => sortedHas(copies, call), program);
  queueStalls(t, b.waits, out);
  const owned = new Int32Array(syncs.length + copySyncs.length);
  owned.set(syncs);
  owned.set(copySyncs, syncs.length);
  return { findings: out.list(), ownedSyncs: ascending(owned) };
}

/** The framework op behind a call: the outermost aten:: op of its context, else the innermost. */
export function frameworkOp(context: string): string {
  const parts = context.split(' > ');
  return parts.find((p) => p.startsWith('aten::')) ?? parts[parts.length - 1];
}

/** A call's source site in words (callSiteText), made once per site: a loop meets the same few sites thousands of times. */
function siteTexts(t: Trace): (call: number) => string {
  const texts = new Map<number, string>();
  return (call) => {
    const site = t.calls.site[call];
    return texts.get(site) ?? texts.set(site, callSiteText(t, call)).get(site)!;
  };
}

/** Call `i`'s Python stack as `file:function` frames, innermost first, joined by " > "; '' where it has none. */
function stackFunctions(t: Trace, i: number): string {
  return (callSite(t, i)?.stack ?? []).map((f) => `${f.file}:${f.function}`).join(' > ');
}

/** A context from its outermost aten:: op on (what ran, not the profiler step it ran in); else all of it. */
function opChain(context: string): string {
  const at = context.indexOf('aten::');
  return at > 0 ? context.slice(at) : context;
}

/** How far either way from a copy op `kernelBefore` looks in the op table, which holds ops near in time near each other. */
const KERNEL_LOOKBACK = 64;

/** The name of the kernel that started last before copy op `copyOp` on its stream, among the ops near it ('' where none). */
export function kernelBefore(t: Trace, copyOp: number): string {
  const o = t.ops;
  if (copyOp < 0) return '';
  let best = -1;
  for (let j = Math.max(0, copyOp - KERNEL_LOOKBACK); j < Math.min(o.count, copyOp + KERNEL_LOOKBACK); j++)
    if (o.lane[j] === o.lane[copyOp] && o.kind[j] === OK.kernel && o.start[j] < o.start[copyOp])
      if (best < 0 || o.start[j] > o.start[best]) best = j;
  return best < 0 ? '' : opName(t, best);
}

const copyWords = (t: Trace, op: number): string =>
  [COPY_KINDS[t.ops.copy[op]], HOST_MEMORY[t.ops.hostMemory[op]]].filter(Boolean).join(', ');

/** The lane slot the replay keeps a call's last copy in (Bindings.syncCopies): its lane, lanes the trace does not list sharing one. */
export const copySlot = (t: Trace, call: number): number => Math.min(t.calls.lane[call], t.lanes.length);

/**
 * A stream synchronize made by a framework op (not by the user's own synchronize), after a
 * device-to-host copy inside the same op: the host stops until the GPU catches up, although the
 * Python line only asked for a value. Returns the copy calls it explains and their syncs, each
 * ascending; each copy explains one sync.
 */
function hiddenSyncs(
  t: Trace,
  b: Bindings,
  out: FindingList,
  siteText: (call: number) => string,
): { copies: Int32Array; syncs: Int32Array } {
  const c = t.calls;
  const claimed = new IntList();
  const claimedSyncs = new IntList();
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
    const copyOp = firstOp(copyIn);
    const context = str(t, c.context[i]);
    const read =
      readOfContext(context, stackFunctions(t, i)) ??
      readOfCopy(copyOp >= 0 ? t.ops.bytes[copyOp] : 0, kernelBefore(t, copyOp));
    const chain = opChain(context);
    const where = op.startsWith('aten::') ? `${op} (${chain})` : `${op}${chain ? ` (${chain})` : ''}`;
    const names = [str(t, c.name[copyIn]) || 'memcpy', str(t, c.name[i]) || 'stream synchronize'];
    return {
      rule: 'S17',
      kind: 'hidden-sync',
      severity: 'warning',
      calls: [copyIn, i],
      ops: [copyOp],
      message:
        `${where}, ${read.what}${read.deduced ? ` (${read.deduced})` : ''}, synchronizes the host: ${names[0]} ` +
        `(${copyWords(t, copyOp)}) then ${names[1]} on ${laneName(t, c.lane[i])} blocked it for ${formatNs(blocked)} ` +
        'until the GPU caught up',
      fix: readFix(read),
      savedNs: blocked,
    };
  };
  // The syncs of one place repeat: its key is made again only where the place changes.
  let key = '';
  let keyOf = [-1, -1, -1, -1];
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
    const line = !op && c.site[i] > 0 && c.site[copyIn] === c.site[i] ? siteText(i) : '';
    const slot = copySlot(t, i);
    if ((!op && !line) || lastClaimed[slot] === copyIn) continue;
    op ||= `the line ${line}`;
    lastClaimed[slot] = copyIn;
    claimed.push(copyIn);
    claimedSyncs.push(i);
    blocked = c.blockedNs[i] + c.blockedNs[copyIn];
    if (keyOf[0] !== c.context[i] || keyOf[1] !== c.site[i] || keyOf[2] !== c.name[copyIn] || keyOf[3] !== c.name[i]) {
      keyOf = [c.context[i], c.site[i], c.name[copyIn], c.name[i]];
      // One place is the user's line and the framework op made there: a profile's context also
      // names the step it ran in, which would make each step a place of its own.
      const place = c.site[i] > 0 ? siteText(i) : opChain(str(t, c.context[i]));
      key = `hidden-sync|${place}|${op.startsWith('aten::') ? op : ''}|${str(t, c.name[copyIn]) || 'memcpy'},${str(t, c.name[i]) || 'stream synchronize'}`;
    }
    ids[0] = copyIn;
    ids[1] = i;
    ops[0] = firstOp(copyIn);
    out.addLazily(key, ids, ops, blocked, finding);
  }
  return { copies: ascending(claimed.view()), syncs: ascending(claimedSyncs.view()) };
}

/** `ids` sorted: as they are where they rise throughout, as calls met in time order mostly do. */
function ascending(ids: Int32Array): Int32Array {
  for (let k = 1; k < ids.length; k++) if (ids[k - 1] > ids[k]) return ids.sort();
  return ids;
}

function pageableCopies(
  t: Trace,
  access: AccessIndex,
  out: FindingList,
  siteText: (call: number) => string,
  claimed: (call: number) => boolean,
  program?: Program,
): Int32Array {
  const c = t.calls;
  const syncs = new IntList();
  for (const j of rowsWhere(t.ops.hostMemory, t.ops.count, HOST_MEMORY.indexOf('pageable'))) {
    const call = t.ops.call[j];
    if (call < 0 || claimed(call) || c.kind[call] !== CK.memcpy) continue;
    const dir = COPY_KINDS[t.ops.copy[j]];
    if ((dir !== 'HtoD' && dir !== 'DtoH') || !isAsyncCall(t, call, program)) continue;
    const buffer = hostBuffer(t, access, j, dir === 'DtoH');
    const compiling = madeCompiling(t, call);
    // One place is one line of the user's (each copy of a model's parameters is one of its
    // copies), else one step of a scenario, else one lane's copies of one name; torch.compile's
    // own copies at a line are a place apart from the line's.
    const place =
      c.site[call] > 0
        ? `${siteText(call)}|${c.lane[call]} ${dir}${compiling ? '|compiling' : ''}`
        : placeKey(c.line[call], c.column[call], `${c.lane[call]} ${opName(t, j)}`);
    const sync = blockingCopySync(t, call);
    if (sync >= 0) syncs.push(sync);
    out.add(`pageable|${place}`, pageableFinding(t, j, { buffer, sync, compiling }));
  }
  return ascending(syncs.view());
}

/**
 * The finding of pageable copy op `j`: `buffer`, its host buffer's name ('' where the trace names
 * none); `sync`, the synchronize that ends it where it is a blocking copy, else -1; `compiling`,
 * whether torch.compile made it while it compiled, which no change of the program's copies helps.
 */
function pageableFinding(t: Trace, j: number, o: { buffer: string; sync: number; compiling: boolean }): Finding {
  const c = t.calls;
  const call = t.ops.call[j];
  const { buffer, sync, compiling } = o;
  const src = callSource(t, call);
  const took = c.end[call] - c.begin[call];
  const maker = sync >= 0 && str(t, c.context[sync]).includes('aten::') ? 'op' : 'line';
  const message =
    `asynchronous ${COPY_KINDS[t.ops.copy[j]]} copy${atLine(t, call)} uses pageable host memory${buffer ? ` "${buffer}"` : ''}, ` +
    `so it is synchronous for the host: the call took ${formatNs(took)}` +
    (c.blockedNs[call] > 0 ? `, ${formatNs(c.blockedNs[call])} of it blocked` : '') +
    (sync >= 0
      ? `; then ${str(t, c.name[sync]) || 'a stream synchronize'} waited for it, made by the same ${maker} (a blocking copy)`
      : '') +
    (compiling
      ? "; torch.compile made it while it compiled (TorchDynamo's frame conversion), once per compilation: " +
        "no change of the program's copies removes it"
      : '');
  const loader = COPY_KINDS[t.ops.copy[j]] === 'HtoD' ? loaderOnLane(t, c.lane[call]) : undefined;
  const fix = compiling
    ? undefined
    : buffer
      ? `allocate "${buffer}" as pinned host memory ("host": "pinned"; in PyTorch, pin_memory())`
      : loader
        ? loaderPinFix(loader, sync >= 0, t.meta.plainStep?.batchReceiveNs !== undefined)
        : sync >= 0
          ? 'pin the host memory (pin_memory(), DataLoader(pin_memory=True)) and copy with non_blocking=True: a blocking copy synchronizes after it, pinned or not'
          : 'copy from or to pinned host memory';
  return {
    rule: 'S17',
    kind: 'pageable-async-copy',
    severity: compiling ? 'info' : 'warning',
    calls: sync >= 0 ? [call, sync] : [call],
    ops: [j],
    ...(src ? { source: src } : {}),
    message,
    ...(fix ? { fix } : {}),
    savedNs: c.blockedNs[call] + (sync >= 0 ? c.blockedNs[sync] : 0),
  };
}

/** How far past a copy call `blockingCopySync` looks for the synchronize that ends it. */
const BLOCKING_SYNC_LOOKAHEAD = 8;

/**
 * The stream synchronize that the framework op or line that made copy `call` made right after it
 * (PyTorch's copy without non_blocking=True), else -1: its thread's next call (framework ranges aside),
 * with the same aten:: context or the same source site.
 */
function blockingCopySync(t: Trace, call: number): number {
  const c = t.calls;
  const end = Math.min(c.count, call + 1 + BLOCKING_SYNC_LOOKAHEAD);
  for (let i = call + 1; i < end; i++) {
    if (c.lane[i] !== c.lane[call] || c.kind[i] === CK.context || c.kind[i] === CK.api || c.kind[i] === CK.hostWork)
      continue;
    if (c.kind[i] !== CK.streamSync) return -1;
    const sameOp = c.context[i] > 0 && c.context[i] === c.context[call] && str(t, c.context[i]).includes('aten::');
    const sameLine = c.site[i] > 0 && c.site[i] === c.site[call];
    return sameOp || sameLine ? i : -1;
  }
  return -1;
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
