// Hostile `.syncscope` (Arrow IPC) files for the fuzz suite: a trace the simulator writes for an
// example, then its content corrupted before writing (what the content rules must catch), its tables
// rebuilt with rows no bytes carry or buffers too short (what the memory bound must catch), or its
// bytes changed: flipped, set, cut short, streams dropped or repeated (what the structure checks catch).
import { Field, Int32, makeData, RecordBatch, Schema, Struct } from 'apache-arrow';
import { traceFromArrow } from '../../core/trace/arrow-read';
import { traceArrowChunks } from '../../core/trace/arrow-write';
import { parseTrace } from '../../core/trace/json';
import type { Trace } from '../../core/trace/model';
import { streamBytes, streamsOf, tableWithoutColumns, withStream } from '../helpers/arrow-streams';
import { hostileNumber, objectForString, type Rng } from './mutate';

const TABLES = ['lanes', 'calls', 'ops', 'edges', 'accesses'];

const arrowOf = (t: Trace): Buffer => Buffer.concat([...traceArrowChunks(t)]);

/** Arrays `depth` deep, built without recursion (the JSON form refuses past 100). */
function nested(depth: number): unknown[] {
  let v: unknown[] = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

/** `text`: a saved trace's JSON; the file is its Arrow form, changed one to three times. */
export function mutateArrow(r: Rng, text: string, maxBytes: number): { bytes: Buffer; mutations: string[] } {
  let bytes = arrowOf(parseTrace(text));
  const mutations: string[] = [];
  // Content and tables first, bytes last: the first two take the file apart with the Arrow library,
  // which trusts the structure, so they run on files of a sound structure only (as the reader does).
  const kinds = Array.from({ length: 1 + r.int(3) }, () => r.int(3)).sort();
  let sound = true;
  for (const kind of kinds) {
    const apart = kind === 0 ? corruptContent : kind === 1 ? rebuildTable : undefined;
    const made = sound && apart ? apart(r, bytes, maxBytes) : undefined;
    if (made) {
      bytes = made.bytes;
      mutations.push(made.what);
    } else {
      const b = changeBytes(r, bytes, sound);
      bytes = b.bytes;
      mutations.push(b.what);
      sound = false;
    }
  }
  return { bytes, mutations };
}

/** One value of the trace made invalid, then the trace written again; undefined when the file no longer reads. */
function corruptContent(r: Rng, bytes: Buffer): { bytes: Buffer; what: string } | undefined {
  let t: Trace;
  try {
    t = traceFromArrow(bytes, 'x');
  } catch {
    return undefined;
  }
  const row = (count: number) => r.int(Math.max(count, 1));
  const value = (): number => {
    const v = hostileNumber(r, 0);
    return typeof v === 'number' ? v : r.pick([-1, 1e300, NaN, Infinity, 2 ** 60]);
  };
  const loose = (o: object) => o as Record<string, unknown>;
  const what = r.pick<() => string | undefined>([
    () => {
      const col = r.pick(['lane', 'begin', 'end', 'stream', 'blockedNs', 'releasedBy', 'unblockNs', 'line', 'site']);
      (t.calls as unknown as Record<string, number[]>)[col][row(t.calls.count)] = value();
      return `calls ${col} hostile`;
    },
    () => {
      const col = r.pick(['lane', 'start', 'end', 'call', 'bytes', 'truthStart']);
      (t.ops as unknown as Record<string, number[]>)[col][row(t.ops.count)] = value();
      return `ops ${col} hostile`;
    },
    () => {
      const col = r.pick(['from', 'to'] as const);
      t.edges[col][row(t.edges.count)] = value();
      return `edges ${col} hostile`;
    },
    () => {
      if (!t.findings.length) return undefined;
      const key = r.pick(['fix', 'source', 'savedNs', 'severity', 'calls', 'ops', 'unused']);
      loose(t.findings[row(t.findings.length)])[key] = r.pick<() => unknown>([
        () => objectForString(r),
        () => ({ line: r.pick(['x', -5, 1e300, 0.5]), column: 1 }),
        () => 'lots',
        () => [value()],
        () => nested(r.pick([101, 1000, 5000])),
      ])();
      return `finding ${key} hostile`;
    },
    () => {
      const frame = { file: 'train.py', line: r.pick([-5, 1e300, 0.5, 2 ** 31]), function: 'f' };
      t.sites.push({ frame, precision: 'line', stack: [frame] });
      return `site line ${frame.line}`;
    },
    () => {
      loose(t.lanes[row(t.lanes.length)])[r.pick(['kind', 'id', 'device', 'thread'])] = r.pick<unknown>([
        'banana',
        -1,
        1e300,
        true,
      ]);
      return 'lane field hostile';
    },
    () => {
      loose(t.meta)[r.pick(['clock', 'source', 'alignmentErrorNs', 'devices'])] = objectForString(r);
      return 'meta field hostile';
    },
  ])();
  return what === undefined ? undefined : { bytes: arrowOf(t), what };
}

/** One table replaced by one whose rows no bytes carry, or whose buffers are too short for its rows. */
function rebuildTable(r: Rng, bytes: Buffer, maxBytes: number): { bytes: Buffer; what: string } | undefined {
  try {
    streamsOf(bytes);
  } catch {
    return undefined;
  }
  const index = r.int(TABLES.length);
  const table = TABLES[index];
  const rows = r.pick([1, 1000, 1 << 20, 2 ** 31 - 1, 2 ** 40]);
  if (r.chance(0.5)) {
    const padding = r.chance(0.5) ? Math.min(rows, maxBytes >> 1) : 0;
    return {
      bytes: Buffer.from(withStream(bytes, index, tableWithoutColumns(table, rows, padding))),
      what: `${table}: ${rows} rows and no columns`,
    };
  }
  // One int32 column declaring `rows` rows over a buffer of a few.
  const field = new Field(r.pick(['lane', 'id', 'op', 'from']), new Int32(), false);
  const schema = new Schema([field], new Map([['syncscope.table', table]]));
  const length = Math.min(rows, 1 << 20);
  const data = makeData({ type: new Int32(), length, data: new Int32Array(Math.min(length, 1 + r.int(16))) });
  const stream = streamBytes([
    new RecordBatch(schema, makeData({ type: new Struct([field]), length, children: [data] })),
  ]);
  return { bytes: Buffer.from(withStream(bytes, index, stream)), what: `${table}: ${length} rows over a short buffer` };
}

/** Bytes flipped, set, cut short, or (in a file of sound structure) whole streams dropped, repeated or swapped. */
function changeBytes(r: Rng, bytes: Buffer, sound: boolean): { bytes: Buffer; what: string } {
  const out = Buffer.from(bytes);
  // Half the time within the first schema: the counts and offsets the Arrow library trusts.
  const at = () => (r.chance(0.5) ? r.int(Math.min(out.length, 2048)) : r.int(out.length));
  return r.pick<() => { bytes: Buffer; what: string }>([
    () => {
      const n = 1 + r.int(8);
      for (let i = 0; i < n; i++) out[at()] ^= 1 + r.int(255);
      return { bytes: out, what: `${n} bytes flipped` };
    },
    () => {
      const p = at();
      out[p] = r.pick([0, 0x7f, 0x80, 0xff]);
      return { bytes: out, what: `byte ${p} set to ${out[p]}` };
    },
    () => {
      const p = r.int(out.length + 1);
      return { bytes: out.subarray(0, p), what: `cut at ${p}` };
    },
    () => {
      let streams: Uint8Array[] = [];
      try {
        if (sound) streams = streamsOf(bytes).map((s) => streamBytes(s.batches));
      } catch {
        // No streams to move about: cut instead.
      }
      if (!streams.length) return { bytes: out.subarray(0, out.length >> 1), what: 'cut in half' };
      const i = r.int(streams.length);
      const j = r.int(streams.length);
      const how = r.pick(['dropped', 'repeated', 'swapped']);
      if (how === 'dropped') streams.splice(i, 1);
      else if (how === 'repeated') streams.splice(i, 0, streams[i]);
      else [streams[i], streams[j]] = [streams[j], streams[i]];
      return { bytes: Buffer.concat(streams), what: `stream ${i} ${how}` };
    },
  ])();
}
