// The scenario language: parses a `*.scenario.json` text (comments and trailing commas allowed)
// and compiles it to a Program. Every error carries the line and column of the text at fault.
import { parseTree, printParseErrorCode, type Node, type ParseError } from './jsonc';
import { Reporter, ScenarioError } from './errors';
import {
  BUFFER_KEYS,
  DEVICE_KEYS,
  EVENT_KEYS,
  HOST_MEMORY,
  LIMITS,
  RESERVED_STREAMS,
  SCHEDULES,
  STREAM_KEYS,
  TOP_LEVEL_KEYS,
} from './kinds';
import { deviceList, deviceNumber, nearestUsed, readPerDevice, usedList } from './devices';
import type { BufferDecl, EventDecl, Pos, Program, Schedule, Step, StreamDecl, ThreadDecl } from './program';
import { Reader, type Prop } from './read';
import type { Scope } from './scope';
import { compileSteps } from './steps';

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

export function parseScenario(source: string, file = 'scenario'): ParseResult {
  // Editors hide a byte order mark and do not count it in columns; neither do we.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const report = new Reporter(text, file);
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
  const program = compile(new Reader(report), root, file);
  return report.count > 0 ? { errors: report.sorted() } : { program, errors: [] };
}

export function compileScenario(text: string, file?: string): Program {
  const { program, errors } = parseScenario(text, file);
  if (!program) throw errors[0];
  return program;
}

function compile(read: Reader, root: Node, file: string): Program | undefined {
  const report = read.report;
  const top = read.props(root, TOP_LEVEL_KEYS, 'the scenario', 'the scenario');
  if (!top) return undefined;
  const rootPos = report.pos(root.offset);
  const text = (key: string): string | undefined => (top.has(key) ? read.string(top.get(key)!) : undefined);

  const name = text('name');
  if (!top.has('name')) report.at(root.offset, 1, 'a scenario needs a "name"');
  const description =
    top.has('description') && read.is(top.get('description')!.value, 'string', '"description"')
      ? (top.get('description')!.value.value as string)
      : undefined;
  const device = readDevice(read, top.get('device'));
  const perDevice = readPerDevice(read, top.get('devices'));
  // Where each device is first named by a declaration or a setDevice step; device 0 always exists.
  const used = new Map<number, Pos>([[0, rootPos]]);
  const useDevice = (d: number, pos: Pos): void => {
    if (!used.has(d)) used.set(d, pos);
  };

  const threadLists = readThreads(read, root, top);
  const streams: StreamDecl[] = [
    {
      id: 0,
      name: 'default',
      nonBlocking: false,
      priority: 0,
      legacyDefault: true,
      perThreadDefault: false,
      device: 0,
      pos: rootPos,
    },
  ];
  const threads: ThreadDecl[] = threadLists.map(([threadName, key], id) => {
    let defaultStream = 0;
    if (device.perThreadDefaultStream) {
      defaultStream = streams.length;
      streams.push({
        id: defaultStream,
        name: `default (${threadName})`,
        nonBlocking: false,
        priority: 0,
        legacyDefault: false,
        perThreadDefault: true,
        thread: id,
        device: 0,
        pos: report.pos(key.offset),
      });
    }
    return { id, name: threadName, defaultStream, steps: [] };
  });
  const streamIds = readStreams(read, top.get('streams'), streams, useDevice);
  const events = readEvents(read, top.get('events'), useDevice);
  const buffers = readBuffers(read, top.get('buffers'), useDevice);

  // Other devices' legacy and per-thread default streams exist once a step names them, so a
  // one-device scenario compiles to exactly the streams it always had.
  const builtIn = new Map<string, number>([
    ['legacy 0', 0],
    ...threads.map((t): [string, number] => [`thread ${t.id} 0`, t.defaultStream]),
  ]);
  const builtInStream = (key: string, make: (id: number) => StreamDecl): number => {
    let id = builtIn.get(key);
    if (id === undefined) {
      id = streams.length;
      streams.push(make(id));
      builtIn.set(key, id);
    }
    return id;
  };
  const legacyStream = (d: number): number =>
    builtInStream(`legacy ${d}`, (id) => ({
      id,
      name: `default (GPU ${d})`,
      nonBlocking: false,
      priority: 0,
      legacyDefault: true,
      perThreadDefault: false,
      device: d,
      pos: used.get(d) ?? rootPos,
    }));

  const scope: Scope = {
    read,
    streams: streamIds,
    events: new Map(events.map((e) => [e.name, e.id])),
    buffers: new Map(buffers.map((b) => [b.name, b])),
    eventDecls: events,
    streamDecls: streams,
    thread: threads[0],
    device: 0,
    legacyStream,
    defaultStream: (d) => {
      if (!device.perThreadDefaultStream) return legacyStream(d);
      const t = scope.thread;
      return builtInStream(`thread ${t.id} ${d}`, (id) => ({
        id,
        name: `default (${t.name}, GPU ${d})`,
        nonBlocking: false,
        priority: 0,
        legacyDefault: false,
        perThreadDefault: true,
        thread: t.id,
        device: d,
        pos: used.get(d) ?? rootPos,
      }));
    },
    useDevice,
    deviceSyncs: [],
    emitted: 0,
  };
  threadLists.forEach(([, , list], i) => {
    scope.thread = threads[i];
    scope.device = 0;
    const steps: Step[] = [];
    compileSteps(
      scope,
      list,
      threadLists.length === 1 && top.has('steps') ? '"steps"' : `thread "${threads[i].name}"`,
      steps,
    );
    steps.forEach((s, index) => {
      s.index = index;
    });
    threads[i].steps = steps;
  });
  // A device number that nothing else names is most likely a typo of one that something does.
  const usedDevices = new Set(used.keys());
  for (const { device: d, node } of scope.deviceSyncs) {
    if (used.has(d)) continue;
    report.node(
      node,
      `"deviceSync": no stream, event, buffer or setDevice step of this scenario uses device ${d}; did you mean ${nearestUsed(d, usedDevices)}? Devices used: ${usedList(usedDevices)}`,
    );
  }
  for (const [d, { key }] of perDevice) {
    if (used.has(d)) continue;
    report.node(
      key,
      `"devices": settings for device ${d}, which no stream, event, buffer or setDevice step uses; did you mean "${nearestUsed(d, usedDevices)}"? Devices used: ${usedList(usedDevices)}`,
    );
  }
  if (report.count > 0 || name === undefined) return undefined;
  const devices = deviceList(used, perDevice, device.schedule, rootPos);
  return {
    name,
    ...(description !== undefined ? { description } : {}),
    file,
    device,
    devices,
    streams,
    events,
    buffers,
    threads,
    stepCount: scope.emitted,
  };
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
