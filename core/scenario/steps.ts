// Compiles a `steps` array into flat Program steps: names resolved to ids, durations in ns,
// copy directions from the buffers, waitStream lowered to record + wait, repeat unrolled. A
// setDevice step is followed at compile time too: it decides what "default" and a bare deviceSync mean.
import { deviceNumber } from './devices';
import type { Node } from './jsonc';
import type { BufferDecl, Pos, Step } from './program';
import { DURATION_KEYS, LIMITS, QUERY_EXPECT, STEP_KEYS, STEP_KINDS, type StepKind } from './kinds';
import type { Prop } from './read';
import { buffer, eventId, streamId, type Scope } from './scope';
import { closestStepKind, unknown } from './suggest';

interface Ctx {
  scope: Scope;
  /** The kind key and its value. */
  kind: Prop;
  opts: Map<string, Prop>;
  pos: Pos;
  /** Where the step's object starts. */
  offset: number;
  out: Step[];
}

type Unplaced<T> = T extends Step ? Omit<T, 'pos'> : never;

const OPTION_KEYS = new Set<string>(Object.values(STEP_KEYS).flat());
const NS_PER: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6 };
const an = (word: string): string => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
const alternatives = (keys: readonly string[]): string =>
  keys
    .map((k) => `"${k}"`)
    .join(', ')
    .replace(/, ([^,]*)$/, ' or $1');

export function compileSteps(scope: Scope, list: Node, label: string, out: Step[]): void {
  if (!scope.read.is(list, 'array', label)) return;
  for (const node of list.children ?? []) compileStep(scope, node, out);
}

function compileStep(scope: Scope, node: Node, out: Step[]): void {
  const { read } = scope;
  const report = read.report;
  const entries = read.entries(node, 'a step');
  if (!entries) return;
  const kinds = entries.filter((p) => Object.hasOwn(STEP_KEYS, p.name));
  if (kinds.length === 0) {
    // A key that no step kind takes is most likely a misspelt kind.
    const stray = entries.find((p) => !OPTION_KEYS.has(p.name));
    if (stray) {
      report.node(stray.key, () =>
        unknown(
          'step kind',
          stray.name,
          `Step kinds: ${STEP_KINDS.join(', ')}`,
          closestStepKind(stray.name, STEP_KINDS),
        ),
      );
    } else {
      report.at(node.offset, 1, `a step needs a kind, one of: ${STEP_KINDS.join(', ')}`);
    }
    return;
  }
  const [kind, ...extra] = kinds;
  for (const p of extra) report.node(p.key, `a step has exactly one kind; this one has "${kind.name}" and "${p.name}"`);
  const k = kind.name as StepKind;
  const allowed: readonly string[] = STEP_KEYS[k];
  const opts = new Map<string, Prop>();
  for (const p of entries) {
    if (p === kind || extra.includes(p)) continue;
    if (allowed.includes(p.name)) opts.set(p.name, p);
    else read.unknownKey(p, [k, ...allowed], `${an(k)} step`);
  }
  COMPILE[k]({ scope, kind, opts, pos: report.pos(node.offset), offset: node.offset, out });
}

function push(c: Ctx, step: Unplaced<Step>): void {
  c.out.push({ ...step, pos: c.pos } as Step);
  c.scope.emitted++;
  const before = c.scope.work;
  c.scope.work += stepWork(c.scope, step);
  // Work only grows, so this reports the one step that first passes the limit.
  if (before <= c.scope.budget.work && c.scope.work > c.scope.budget.work)
    c.scope.read.report.at(
      c.offset,
      1,
      `the scenario's simulated work passes the limit of ${c.scope.budget.work} units here (${WORK_RULE}); use fewer steps, smaller grids or fewer streams`,
    );
}

/** The `stream` option, or the thread's default stream on its current device without one. */
function stream(c: Ctx): number | undefined {
  const p = c.opts.get('stream');
  return p ? streamId(c.scope, p.value, '"stream"') : c.scope.defaultStream(c.scope.device);
}

const deviceOf = (c: Ctx, s: number): number => c.scope.streamDecls[s].device;
const streamLabel = (c: Ctx, s: number): string => `stream "${c.scope.streamDecls[s].name}"`;

/** Where a complaint about the step's stream belongs: its `stream` option, else the kind's value. */
const streamNode = (c: Ctx): Node => c.opts.get('stream')?.value ?? c.kind.value;

/**
 * S21: `what` (on `device`) and stream `s` must be on one device for `call`; reports it otherwise.
 * A step without "stream" uses the current device's default stream, so the fix then is setDevice.
 */
function sameDevice(c: Ctx, s: number, what: string, device: number, call: string): boolean {
  const on = deviceOf(c, s);
  if (on === device) return true;
  const fix = c.opts.has('stream')
    ? `use a stream of device ${device}`
    : `add { "setDevice": ${device} } before it, or a "stream" of device ${device}`;
  c.scope.read.report.node(
    streamNode(c),
    `${what} is on device ${device} but ${streamLabel(c, s)} is on device ${on}; ${call} needs both on one device: ${fix}`,
  );
  return false;
}

/** The first of `keys` present in `props`; a second one is an error, and so is none when `missing` is given. */
function oneOf(c: Ctx, props: Map<string, Prop>, keys: readonly string[], missing?: [Node, string]): Prop | undefined {
  const present = keys.map((k) => props.get(k)).filter((p): p is Prop => p !== undefined);
  for (const p of present.slice(1)) {
    c.scope.read.report.node(
      p.key,
      `${an(c.kind.name)} takes one of ${alternatives(keys)}, not both "${present[0].name}" and "${p.name}"`,
    );
  }
  if (present.length === 0 && missing) c.scope.read.report.node(missing[0], missing[1]);
  return present[0];
}

function nanoseconds(c: Ctx, p: Prop, allowZero: boolean): number | undefined {
  const { read } = c.scope;
  const n = read.number(p);
  if (n === undefined) return undefined;
  if (allowZero ? n < 0 : n <= 0) {
    read.report.node(
      p.value,
      `"${p.name}": a duration must be ${allowZero ? '0 or more' : 'greater than 0'}, got ${n}`,
    );
    return undefined;
  }
  const ns = Math.round(n * NS_PER[p.name]);
  if (!Number.isSafeInteger(ns) || (ns === 0 && !allowZero)) {
    read.report.node(p.value, `"${p.name}": ${n} ${p.name} is ${ns === 0 ? 'shorter than 1 ns' : 'too long'}`);
    return undefined;
  }
  return ns;
}

function buffers(c: Ctx, key: 'reads' | 'writes'): number[] {
  const p = c.opts.get(key);
  if (!p || !c.scope.read.is(p.value, 'array', `"${key}"`)) return [];
  const ids = (p.value.children ?? []).map((n) => buffer(c.scope, n, `an item of "${key}"`)?.id);
  return [...new Set(ids.filter((id): id is number => id !== undefined))];
}

/** A byte count: the `bytes` option up to `max`, or `max` without one. */
function bytes(c: Ctx, max: number, of: BufferDecl): number | undefined {
  const p = c.opts.get('bytes');
  return p ? c.scope.read.int(p, 1, max, `from 1 to ${max} (the size of "${of.name}")`) : max;
}

/** `async` (default false); `stream` only means something for an async call. */
function asyncAndStream(c: Ctx, call: string): { async?: boolean; stream?: number } {
  const a = c.opts.get('async');
  const async = a ? c.scope.read.bool(a) : false;
  const s = c.opts.get('stream');
  if (s && async === false) {
    c.scope.read.report.node(s.key, `"stream" needs "async": true; ${call} always runs on the thread's default stream`);
    return { async };
  }
  return { async, stream: stream(c) };
}

/**
 * S21: a copy runs on a stream of a device it touches. A peer copy (between two devices' memory)
 * is cudaMemcpyPeerAsync on a stream of either device; cudaMemcpyPeer, the synchronous form, also
 * orders itself after all work of both devices, which scenarios do not model.
 */
function copyDevices(c: Ctx, src: BufferDecl, dst: BufferDecl, s: number, peer: boolean, async: boolean): boolean {
  const { report } = c.scope.read;
  if (peer) {
    if (!async) {
      report.node(
        c.kind.value,
        `a copy from device ${src.device} ("${src.name}") to device ${dst.device} ("${dst.name}") is a peer copy: it needs "async": true (cudaMemcpyPeerAsync)`,
      );
      return false;
    }
    const on = deviceOf(c, s);
    if (on === src.device || on === dst.device) return true;
    report.node(
      streamNode(c),
      `a peer copy from device ${src.device} to device ${dst.device} runs on a stream of one of them, but ${streamLabel(c, s)} is on device ${on}`,
    );
    return false;
  }
  const held = src.host ? dst : src;
  if (held.host) return true;
  return sameDevice(
    c,
    s,
    `buffer "${held.name}"`,
    held.device ?? 0,
    c.opts.get('async')?.value.value === true ? 'cudaMemcpyAsync' : 'cudaMemcpy',
  );
}

function noPageable(c: Ctx, node: Node, b: BufferDecl | undefined, what: string): BufferDecl | undefined {
  if (b?.host !== 'pageable') return b;
  c.scope.read.report.node(
    node,
    `${what} cannot access pageable host memory ("${b.name}"); use a device buffer or "host": "pinned"`,
  );
  return undefined;
}

/** One compiler per step kind: each checks its options, reports what is wrong and pushes its steps. */
const COMPILE: Record<StepKind, (c: Ctx) => void> = {
  launch: compileLaunch,
  record: compileRecord,
  wait: compileWait,
  waitStream: compileWaitStream,
  query: compileQuery,
  eventSync: compileEventSync,
  streamSync: compileStreamSync,
  deviceSync: compileDeviceSync,
  setDevice: compileSetDevice,
  elapsed: compileElapsed,
  copy: compileCopy,
  memset: compileMemset,
  hostWork: compileHostWork,
  hostFunc: compileHostFunc,
  repeat: compileRepeat,
};

function compileLaunch(c: Ctx): void {
  const { scope, kind, opts } = c;
  const name = scope.read.string(kind);
  const s = stream(c);
  const work = oneOf(
    c,
    opts,
    ['us', 'ms', 'ns', 'touch'],
    [
      kind.key,
      'a launch needs its work: "us", "ms" or "ns" (a spin kernel of that duration) or "touch" (a kernel over a buffer)',
    ],
  );
  let ns: number | undefined;
  let touch: BufferDecl | undefined;
  if (work?.name === 'touch') touch = noPageable(c, work.value, buffer(scope, work.value, '"touch"'), 'a kernel');
  else if (work) ns = nanoseconds(c, work, false);
  const grid = opts.get('grid') ? scope.read.int(opts.get('grid')!, 1, LIMITS.grid) : 1;
  const block = opts.get('block') ? scope.read.int(opts.get('block')!, 1, LIMITS.block) : 256;
  const perSm = opts.get('blocksPerSm') ? scope.read.int(opts.get('blocksPerSm')!, 1, LIMITS.blocksPerSm) : 0;
  const latency = opts.get('latencyNs') ? scope.read.int(opts.get('latencyNs')!, 0, LIMITS.latencyNs) : -1;
  const graphNode = opts.get('graphNode') ? scope.read.bool(opts.get('graphNode')!) : false;
  const reads = buffers(c, 'reads');
  const writes = buffers(c, 'writes');
  if (
    name === undefined ||
    s === undefined ||
    (ns === undefined && touch === undefined) ||
    grid === undefined ||
    block === undefined ||
    perSm === undefined ||
    latency === undefined ||
    graphNode === undefined
  )
    return;
  // Pinned host memory is mapped into every device; a device buffer only into its own.
  if (touch && !touch.host && !sameDevice(c, s, `buffer "${touch.name}"`, touch.device ?? 0, 'a touch kernel')) return;
  if (touch) {
    // A touch kernel reads and writes its buffer, and the ordering checks must see both.
    if (!reads.includes(touch.id)) reads.push(touch.id);
    if (!writes.includes(touch.id)) writes.push(touch.id);
  }
  push(c, {
    op: 'launch',
    name,
    stream: s,
    ...(touch ? { touch: touch.id } : { ns }),
    grid,
    block,
    ...(perSm ? { blocksPerSm: perSm } : {}),
    ...(latency >= 0 ? { latencyNs: latency } : {}),
    ...(graphNode ? { graphNode } : {}),
    reads,
    writes,
  });
}

function compileRecord(c: Ctx): void {
  const event = eventId(c.scope, c.kind.value, '"record"');
  const s = stream(c);
  if (event === undefined || s === undefined) return;
  const decl = c.scope.eventDecls[event];
  if (sameDevice(c, s, `event "${decl.name}"`, decl.device, 'cudaEventRecord'))
    push(c, { op: 'record', event, stream: s });
}

function compileWait(c: Ctx): void {
  const event = eventId(c.scope, c.kind.value, '"wait"');
  const s = stream(c);
  if (event !== undefined && s !== undefined) push(c, { op: 'wait', event, stream: s });
}

function compileWaitStream(c: Ctx): void {
  const other = streamId(c.scope, c.kind.value, '"waitStream"');
  const s = stream(c);
  if (other === undefined || s === undefined) return;
  // Stream.wait_stream: an event nobody declared, recorded on `other` and waited for on `s`.
  const events = c.scope.eventDecls;
  const waiter = (c.opts.get('stream')?.value.value as string | undefined) ?? 'default';
  const event = events.length;
  events.push({
    id: event,
    name: `waitStream ${c.kind.value.value}->${waiter} at ${c.pos.line}:${c.pos.column}`,
    timing: false,
    blockingSync: false,
    internal: true,
    device: deviceOf(c, other),
    pos: c.pos,
  });
  push(c, { op: 'record', event, stream: other });
  push(c, { op: 'wait', event, stream: s });
}

function compileQuery(c: Ctx): void {
  const event = eventId(c.scope, c.kind.value, '"query"');
  const e = c.opts.get('expect');
  const expect = e ? c.scope.read.oneOf(e, QUERY_EXPECT, 'answer') : undefined;
  if (event === undefined || (e && !expect)) return;
  push(c, { op: 'query', event, ...(expect ? { expect } : {}) });
}

function compileEventSync(c: Ctx): void {
  const event = eventId(c.scope, c.kind.value, '"eventSync"');
  if (event !== undefined) push(c, { op: 'eventSync', event });
}

function compileStreamSync(c: Ctx): void {
  const s = streamId(c.scope, c.kind.value, '"streamSync"');
  if (s !== undefined) push(c, { op: 'streamSync', stream: s });
}

function compileDeviceSync(c: Ctx): void {
  const v = c.kind.value;
  if (v.type === 'boolean' && v.value === true) return push(c, { op: 'deviceSync', device: c.scope.device });
  if (v.type === 'boolean') {
    c.scope.read.report.node(v, '"deviceSync": expected true (the current device) or a device number, got false');
    return;
  }
  // torch.cuda.synchronize(1): a device number synchronizes that device, whatever is current.
  const device = deviceNumber(c.scope.read, v, '"deviceSync" (true for the current device, or a device number)');
  if (device === undefined) return;
  c.scope.deviceSyncs.push({ device, node: v });
  push(c, { op: 'deviceSync', device });
}

function compileSetDevice(c: Ctx): void {
  const device = deviceNumber(c.scope.read, c.kind.value, '"setDevice"');
  if (device === undefined) return;
  c.scope.useDevice(device, c.pos);
  c.scope.device = device;
  push(c, { op: 'setDevice', device });
}

function compileElapsed(c: Ctx): void {
  const v = c.kind.value;
  const items = v.type === 'array' ? (v.children ?? []) : [];
  if (v.type !== 'array' || items.length !== 2) {
    const got = v.type === 'array' ? `${items.length} item${items.length === 1 ? '' : 's'}` : v.type;
    c.scope.read.report.node(v, `"elapsed": expected two event names, as in ["start", "end"], got ${got}`);
    return;
  }
  const from = eventId(c.scope, items[0], '"elapsed"');
  const to = eventId(c.scope, items[1], '"elapsed"');
  if (from === undefined || to === undefined) return;
  const [a, b] = [c.scope.eventDecls[from], c.scope.eventDecls[to]];
  if (a.device !== b.device) {
    c.scope.read.report.node(
      items[1],
      `event "${b.name}" is on device ${b.device} but "${a.name}" on device ${a.device}; cudaEventElapsedTime needs two events of one device`,
    );
    return;
  }
  push(c, { op: 'elapsed', from, to });
}

function compileCopy(c: Ctx): void {
  const { scope, kind, opts } = c;
  const src = buffer(scope, kind.value, '"copy"');
  const to = opts.get('to');
  if (!to) scope.read.report.node(kind.key, 'a copy needs "to": the destination buffer');
  const dst = to && buffer(scope, to.value, '"to"');
  const { async, stream: s } = asyncAndStream(c, 'a synchronous copy (cudaMemcpy)');
  if (!src || !dst) return;
  if (src === dst) {
    scope.read.report.node(to.value, `a copy from "${src.name}" to itself; copy between two buffers`);
    return;
  }
  const smaller = src.bytes <= dst.bytes ? src : dst;
  const n = bytes(c, smaller.bytes, smaller);
  if (n === undefined || async === undefined || s === undefined) return;
  const peer = !src.host && !dst.host && src.device !== dst.device;
  const direction = peer ? 'PtoP' : (`${src.host ? 'H' : 'D'}to${dst.host ? 'H' : 'D'}` as const);
  if (!copyDevices(c, src, dst, s, peer, async)) return;
  // A measured duration (a copy from a trace) replaces what the profile's bandwidth would give.
  const d = oneOf(c, c.opts, DURATION_KEYS);
  const ns = d && nanoseconds(c, d, false);
  if (d && ns === undefined) return;
  push(c, { op: 'copy', src: src.id, dst: dst.id, bytes: n, direction, async, stream: s, ...(ns ? { ns } : {}) });
}

function compileMemset(c: Ctx): void {
  const b = noPageable(c, c.kind.value, buffer(c.scope, c.kind.value, '"memset"'), 'memset');
  const { async, stream: s } = asyncAndStream(c, 'a synchronous memset (cudaMemset)');
  if (!b || s === undefined) return;
  if (!b.host && !sameDevice(c, s, `buffer "${b.name}"`, b.device ?? 0, 'a memset')) return;
  const n = bytes(c, b.bytes, b);
  if (n !== undefined && async !== undefined && s !== undefined)
    push(c, { op: 'memset', buffer: b.id, bytes: n, async, stream: s });
}

function compileHostWork(c: Ctx): void {
  const props = c.scope.read.props(c.kind.value, DURATION_KEYS, '"hostWork"', '"hostWork"');
  if (!props) return;
  const d = oneOf(c, props, DURATION_KEYS, [c.kind.value, '"hostWork": expected a duration, as in { "us": 30 }']);
  const ns = d && nanoseconds(c, d, false);
  if (ns !== undefined) push(c, { op: 'hostWork', ns });
}

function compileHostFunc(c: Ctx): void {
  const name = c.scope.read.string(c.kind);
  const s = stream(c);
  const d = oneOf(c, c.opts, DURATION_KEYS);
  const ns = d ? nanoseconds(c, d, true) : 0;
  if (name !== undefined && s !== undefined && ns !== undefined) push(c, { op: 'hostFunc', name, stream: s, ns });
}

function compileRepeat(c: Ctx): void {
  const { scope, kind } = c;
  const report = scope.read.report;
  const count = repeatCount(c);
  const steps = c.opts.get('steps');
  if (!steps) {
    report.node(kind.key, 'a repeat needs "steps": the steps to repeat');
    return;
  }
  if (scope.repeatDepth >= LIMITS.repeatNesting) {
    report.node(
      kind.key,
      `repeats nested more than ${LIMITS.repeatNesting} deep; merge inner repeats into one with the product of their counts`,
    );
    return;
  }
  const body: Step[] = [];
  const device = scope.device;
  const work = scope.work;
  scope.repeatDepth++;
  compileSteps(scope, steps.value, '"steps"', body);
  scope.repeatDepth--;
  if (scope.device !== device) {
    // The body is compiled once, so every repetition must begin on the device the first one did.
    report.node(
      kind.key,
      `a repeat's steps must end on the device they start on (device ${device}), or each repetition would run somewhere else; end them with { "setDevice": ${device} }`,
    );
    scope.device = device;
    return;
  }
  if (count === undefined || !withinBudget(c, count, body.length, scope.work - work)) return;
  scope.emitted += (count - 1) * body.length;
  scope.work += (count - 1) * (scope.work - work);
  // With errors there is no program to build, so skip the repetitions.
  const repetitions = report.count > 0 ? 1 : count;
  for (let r = 0; r < repetitions; r++) for (const s of body) c.out.push(s);
}

/** The repeat count, or undefined after reporting what is wrong with it. */
function repeatCount(c: Ctx): number | undefined {
  const { read } = c.scope;
  const count = read.number(c.kind);
  if (count === undefined || (Number.isInteger(count) && count >= 1 && count <= LIMITS.repeat)) return count;
  read.report.node(
    c.kind.value,
    count > LIMITS.repeat
      ? `runaway repeat: ${count} repetitions, over the limit of ${LIMITS.repeat}`
      : `"repeat": expected a whole number from 1 to ${LIMITS.repeat}, got ${count}`,
  );
  return undefined;
}

/**
 * Whether `count` repetitions of a body of `steps` steps and `work` units stay within the step
 * and work limits (checked before unrolling: the unrolled copies are what costs memory).
 */
function withinBudget(c: Ctx, count: number, steps: number, work: number): boolean {
  const { scope, kind } = c;
  const total = scope.emitted + (count - 1) * steps;
  if (total > scope.budget.steps) {
    scope.read.report.node(
      kind.value,
      `runaway repeat: ${count} x ${steps} steps make ${total} steps in all, over the limit of ${scope.budget.steps}${scope.budget.raise ? `; ${scope.budget.raise}` : ''}`,
    );
    return false;
  }
  const cost = scope.work + (count - 1) * work;
  if (cost > scope.budget.work) {
    scope.read.report.node(
      kind.value,
      `runaway repeat: ${count} repetitions make ${cost} units of simulated work (${WORK_RULE}), over the limit of ${scope.budget.work}; repeat fewer times, or use smaller grids or fewer streams`,
    );
    return false;
  }
  return true;
}

/** A kernel costs one more unit of work per this many blocks (many simulated waves of blocks). */
const BLOCKS_PER_UNIT = 4096;
/** An op costs one more unit of work per this many streams that it may be ordered or queued against. */
const STREAMS_PER_UNIT = 64;
const WORK_RULE = `a step is 1, plus 1 per ${BLOCKS_PER_UNIT} blocks of a kernel and per ${STREAMS_PER_UNIT} streams`;

/**
 * What a step costs the simulator, in units of one plain step: a kernel's blocks run in waves,
 * each an event of its own, and an op on a stream or a device synchronize is ordered and queued
 * against the other streams (the legacy default stream against every one).
 */
function stepWork(scope: Scope, step: Unplaced<Step>): number {
  const grid = step.op === 'launch' ? Math.floor(step.grid / BLOCKS_PER_UNIT) : 0;
  const streams =
    'stream' in step || step.op === 'deviceSync' ? Math.floor(scope.streamDecls.length / STREAMS_PER_UNIT) : 0;
  return 1 + grid + streams;
}
