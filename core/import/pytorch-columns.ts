// The native Kineto reader's result (native/json/, loaded by node/native-kineto.ts) and its turn into
// the Staged rows that the JavaScript reader makes, so that one build serves both. The reader sends
// typed arrays over its own memory and the few strings; what is cheap per distinct value (a copy's
// direction from its name, a thread name's trimming, the keys of the JavaScript maps) is done here,
// once, in the JavaScript reader's own words.
import { OK } from '../trace/kinds';
import { StringTable, type Table } from '../trace/table';
import { firstJsonError } from './scan';
import { SITE_AFTER_MARKER, SITE_MARKER } from './python-sites';
import type { Marker } from './pytorch-markers';
import type { Sync } from './pytorch-waits';
import { copyCodes, GPU_ROWS, HOST_ROWS, KINETO_CATEGORIES, type Staged } from './pytorch';

/** Rows the native reader stages, each column exactly `count` long. */
export interface KinetoColumns {
  /** Interned event names; 0 is "". */
  strings: string[];
  /** In time order, as the build reads them. context: API, CONTEXT or PYTHON of pytorch.ts; lane: an index into `lanes`. */
  host: Table<typeof HOST_ROWS>;
  /** In time order. kind: 0 kernel, 1 memcpy, 2 memset; copies' directions are worked out here. */
  gpu: Omit<Table<typeof GPU_ROWS>, 'copy' | 'hostMemory'>;
  /** In the order first seen: a thread (pid, tid) or a stream (device, stream). */
  lanes: { thread: Uint8Array; a: Float64Array; b: Float64Array };
  /** thread_name metadata in file order, names untrimmed. */
  threadNames: { pid: Float64Array; tid: Float64Array; name: string[] };
  /** cuda_sync events with a correlation id, in file order; kind indexes kinds. */
  syncs: {
    corr: Float64Array;
    kind: Int32Array;
    kinds: string[];
    stream: Float64Array;
    device: Float64Array;
    event: Float64Array;
    recordCorr: Float64Array;
    waitOnStream: Float64Array;
  };
  markers: { lane: Uint32Array; time: Float64Array; name: Int32Array; after: Uint8Array };
  /** Categories nobody knows, with their counts, in the order first seen. */
  unknown: [string, number][];
  malformed: number;
  noDuration: number;
  events: number;
  /** The text around the events array, the array left empty; "" for a bare array of events. */
  root: string;
  /** By name id: 1 if an API call has the name, 2 if a Python frame has it (both: 3). */
  nameUse: Uint8Array;
}

/** The words the native reader looks for, from the tables the JavaScript reader uses. */
export const KINETO_VOCABULARY = {
  categories: [...KINETO_CATEGORIES],
  beforeMarker: SITE_MARKER,
  afterMarker: SITE_AFTER_MARKER,
};

const GPU_KINDS = [OK.kernel, OK.memcpy, OK.memset];

/**
 * The Staged rows of the native reader's columns, or undefined where the text around the events
 * is not what the JavaScript reader accepts (then that reader reads the file, and says what is wrong).
 */
export function stagedFromColumns(c: KinetoColumns): Staged | undefined {
  const root = c.root ? parseRoot(c.root) : {};
  if (!root) return undefined;
  const strings = new StringTable(c.strings);
  const { host, gpu } = c;
  const copy = new Uint8Array(gpu.count);
  const hostMemory = new Uint8Array(gpu.count);
  const kind = new Uint8Array(gpu.count);
  const copyByName = new Map<number, [number, number]>();
  for (let i = 0; i < gpu.count; i++) {
    kind[i] = GPU_KINDS[gpu.kind[i]];
    if (kind[i] !== OK.memcpy) continue;
    const name = gpu.name[i];
    let codes = copyByName.get(name);
    if (!codes) copyByName.set(name, (codes = copyCodes(strings.get(name))));
    [copy[i], hostMemory[i]] = codes;
  }
  const lanes = Array.from(c.lanes.thread, (t, i) => {
    const thread = t === 1;
    const a = c.lanes.a[i];
    const b = c.lanes.b[i];
    return { key: (thread ? 't' : 's') + a + '/' + b, thread, a, b };
  });
  const threadNames = new Map<string, string>();
  const names = c.threadNames;
  for (let i = 0; i < names.name.length; i++) threadNames.set(`t${names.pid[i]}/${names.tid[i]}`, names.name[i].trim());
  return {
    root,
    strings,
    host: { ...host },
    gpu: { ...gpu, kind, copy, hostMemory },
    lanes,
    threadNames,
    syncs: syncsOf(c.syncs),
    markers: markersOf(c.markers),
    unknown: new Map(c.unknown),
    malformed: c.malformed,
    noDuration: c.noDuration,
    events: c.events,
    nameUse: c.nameUse,
  };
}

function parseRoot(text: string): Record<string, unknown> | undefined {
  // The checks of EventScanner.finish: it reports what is wrong, with its line and column.
  return firstJsonError(text) ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

function syncsOf(s: KinetoColumns['syncs']): Map<number, Sync> {
  const syncs = new Map<number, Sync>();
  for (let i = 0; i < s.corr.length; i++)
    syncs.set(s.corr[i], {
      kind: s.kinds[s.kind[i]],
      stream: s.stream[i],
      device: s.device[i],
      event: s.event[i],
      recordCorr: s.recordCorr[i],
      waitOnStream: s.waitOnStream[i],
    });
  return syncs;
}

function markersOf(m: KinetoColumns['markers']): Marker[] {
  return Array.from(m.lane, (lane, i) => ({ lane, time: m.time[i], name: m.name[i], after: m.after[i] === 1 }));
}
