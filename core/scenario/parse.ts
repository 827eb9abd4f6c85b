// The scenario language: parses a `*.scenario.json` text (comments and trailing commas allowed)
// and compiles it to a Program. Every error carries the line and column of the text at fault.
import { parseTree, printParseErrorCode, type Node, type ParseError } from './jsonc';
import { Reporter, ScenarioError } from './errors';
import {
  BUFFER_KEYS,
  DEVICE_KEYS,
  EVENT_KEYS,
  HOST_MEMORY,
  HOSTILE_BUDGET,
  LIMITS,
  RESERVED_STREAMS,
  SCHEDULES,
  STREAM_KEYS,
  TOP_LEVEL_KEYS,
  type ScenarioBudget,
} from './kinds';
import { deviceList, deviceNumber, nearestUsed, readPerDevice, usedList, type PerDevice } from './devices';
import type { BufferDecl, EventDecl, Pos, Program, Schedule, Step, StreamDecl, ThreadDecl } from './program';
import { MAX_NESTING, tooDeep } from './nesting';
import { Reader, type Prop } from './read';
import type { Scope } from './scope';
import { compileSteps } from './steps';
import { unpack } from './tree';

export { ScenarioError } from './errors';
export { STEP_KINDS, STEP_KEYS, TOP_LEVEL_KEYS } from './kinds';

export interface ParseResult {
  program?: Program;
  errors: ScenarioError[];
}

const SYNTAX: Record<string, string> = {
  InvalidSymbol: 'invalid symbol',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'expected the end of the file',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in a string',
};

/** `budget`: how far repeats may unroll; the tight one for input nobody vouched for unless the caller sizes its own. */
export function parseScenario(source: string, file = 'scenario', budget = HOSTILE_BUDGET): ParseResult {
  // Editors hide a byte order mark and do not count it in columns; neither do we.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const report = new Reporter(text, file);
  const deep = tooDeep(text);
  if (deep >= 0) {
    report.at(
      deep,
      1,
      `nesting deeper than ${MAX_NESTING} levels; a scenario nests objects and arrays far less deeply (repeats at most ${LIMITS.repeatNesting} deep)`,
    );
    return { errors: report.sorted() };
  }
  const syntax: ParseError[] = [];
  const root = parseTree(text, syntax, { allowTrailingComma: true, disallowComments: false });
  for (const e of syntax) {
    const code = printParseErrorCode(e.error);
    report.at(e.offset, e.length, `JSON syntax error: ${SYNTAX[code] ?? code} (${code})`);
  }
  // A broken tree gives confusing follow-on errors; the syntax errors alone say what to fix.
  if (report.count > 0 || !root) {
    if (!root && report.count === 0)
      report.at(0, 0, 'the file is empty; a scenario is an object with "name" and "steps"');
    return { errors: report.sorted() };
  }
  const program = compile(new Reader(report), root, file, budget);
  return report.count > 0 ? { errors: report.sorted() } : { program, errors: [] };
}

/**
 * A scenario given as a tree built from values (./tree.ts), checked by the same rules as a text; its
 * errors and steps are placed by the tree's packed offsets.
 */
export function compileTree(root: Node, file = 'scenario', budget = HOSTILE_BUDGET): ParseResult {
  const report = new Reporter('', file, unpack);
  const program = compile(new Reader(report), root, file, budget);
  return report.count > 0 ? { errors: report.sorted() } : { program, errors: [] };
}

export function compileScenario(text: string, file?: string, budget = HOSTILE_BUDGET): Program {
  const { program, errors } = parseScenario(text, file, budget);
  if (!program) throw errors[0];
  return program;
}

/** Where each device is first named, and how to note a use; device 0 always exists. */
interface DeviceUses {
  used: Map<number, Pos>;
  useDevice: (d: number, pos: Pos) => void;
}

function compile(read: Reader, root: Node, file: string, budget: ScenarioBudget): Program | undefined {
  const report = read.report;
  const top = read.props(root, TOP_LEVEL_KEYS, 'the scenario', 'the scenario');
  if (!top) return undefined;
  const rootPos = report.pos(root.offset);
  const name = top.has('name') ? read.string(top.get('name')!) : undefined;
  if (!top.has('name')) report.at(root.offset, 1, 'a scenario needs a "name"');
  const description =
    top.has('description') && read.is(top.get('description')!.value, 'string', '"description"')
      ? (top.get('description')!.value.value as string)
      : undefined;
  const device = readDevice(read, top.get('device'));
  const perDevice = readPerDevice(read, top.get('devices'));
  const used = new Map<number, Pos>([[0, rootPos]]);
  const uses: DeviceUses = {
    used,
    useDevice: (d, pos) => {
      if (!used.has(d)) used.set(d, pos);
    },
  };

  const threadLists = readThreads(read, root, top);
  const streams: StreamDecl[] = [builtInStream(0, 'default', true, 0, rootPos)];
  const threads = threadLists.map(([threadName, key], id) =>
    declareThread(id, threadName, device.perThreadDefaultStream ? streams : undefined, report.pos(key.offset)),
  );
  const streamIds = readStreams(read, top.get('streams'), streams, uses.useDevice);
  const events = readEvents(read, top.get('events'), uses.useDevice);
  const buffers = readBuffers(read, top.get('buffers'), uses.useDevice);
  const scope = makeScope(read, { streamIds, streams, events, buffers, threads }, device, uses, rootPos, budget);
  compileThreads(scope, threads, threadLists, threadLists.length === 1 && top.has('steps'));
  checkDeviceUses(read, scope, perDevice, used);
  if (report.count > 0 || name === undefined) return undefined;
  return {
    name,
    ...(description !== undefined ? { description } : {}),
    file,
    device,
    devices: deviceList(used, perDevice, device.schedule, rootPos),
    streams,
    events,
    buffers,
    threads,
    stepCount: scope.emitted,
  };
}

/** A default stream: the legacy one of a device, or a thread's per-thread one. */
function builtInStream(
  id: number,
  name: string,
  legacy: boolean,
  device: number,
  pos: Pos,
  thread?: number,
): StreamDecl {
  return {
    id,
    name,
    nonBlocking: false,
    priority: 0,
    legacyDefault: legacy,
    perThreadDefault: !legacy,
    ...(thread !== undefined ? { thread } : {}),
    device,
    pos,
  };
}

/** A thread, with its own default stream on device 0 when `streams` is given (perThreadDefaultStream). */
function declareThread(id: number, name: string, streams: StreamDecl[] | undefined, pos: Pos): ThreadDecl {
  if (!streams) return { id, name, defaultStream: 0, steps: [] };
  const defaultStream = streams.length;
  streams.push(builtInStream(defaultStream, `default (${name})`, false, 0, pos, id));
  return { id, name, defaultStream, steps: [] };
}

interface Declared {
  streamIds: Map<string, number>;
  streams: StreamDecl[];
  events: EventDecl[];
  buffers: BufferDecl[];
  threads: ThreadDecl[];
}

/**
 * What step compilation resolves names against. Other devices' legacy and per-thread default
 * streams exist once a step names them, so a one-device scenario compiles to exactly the streams
 * it always had.
 */
function makeScope(
  read: Reader,
  d: Declared,
  device: Program['device'],
  uses: DeviceUses,
  rootPos: Pos,
  budget: ScenarioBudget,
): Scope {
  const { streams, threads } = d;
  const builtIn = new Map<string, number>([
    ['legacy 0', 0],
    ...threads.map((t): [string, number] => [`thread ${t.id} 0`, t.defaultStream]),
  ]);
  const streamFor = (key: string, make: (id: number) => StreamDecl): number => {
    let id = builtIn.get(key);
    if (id === undefined) {
      id = streams.length;
      streams.push(make(id));
      builtIn.set(key, id);
    }
    return id;
  };
  const firstUse = (gpu: number): Pos => uses.used.get(gpu) ?? rootPos;
  const legacyStream = (gpu: number): number =>
    streamFor(`legacy ${gpu}`, (id) => builtInStream(id, `default (GPU ${gpu})`, true, gpu, firstUse(gpu)));
  const scope: Scope = {
    read,
    streams: d.streamIds,
    events: new Map(d.events.map((e) => [e.name, e.id])),
    buffers: new Map(d.buffers.map((b) => [b.name, b])),
    eventDecls: d.events,
    streamDecls: streams,
    thread: threads[0],
    device: 0,
    legacyStream,
    defaultStream: (gpu) => {
      if (!device.perThreadDefaultStream) return legacyStream(gpu);
      const t = scope.thread;
      return streamFor(`thread ${t.id} ${gpu}`, (id) =>
        builtInStream(id, `default (${t.name}, GPU ${gpu})`, false, gpu, firstUse(gpu), t.id),
      );
    },
    useDevice: uses.useDevice,
    deviceSyncs: [],
    emitted: 0,
    work: 0,
    budget,
    repeatDepth: 0,
  };
  return scope;
}

/** Compiles each thread's steps. */
function compileThreads(scope: Scope, threads: ThreadDecl[], lists: [string, Node, Node][], oneSteps: boolean): void {
  lists.forEach(([, , list], i) => {
    scope.thread = threads[i];
    scope.device = 0;
    const steps: Step[] = [];
    compileSteps(scope, list, oneSteps ? '"steps"' : `thread "${threads[i].name}"`, steps);
    threads[i].steps = steps;
  });
}

/** A device number that nothing else names is most likely a typo of one that something does. */
function checkDeviceUses(read: Reader, scope: Scope, perDevice: Map<number, PerDevice>, used: Map<number, Pos>): void {
  const usedDevices = new Set(used.keys());
  for (const { device: d, node } of scope.deviceSyncs) {
    if (used.has(d)) continue;
    read.report.node(
      node,
      `"deviceSync": no stream, event, buffer or setDevice step of this scenario uses device ${d}; did you mean ${nearestUsed(d, usedDevices)}? Devices used: ${usedList(usedDevices)}`,
    );
  }
  for (const [d, { key }] of perDevice) {
    if (used.has(d)) continue;
    read.report.node(
      key,
      `"devices": settings for device ${d}, which no stream, event, buffer or setDevice step uses; did you mean "${nearestUsed(d, usedDevices)}"? Devices used: ${usedList(usedDevices)}`,
    );
  }
}

/** The `device` key of a declaration (0 without one), noted as a use of that device. */
function declDevice(
  read: Reader,
  props: Map<string, Prop> | undefined,
  useDevice: (d: number, pos: Pos) => void,
): number | undefined {
  const p = props?.get('device');
  if (!p) return 0;
  const d = deviceNumber(read, p.value, '"device"');
  if (d !== undefined) useDevice(d, read.report.pos(p.value.offset));
  return d;
}

function readDevice(read: Reader, p: Prop | undefined): Program['device'] {
  const device: Program['device'] = { schedule: 'auto', perThreadDefaultStream: false };
  const props = p && read.props(p.value, DEVICE_KEYS, '"device"', '"device"');
  const schedule = props?.get('schedule');
  const ptds = props?.get('perThreadDefaultStream');
  if (schedule) device.schedule = read.oneOf<Schedule>(schedule, SCHEDULES, 'schedule') ?? 'auto';
  if (ptds) device.perThreadDefaultStream = read.bool(ptds) ?? false;
  return device;
}

/** Each thread's name, key node and steps array: `steps` is one thread named "main". */
function readThreads(read: Reader, root: Node, top: Map<string, Prop>): [string, Node, Node][] {
  const steps = top.get('steps');
  const threads = top.get('threads');
  if (steps && threads) {
    const later = steps.key.offset > threads.key.offset ? steps : threads;
    read.report.node(later.key, 'a scenario has either "steps" (one thread) or "threads", not both');
  }
  if (steps) return [['main', steps.key, steps.value]];
  if (!threads) {
    read.report.at(root.offset, 1, 'a scenario needs "steps" (or "threads": { "main": [...], ... })');
    return [];
  }
  const entries = read.entries(threads.value, '"threads"') ?? [];
  if (threads.value.type === 'object' && entries.length === 0)
    read.report.node(threads.value, '"threads": expected at least one thread');
  return entries.map((t) => [t.name, t.key, t.value]);
}

/** A declared name must be a usable word: not empty. */
function declName(read: Reader, p: Prop, what: string): boolean {
  if (p.name.trim() !== '') return true;
  read.report.node(p.key, `a ${what} name must not be empty`);
  return false;
}

function readStreams(
  read: Reader,
  node: Prop | undefined,
  streams: StreamDecl[],
  useDevice: (d: number, pos: Pos) => void,
): Map<string, number> {
  const ids = new Map<string, number>();
  for (const p of (node && read.entries(node.value, '"streams"')) ?? []) {
    const props = read.props(p.value, STREAM_KEYS, `stream "${p.name}"`, `stream "${p.name}"`);
    if ((RESERVED_STREAMS as readonly string[]).includes(p.name) || p.name.startsWith('default (')) {
      const meaning = p.name === 'legacy' ? 'the legacy default stream' : "the calling thread's default stream";
      read.report.node(p.key, `"${p.name}" is a reserved stream name (it names ${meaning}); choose another name`);
      continue;
    }
    if (!declName(read, p, 'stream')) continue;
    const nb = props?.get('nonBlocking');
    const pr = props?.get('priority');
    const id = streams.length;
    streams.push({
      id,
      name: p.name,
      nonBlocking: (nb && read.bool(nb)) ?? false,
      priority:
        (pr && read.int(pr, LIMITS.priorityHighest, 0, `from ${LIMITS.priorityHighest} (highest) to 0 (lowest)`)) ?? 0,
      legacyDefault: false,
      perThreadDefault: false,
      device: declDevice(read, props, useDevice) ?? 0,
      pos: read.report.pos(p.key.offset),
    });
    ids.set(p.name, id);
  }
  return ids;
}

function readEvents(read: Reader, node: Prop | undefined, useDevice: (d: number, pos: Pos) => void): EventDecl[] {
  const events: EventDecl[] = [];
  for (const p of (node && read.entries(node.value, '"events"')) ?? []) {
    const props = read.props(p.value, EVENT_KEYS, `event "${p.name}"`, `event "${p.name}"`);
    if (!declName(read, p, 'event')) continue;
    const flag = (key: string): boolean => {
      const f = props?.get(key);
      return (f && read.bool(f)) ?? false;
    };
    events.push({
      id: events.length,
      name: p.name,
      timing: flag('timing'),
      blockingSync: flag('blockingSync'),
      internal: false,
      device: declDevice(read, props, useDevice) ?? 0,
      pos: read.report.pos(p.key.offset),
    });
  }
  return events;
}

function readBuffers(read: Reader, node: Prop | undefined, useDevice: (d: number, pos: Pos) => void): BufferDecl[] {
  const buffers: BufferDecl[] = [];
  for (const p of (node && read.entries(node.value, '"buffers"')) ?? []) {
    const props = read.props(p.value, BUFFER_KEYS, `buffer "${p.name}"`, `buffer "${p.name}"`);
    if (!declName(read, p, 'buffer')) continue;
    const size = props?.get('bytes');
    if (props && !size) read.report.node(p.key, `buffer "${p.name}" needs "bytes": its size`);
    const bytes = size && read.int(size, 1, LIMITS.bufferBytes, `of bytes from 1 to ${LIMITS.bufferBytes} (1 TiB)`);
    const hostP = props?.get('host');
    const host = hostP && read.oneOf(hostP, HOST_MEMORY, 'host memory kind');
    const deviceP = props?.get('device');
    if (deviceP && hostP)
      read.report.node(
        deviceP.key,
        `buffer "${p.name}" is host memory, which belongs to no device (every GPU reaches it); drop "device", or "host" for memory on that GPU`,
      );
    const device = hostP ? undefined : declDevice(read, props, useDevice);
    // Keep a bad buffer declared, so that the steps naming it do not add errors of their own.
    buffers.push({
      id: buffers.length,
      name: p.name,
      bytes: bytes ?? 1,
      ...(host ? { host } : {}),
      ...(hostP ? {} : { device: device ?? 0 }),
      pos: read.report.pos(p.key.offset),
    });
  }
  return buffers;
}
