// Seeded, deterministic inputs for the fuzz suite: scenarios, PyTorch profiler traces and saved
// traces (JSON and Arrow), each a valid file of the repository mutated the way hostile or careless users would.
// The same (kind, seed, maxBytes) always gives the same bytes, so a failure reproduces from its seed.
import { readdirSync, readFileSync } from 'node:fs';
import { parse as parseJsonc } from 'jsonc-parser/lib/esm/main.js';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { traceToJson } from '../../core/trace/json';
import { repoPath } from '../helpers/paths';
import { seededRandom } from '../helpers/random';
import { mutateArrow } from './arrow';
import { clone, Raw, stringify, type Value } from './json-tree';
import {
  deepValue,
  gzipBomb,
  gzipVariant,
  hostileNumber,
  hostileString,
  mutateText,
  mutateTree,
  objectForString,
  rng,
  wrongType,
  type Rng,
} from './mutate';

export const KINDS = ['scenario', 'pytorch', 'saved', 'arrow'] as const;
export type Kind = (typeof KINDS)[number];

export interface FuzzInput {
  kind: Kind;
  seed: number;
  /** The file name to write it under: its suffix decides how the CLI reads it. */
  name: string;
  bytes: Buffer;
  /** What was done to the original, in order. */
  mutations: string[];
  origin: string;
  /** How to make it again. */
  again: string;
}

export interface GenerateOptions {
  /** No input is larger than this (a gzip bomb counts its compressed size). */
  maxBytes: number;
  /** Allow the slow-to-build shapes: gzip bombs. */
  heavy?: boolean;
}

/** The kind an input of this seed has when none is asked for. */
export const kindOfSeed = (seed: number): Kind => KINDS[seed % KINDS.length];

export function generate(kind: Kind, seed: number, opts: GenerateOptions): FuzzInput {
  const r = rng(seededRandom(seed * 2654435761 + KINDS.indexOf(kind)));
  const made = GENERATORS[kind](r, opts);
  let bytes: Buffer = made.bytes;
  const mutations = made.mutations;
  if (bytes.length > opts.maxBytes) {
    bytes = bytes.subarray(0, opts.maxBytes);
    mutations.push(`truncate to ${opts.maxBytes} bytes`);
  }
  const again = `npm run fuzz -- --kind ${kind} --seed ${seed} --count 1 --max-bytes ${opts.maxBytes}${opts.heavy ? '' : ' --light'}`;
  return { kind, seed, name: `${kind}-${seed}${made.suffix}`, bytes, mutations, origin: made.origin, again };
}

interface Made {
  bytes: Buffer;
  mutations: string[];
  suffix: string;
  origin: string;
}

const GENERATORS: Record<Kind, (r: Rng, opts: GenerateOptions) => Made> = {
  scenario: generateScenario,
  pytorch: generatePytorch,
  saved: generateSaved,
  arrow: generateArrow,
};

// ---- seeds -------------------------------------------------------------------------------------

let examples: { name: string; text: string }[] | undefined;
function exampleScenarios() {
  examples ??= readdirSync(repoPath('examples'))
    .filter((f) => f.endsWith('.scenario.json'))
    .sort()
    .map((name) => ({ name, text: readFileSync(repoPath('examples', name), 'utf8') }));
  return examples;
}

let torch: { name: string; text: string }[] | undefined;
function torchTraces() {
  torch ??= readdirSync(repoPath('test/fixtures/torch'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((name) => ({ name, text: readFileSync(repoPath('test/fixtures/torch', name), 'utf8') }));
  return torch;
}

/** What `syncscope simulate <example> --out x.syncscope.json` writes for each example. */
let saved: { name: string; text: string }[] | undefined;
function savedTraces() {
  saved ??= exampleScenarios().map(({ name, text }) => {
    const program = compileScenario(text, name);
    const trace = simulate(program);
    trace.findings = analyze(trace, { program }).findings;
    return { name, text: traceToJson(trace) };
  });
  return saved;
}

// ---- the kinds ---------------------------------------------------------------------------------

/** Mutations in the tree, then sometimes in the text. */
function mutateJson(r: Rng, root: Value, opts: GenerateOptions, targeted: (r: Rng, root: Value) => string | undefined) {
  const mutations: string[] = [];
  const count = 1 + r.int(3);
  for (let i = 0; i < count; i++) {
    const what = r.chance(0.5) ? targeted(r, root) : mutateTree(r, root, opts.maxBytes);
    if (what) mutations.push(what);
  }
  let bytes: Buffer = Buffer.from(stringify(root));
  if (r.chance(0.2)) {
    const t = mutateText(r, bytes);
    bytes = t.bytes;
    mutations.push(t.what);
  }
  return { bytes, mutations };
}

function generateScenario(r: Rng, opts: GenerateOptions): Made {
  const seed = r.pick(exampleScenarios());
  // Some examples carry comments: they are JSONC.
  const root = parseJsonc(seed.text) as Value;
  const { bytes, mutations } = mutateJson(r, root, opts, (r2, tree) => scenarioMutation(r2, tree, opts));
  return { bytes, mutations, suffix: '.scenario.json', origin: `examples/${seed.name}` };
}

type Obj = Record<string, Value>;
const isObj = (v: Value | undefined): v is Obj =>
  v !== undefined && v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Raw);

/** Mutations that know the scenario language: repeats, names, step counts. */
function scenarioMutation(r: Rng, root: Value, opts: GenerateOptions): string | undefined {
  if (!isObj(root)) return undefined;
  const steps = Array.isArray(root.steps) ? root.steps : (root.steps = []);
  const streams = isObj(root.streams) ? Object.keys(root.streams) : [];
  const stream = streams.length ? r.pick(streams) : 's';
  const budget = Math.floor(opts.maxBytes / 2);
  switch (r.int(9)) {
    case 0: {
      const depth = Math.min(r.pick([10, 100, 5000, 20_000]), Math.floor(budget / 30));
      const inner = JSON.stringify({ launch: 'k', stream, us: 1 });
      const open = `{"repeat":${r.pick([1, 2, 1000])},"steps":[`;
      steps.push(new Raw(open.repeat(depth) + inner + ']}'.repeat(depth)));
      return `${depth} nested repeats`;
    }
    case 1: {
      const times = r.pick([1e6, 1e9, 2 ** 31, 1e15]);
      steps.push({ repeat: times, steps: [{ launch: 'k', stream, us: r.pick([0, 1, 1000]) }] });
      return `repeat ${times} times`;
    }
    case 2: {
      const n = Math.min(r.pick([1000, 10_000, 100_000]), Math.floor(budget / 50));
      for (let i = 0; i < n; i++) steps.push({ launch: `k${i}`, stream, us: 1 });
      return `${n} steps`;
    }
    case 3: {
      const n = Math.min(r.pick([1000, 10_000, 50_000]), Math.floor(budget / 40));
      const decls: Obj = {};
      for (let i = 0; i < n; i++) decls[`s${i}`] = { nonBlocking: true };
      root.streams = decls;
      for (let i = 0; i < Math.min(n, 2000); i++) steps.push({ launch: 'k', stream: `s${i}`, us: 1 });
      return `${n} streams`;
    }
    case 4: {
      // An unknown name asks for a suggestion: long ones cost the suggester the most.
      const name = hostileString(r, opts.maxBytes);
      steps.push(
        r.pick<Value>([
          { launch: 'k', stream: name },
          { record: name, stream },
          { wait: name, stream },
          { eventSync: name },
        ]),
      );
      return `unknown name of ${name.length} chars`;
    }
    case 5: {
      const step = { launch: 'k', stream, us: 1 } as Obj;
      const field = r.pick(['us', 'ms', 'ns', 'grid', 'block', 'bytes', 'device']);
      step[field] = hostileNumber(r, 1);
      steps.push(step);
      return `step with ${field} hostile`;
    }
    case 6: {
      const step = steps.length ? steps[r.int(steps.length)] : undefined;
      if (!isObj(step)) return undefined;
      const key = r.pick(Object.keys(step).concat('stream'));
      step[key] = r.pick<() => Value>([
        () => objectForString(r),
        () => wrongType(r, step[key] ?? null),
        () => deepValue(r, opts.maxBytes),
      ])();
      return `step key ${key} replaced`;
    }
    case 7: {
      // Host threads times their calls, what the happens-before clocks grow with: past the memory
      // or the step budget, or many threads that fit, each cheap to run.
      const [count, each] = r.pick([
        [1000, 10],
        [1000, 1000],
        [3000, 1000],
        [100, 100_000],
      ]);
      const n = Math.min(count, Math.floor(budget / 80));
      const threads: Obj = {};
      for (let i = 0; i < n; i++) threads[`t${i}`] = [{ repeat: each, steps: [{ launch: 'k', stream, us: 1 }] }];
      delete root.steps;
      root.threads = threads;
      return `${n} threads of ${each} launches`;
    }
    default: {
      const n = Math.min(r.pick([100, 1000, 10_000]), Math.floor(budget / 40));
      const errors: Value[] = [];
      for (let i = 0; i < n; i++) errors.push({ lanch: `k${i}`, stream: `nope${i}` });
      steps.push(...errors);
      return `${n} wrong steps`;
    }
  }
}

function generatePytorch(r: Rng, opts: GenerateOptions): Made {
  const seed = r.pick(torchTraces());
  const origin = `test/fixtures/torch/${seed.name}`;
  // Drawn either way, so that the same seed makes the same input with or without heavy shapes.
  const bomb = r.chance(0.01);
  if (bomb && opts.heavy) {
    const bytes = gzipBomb('{"traceEvents":[{"ph":"X","cat":"kernel","name":"', 1 << 30, '"}]}');
    return { bytes, mutations: ['gzip of one 1 GB string'], suffix: '.json.gz', origin };
  }
  const root = JSON.parse(seed.text) as Value;
  const made = mutateJson(r, root, opts, (r2, tree) => pytorchMutation(r2, tree, opts));
  return withGzip(r, made, '.json', origin);
}

/** Mutations of trace events: times, durations, devices, streams, names, and their count. */
function pytorchMutation(r: Rng, root: Value, opts: GenerateOptions): string | undefined {
  if (!isObj(root) || !Array.isArray(root.traceEvents) || !root.traceEvents.length) return undefined;
  const events = root.traceEvents;
  const ev = events[r.int(events.length)];
  if (!isObj(ev)) return undefined;
  switch (r.int(7)) {
    case 6: {
      // A call-site marker of `syncscope profile`, before or after its call, with a hostile stack.
      const frame = (): Value =>
        r.pick<() => Value>([
          () => [hostileString(r, 256), hostileNumber(r, 12), hostileString(r, 256)],
          () => ['/home/me/train.py', hostileNumber(r, 12), 'loop'],
          () => ['/home/me/train.py', 12, 'loop'],
          () => wrongType(r, null),
        ])();
      const stack = r.chance(0.1) ? objectForString(r) : Array.from({ length: r.int(40) }, frame);
      const json = JSON.stringify({ stack });
      const name = r.pick(['syncscope.site:', 'syncscope.after:']) + (r.chance(0.7) ? encodeURIComponent(json) : json);
      events.splice(r.int(events.length + 1), 0, {
        ph: 'X',
        cat: 'user_annotation',
        name,
        pid: ev.pid ?? 1,
        tid: ev.tid ?? 1,
        ts: typeof ev.ts === 'number' ? ev.ts : 0,
        dur: 0,
      });
      return 'a hostile call-site marker';
    }
    case 0: {
      const key = r.pick(['ts', 'dur', 'pid', 'tid']);
      ev[key] = hostileNumber(r, typeof ev[key] === 'number' ? ev[key] : 0);
      return `event ${key} hostile`;
    }
    case 1: {
      const key = r.pick(['ts', 'dur', 'ph', 'name', 'cat', 'args', 'pid', 'tid']);
      delete ev[key];
      return `event without ${key}`;
    }
    case 2: {
      const args = isObj(ev.args) ? ev.args : (ev.args = {});
      const key = r.pick(['device', 'stream', 'correlation', 'External id', 'wait_on_stream', 'event', 'sync_type']);
      args[key] = r.pick<() => Value>([
        () => hostileNumber(r, 0),
        () => wrongType(r, args[key] ?? null),
        () => objectForString(r),
      ])();
      return `args.${key} hostile`;
    }
    case 3: {
      const key = r.pick(['name', 'cat', 'ph']);
      ev[key] = r.chance(0.5) ? hostileString(r, opts.maxBytes) : objectForString(r);
      return `event ${key} hostile`;
    }
    case 4: {
      // Many distinct devices: what an argument spread over all of them overflows.
      const n = Math.min(r.pick([1000, 50_000, 200_000]), Math.floor(opts.maxBytes / 2 / 110));
      for (let i = 0; i < n; i++)
        events.push({
          ph: 'X',
          cat: 'kernel',
          name: 'k',
          pid: i,
          tid: 7,
          ts: 1 + i,
          dur: 1,
          args: { device: i, stream: 7 },
        });
      return `${n} devices`;
    }
    default: {
      (isObj(ev.args) ? ev.args : (ev.args = {})).unused = deepValue(r, opts.maxBytes);
      return 'deep unused field in an event';
    }
  }
}

function generateSaved(r: Rng, opts: GenerateOptions): Made {
  const seed = r.pick(savedTraces());
  const root = JSON.parse(seed.text) as Value;
  const made = mutateJson(r, root, opts, (r2, tree) => savedMutation(r2, tree, opts));
  return withGzip(r, made, '.syncscope.json', `simulate examples/${seed.name} --out`);
}

/** Mutations of a saved trace: references, times, meta, lanes, duplicate arrays, deep fields. */
function savedMutation(r: Rng, root: Value, opts: GenerateOptions): string | undefined {
  if (!isObj(root)) return undefined;
  const table = r.pick(['calls', 'ops', 'lanes', 'findings']);
  const rows = Array.isArray(root[table]) ? (root[table] as Value[]) : [];
  const row = rows.length ? rows[r.int(rows.length)] : undefined;
  switch (r.int(7)) {
    case 0: {
      if (!isObj(row)) return undefined;
      const refs = ['lane', 'stream', 'call', 'releasedBy', 'op', 'ops', 'calls', 'id', 'device'];
      const key = r.pick(refs);
      const dangling = r.pick([rows.length, rows.length + 1, -1, 1e6, 2 ** 32, 0.5]);
      row[key] = key === 'releasedBy' || key === 'ops' || key === 'calls' ? [dangling] : dangling;
      return `${table} row ${key} = ${dangling}`;
    }
    case 1: {
      if (!isObj(row)) return undefined;
      const key = r.pick(['begin', 'end', 'start', 'blockedNs', 'unblockLatencyNs']);
      row[key] = r.chance(0.5) ? -r.pick([1, 1000, 1e12]) : hostileNumber(r, 0);
      return `${table} row ${key} hostile`;
    }
    case 2: {
      root.meta = r.pick<() => Value>([
        () => [],
        () => 'meta',
        () => null,
        () => ({ source: r.pick([42, 'banana', {}]) }),
        () => ({ ...(isObj(root.meta) ? root.meta : {}), device: r.pick<Value>([5, 'x', [], { name: {} }]) }),
        () => ({ ...(isObj(root.meta) ? root.meta : {}), clock: r.pick<Value>([1, 'sundial']) }),
      ])();
      return 'meta of the wrong shape';
    }
    case 3: {
      if (!Array.isArray(root.lanes) || !root.lanes.length) return undefined;
      const lane = root.lanes[r.int(root.lanes.length)];
      if (!isObj(lane)) return undefined;
      lane.kind = r.pick<Value>(['banana', 1, null, 'stream', 'thread']);
      return 'lane kind changed';
    }
    case 4: {
      // A value that writes as itself, then the same key again: `"calls":[...],"calls":[...]`.
      const again = r.chance(0.5) ? stringify(clone(root[table] ?? [])) : '[]';
      root[table] = new Raw(`${stringify(root[table] ?? [])},${JSON.stringify(table)}:${again}`);
      return `duplicate ${table} array`;
    }
    case 5: {
      const host = isObj(row) && r.chance(0.5) ? row : root;
      host[r.pick(['unused', 'x', 'extra'])] = deepValue(r, opts.maxBytes);
      return 'deep unused field';
    }
    default: {
      root.format = r.pick<Value>(['syncscope-trace', 'other', 1, null]);
      root.version = hostileNumber(r, 1);
      return 'format or version changed';
    }
  }
}

function generateArrow(r: Rng, opts: GenerateOptions): Made {
  const seed = r.pick(savedTraces());
  const { bytes, mutations } = mutateArrow(r, seed.text, opts.maxBytes);
  return { bytes, mutations, suffix: '.syncscope', origin: `simulate examples/${seed.name} --out` };
}

/** Sometimes gzipped (whole, cut short or with a bad check); the name says .gz when it is. */
function withGzip(r: Rng, made: { bytes: Buffer; mutations: string[] }, suffix: string, origin: string): Made {
  if (!r.chance(0.15)) return { ...made, suffix, origin };
  const gz = gzipVariant(r, made.bytes);
  return { bytes: gz.bytes, mutations: [...made.mutations, gz.what], suffix: suffix + '.gz', origin };
}
