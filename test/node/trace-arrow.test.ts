// The columnar trace file (.syncscope, Arrow IPC): a round trip keeps the trace, a second Arrow
// reader (pyarrow) reads it as is, and a cut, corrupt or hostile file is a clear error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { traceFromArrow } from '../../core/trace/arrow-read';
import { traceArrowChunks } from '../../core/trace/arrow-write';
import { defaultOf, TABLES, tableOf } from '../../core/trace/columnar';
import { traceToJson } from '../../core/trace/json';
import { TraceBuilder, type Trace } from '../../core/trace/model';
import { Dictionary, Field, Int32, makeData, RecordBatch, RecordBatchReader, Schema, Struct } from 'apache-arrow';
import { importTraceBytes, loadTraceFile, saveTraceFile } from '../../node/trace-file';
import { schemaMessage, streamBytes, streamsOf, tableWithoutColumns, withStream } from '../helpers/arrow-streams';
import { repoPath } from '../helpers/paths';

const arrowBytes = (t: Trace): Uint8Array => Buffer.concat([...traceArrowChunks(t)]);

function simulated(file: string): Trace {
  const t = simulate(compileScenario(readFileSync(repoPath('examples', file), 'utf8'), file));
  t.findings = analyze(t).findings;
  return t;
}

async function realTraces(): Promise<[string, Trace][]> {
  const out: [string, Trace][] = [];
  for (const f of readdirSync(repoPath('examples')).filter((f) => f.endsWith('.scenario.json')))
    out.push([f, simulated(f)]);
  const capture = 'test/fixtures/capture/programs/pageable_copy.plain.syncscope.json.gz';
  const torch = 'test/fixtures/torch/sync_overlap.json';
  for (const f of [capture, torch]) out.push([f, await importTraceBytes(readFileSync(repoPath(f)), f)]);
  return out;
}

test('JSON -> Arrow -> JSON gives the same trace, for simulated, captured and imported traces', async () => {
  for (const [name, t] of await realTraces()) {
    const json = traceToJson(t);
    const back = traceFromArrow(arrowBytes(t), name);
    assert.equal(traceToJson(back), json, name);
    // Columns the JSON form does not carry travel too.
    assert.deepEqual(back.calls.how, t.calls.how, name);
    assert.deepEqual(back.calls.site, t.calls.site, name);
    assert.deepEqual(back.sites, t.sites, name);
  }
});

test('save and load pick the form from the name and the content, not the extension', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-arrow-'));
  const t = simulated('pipeline-buggy.scenario.json');
  await saveTraceFile(t, join(dir, 'a.syncscope'));
  await saveTraceFile(t, join(dir, 'a.syncscope.json'));
  const arrow = readFileSync(join(dir, 'a.syncscope'));
  assert.equal(arrow.readUInt32LE(0), 0xffffffff);
  assert.equal(readFileSync(join(dir, 'a.syncscope.json'), 'utf8')[0], '{');
  // Misnamed on purpose: the content decides.
  writeFileSync(join(dir, 'arrow.json'), arrow);
  writeFileSync(join(dir, 'json.syncscope'), readFileSync(join(dir, 'a.syncscope.json')));
  for (const f of ['a.syncscope', 'a.syncscope.json', 'arrow.json', 'json.syncscope'])
    assert.equal(traceToJson(await loadTraceFile(join(dir, f))), traceToJson(t), f);
  assert.equal(traceToJson(await importTraceBytes(arrow, 'x')), traceToJson(t));
});

test('each number column goes out in the narrowest type that holds its values, and reads back the same', () => {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0, nonBlocking: true });
  const launch = b.call({ lane: host, kind: 'launch', begin: 0, end: 1, stream: s, depth: 200 });
  b.call({ lane: host, kind: 'launch', begin: 1, end: 2, stream: -1, depth: 3 });
  // A uint32 column with a value of 2^31 and above needs all 32 bits; one below 2^15 fits int16.
  b.op({ lane: s, kind: 'kernel', name: 'k', start: 2, end: 3, call: launch, grid: 3_000_000_000, block: 1 });
  b.op({ lane: s, kind: 'kernel', name: 'k', start: 3, end: 4, call: launch, grid: 7, block: 1024 });
  const t = b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 });
  const types = new Map<string, string>();
  for (const reader of RecordBatchReader.readAll(arrowBytes(t))) {
    for (const _ of reader);
    const table = reader.schema.metadata.get('syncscope.table');
    for (const f of reader.schema.fields) types.set(`${table}.${f.name}`, String(f.type));
  }
  assert.equal(types.get('ops.grid'), 'Uint32');
  assert.equal(types.get('ops.block'), 'Int16');
  assert.equal(types.get('ops.lane'), 'Int8');
  assert.equal(types.get('calls.depth'), 'Uint8');
  assert.equal(types.get('calls.stream'), 'Int8');
  const back = traceFromArrow(arrowBytes(t), 't.syncscope');
  assert.deepEqual([...back.ops.grid], [3_000_000_000, 7]);
  assert.deepEqual([...back.calls.depth], [200, 3]);
  assert.deepEqual([...back.calls.stream], [s, -1]);
});

test('a trace whose ops, edges or accesses are empty reads back whole', () => {
  for (const ops of [0, 1, 2]) {
    const b = new TraceBuilder();
    const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
    const s = b.lane({ kind: 'stream', name: 's', device: 0, nonBlocking: true });
    const launch = b.call({ lane: host, kind: 'launch', begin: 0, end: 1, stream: s });
    // No ops; one op and so no edges; two ops, one stream edge. No accesses in any.
    for (let k = 0; k < ops; k++) b.op({ lane: s, kind: 'kernel', name: 'k', start: 2 + k, end: 3 + k, call: launch });
    if (ops === 2) b.edge('stream', 0, 1);
    const t = b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 });
    const back = traceFromArrow(arrowBytes(t), 't.syncscope');
    assert.equal(traceToJson(back), traceToJson(t), `${ops} ops`);
    assert.deepEqual([back.ops.count, back.edges.count, back.accesses.count], [ops, ops === 2 ? 1 : 0, 0]);
  }
});

const pyarrow = spawnSync('python3', ['-c', 'import pyarrow'], { encoding: 'utf8' });
const noPyarrow =
  pyarrow.status !== 0 ? 'pyarrow is not installed (pip install pyarrow), so no second reader checks the file' : false;

// The reading example of docs/trace-file.md, as is, then every column of every table as JSON.
const PYARROW_READER = `
import json, sys, pyarrow as pa
tables = {}
with pa.OSFile(sys.argv[1]) as f:
    for _ in range(5):
        t = pa.ipc.open_stream(f).read_all()
        tables[t.schema.metadata[b"syncscope.table"].decode()] = t
    assert f.read(1) == b"", "bytes left after the five streams"
try:
    import pandas
    pandas_rows = len(tables["calls"].to_pandas())
except ImportError:
    pandas_rows = None
meta = tables["lanes"].schema.metadata
print(json.dumps({
    "meta": json.loads(meta[b"syncscope.meta"]),
    "pandasRows": pandas_rows,
    "tables": {name: t.to_pydict() for name, t in tables.items()},
}))
`;

test(
  'pyarrow reads the file as is: every table and column, strings resolved, nulls for no value',
  { skip: noPyarrow },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'syncscope-arrow-'));
    const t = simulated('pipeline-buggy.scenario.json');
    writeFileSync(join(dir, 't.syncscope'), arrowBytes(t));
    const r = spawnSync('python3', ['-c', PYARROW_READER, join(dir, 't.syncscope')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout) as {
      meta: unknown;
      pandasRows: number | null;
      tables: Record<string, Record<string, unknown[]>>;
    };
    assert.deepEqual(got.meta, JSON.parse(JSON.stringify(t.meta)));
    if (got.pandasRows !== null) assert.equal(got.pandasRows, t.calls.count);
    assert.deepEqual(Object.keys(got.tables), ['lanes', 'calls', 'ops', 'edges', 'accesses']);
    assert.equal(got.tables.lanes.id.length, t.lanes.length);
    for (const spec of TABLES) {
      const table = tableOf(t, spec.name);
      const columns = got.tables[spec.name];
      for (const name of Object.keys(spec.schema)) {
        const col = table[name];
        const names = spec.enums[name];
        const expected = Array.from({ length: table.count }, (_, i) =>
          spec.strings.has(name) ? t.strings[col[i]] : names ? names[col[i]] : col[i] === col[i] ? col[i] : null,
        );
        if (name in columns) assert.deepEqual(columns[name], expected, `${spec.name}.${name}`);
        else {
          // Left out: it holds only its default.
          const dflt = defaultOf(spec, name);
          assert.ok(
            Array.from({ length: table.count }, (_, i) => col[i]).every((v) => Object.is(v, dflt)),
            `${spec.name}.${name}`,
          );
        }
      }
    }
  },
);

const rejects = (bytes: Uint8Array, message: RegExp) => {
  assert.throws(
    () => traceFromArrow(bytes, 'bad.syncscope'),
    (e: Error) => e.name === 'ImportError' && message.test(e.message) && !/\n\s+at /.test(e.message),
  );
};

test('a cut, corrupt or hostile file is an error that names the file and what is wrong', () => {
  const good = arrowBytes(simulated('pipeline-buggy.scenario.json'));
  rejects(
    new Uint8Array(0),
    /^bad\.syncscope: does not start with the Arrow IPC continuation marker; a \.syncscope file holds/,
  );
  rejects(Buffer.from('{"format":"syncscope-trace"}'), /^bad\.syncscope: does not start with the Arrow/);
  // Cut at many points: every one is refused, none crashes.
  for (let k = 1; k < 40; k++) rejects(good.subarray(0, Math.floor((good.length * k) / 40)), /^bad\.syncscope: /);
  // Change bytes anywhere: an error in plain words or a trace, never a crash, a hang or the Arrow
  // library's own words. Every byte of the first schema (the counts the library trusts) and bytes
  // spread over the rest, each flipped in some bits or set to a type id no Arrow type has.
  const positions = [...Array(2048).keys(), ...Array.from({ length: 600 }, (_, k) => (k * 7919) % good.length)];
  const changes: ((v: number) => number)[] = [(v) => v ^ 0x5a, (v) => v ^ 0x01, () => 127];
  positions.forEach((p, k) => {
    const b = Uint8Array.from(good);
    b[p] = changes[k % changes.length](b[p]);
    try {
      traceFromArrow(b, 'bad.syncscope');
    } catch (e) {
      assert.equal((e as Error).name, 'ImportError', String((e as Error).stack));
      assert.match((e as Error).message, /^bad\.syncscope: /);
      assert.doesNotMatch((e as Error).message, INTERNALS, `byte ${p} changed`);
    }
  });
});

/** Words that only the Arrow library or the engine would print. */
const INTERNALS = /undefined|Cannot|intermediate value|\b(Type|Range|Reference|Syntax)?Error\b|Unrecognized/;

test('ids out of range, columns that disagree and huge declared lengths are refused', () => {
  const t = simulated('pipeline-buggy.scenario.json');
  const bad = (change: (t: Trace) => void, message: RegExp) => {
    const copy = traceFromArrow(arrowBytes(t), 'x');
    change(copy);
    rejects(arrowBytes(copy), message);
  };
  bad((c) => (c.ops.call[0] = c.calls.count + 5), /ops row 0, call: no call \d+; expected a call id from 0 to/);
  bad((c) => (c.calls.releasedBy[0] = 1e6), /calls row 0, releasedBy: no op 1000000; expected an op id from 0 to/);
  bad((c) => (c.edges.to[2] = -7), /edges row 2, to: no (op|call) -7; expected/);
  bad((c) => (c.calls.lane[1] = 99), /calls row 1, lane: no lane 99; expected a lane id from 0 to/);
  bad((c) => (c.ops.end[0] = c.ops.start[0] - 1), /ops row 0, end: end \d+ is before start \d+; expected end >= start/);
  bad((c) => (c.calls.site[0] = 3), /calls row 0, site: no site 2; there are no sites/);
  // Values that the column's own type cannot hold: unsigned 32-bit integers and fractions.
  const stepsOf = (c: Trace, first: number) => {
    const steps = Float64Array.from(c.calls.step, (v) => Math.max(v, 0));
    steps[0] = first;
    (c.calls as unknown as { step: Float64Array }).step = steps;
  };
  bad((c) => stepsOf(c, 2 ** 31), /calls column step, row 0: got 2147483648; expected an integer from -2147483648 to/);
  bad((c) => stepsOf(c, 1.5), /calls column step, row 0: got 1.5; expected an integer from -2147483648 to/);
  // A record batch whose declared row count is huge: the count is checked against the bytes its columns carry.
  const good = arrowBytes(t);
  const hostile = Uint8Array.from(good);
  const view = new DataView(hostile.buffer);
  let patched = 0;
  // RecordBatch messages start with the continuation marker; their int64 length sits in the flatbuffer.
  for (let i = 0; i + 8 < hostile.length; i += 8)
    if (view.getUint32(i, true) === t.ops.count % 2 ** 16 && view.getUint32(i + 4, true) === 0 && patched < 3) {
      view.setUint32(i + 4, 0x7fff, true);
      patched++;
    }
  try {
    traceFromArrow(hostile, 'bad.syncscope');
  } catch (e) {
    assert.equal((e as Error).name, 'ImportError');
  }
});

// ---- Files built to hurt, and errors in plain words ---------------------------------------------

const messageOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    assert.equal((e as Error).name, 'ImportError', String((e as Error).stack));
    return (e as Error).message;
  }
  return assert.fail('expected an error');
};

const VALID =
  'a .syncscope file holds the tables lanes, calls, ops, edges and accesses, each an Arrow IPC stream, as syncscope writes them';

test('rewriting a file stream by stream with the Arrow library gives the same bytes (what the cases below build on)', () => {
  const good = arrowBytes(simulated('pipeline-buggy.scenario.json'));
  assert.equal(Buffer.compare(Buffer.concat(streamsOf(good).map((s) => streamBytes(s.batches))), good), 0);
});

test('a batch that declares rows but no columns, or columns too short, is refused before anything is allocated', () => {
  const good = arrowBytes(simulated('pipeline-buggy.scenario.json'));
  // A million rows with no columns, in a file of a few kilobytes.
  assert.equal(
    messageOf(() => traceFromArrow(withStream(good, 1, tableWithoutColumns('calls', 1 << 20)), 'x.syncscope')),
    `x.syncscope: a batch of the calls table declares 1048576 rows but holds no columns; ${VALID}`,
  );
  // A column whose values buffer holds 10 of the 1000 rows it declares (40 bytes of the 4000 needed).
  const lane = new Field('lane', new Int32(), false);
  const short = new Schema([lane], new Map([['syncscope.table', 'calls']]));
  const data = makeData({ type: new Int32(), length: 1000, data: new Int32Array(10) });
  const shortCalls = streamBytes([
    new RecordBatch(short, makeData({ type: new Struct([lane]), length: 1000, children: [data] })),
  ]);
  assert.equal(
    messageOf(() => traceFromArrow(withStream(good, 1, shortCalls), 'x.syncscope')),
    `x.syncscope: the calls table's column lane declares 1000 rows, whose values take 4000 bytes, but its buffer holds 40; ${VALID}`,
  );
  // Columns long enough, but carrying too little for the rows they declare: one byte a row (the kind
  // alone) for a row of 101 bytes in memory (the sum of CALL_COLUMNS' widths), more than 64 times as much.
  const [, calls] = streamsOf(good);
  const kind = calls.schema.fields.find((f) => f.name === 'kind')!;
  const kindOnly = new Schema([kind], calls.schema.metadata);
  const rows = 100_000;
  const kinds = makeData({
    type: kind.type as Dictionary,
    length: rows,
    data: new Int8Array(rows),
    dictionary: calls.batches[0].getChild('kind')!.data[0].dictionary,
  });
  const kindCalls = streamBytes([
    new RecordBatch(kindOnly, makeData({ type: new Struct([kind]), length: rows, children: [kinds] })),
  ]);
  assert.equal(
    messageOf(() => traceFromArrow(withStream(good, 1, kindCalls), 'x.syncscope')),
    'x.syncscope: the calls table declares 100000 rows but its columns carry 100000 bytes, too few for them: ' +
      'a row takes 101 bytes in memory, and a file must carry at least 1 byte for every 64 the reader allocates; ' +
      'the file is corrupt or built to exhaust memory',
  );
});

test("the Arrow library's own errors never reach the user: each case is told in plain words", () => {
  const good = arrowBytes(simulated('pipeline-buggy.scenario.json'));
  const streams = streamsOf(good);
  // A calls stream whose schema names no table (was: "found the undefined table where calls was expected").
  const unnamed = new Schema(streams[1].schema.fields, new Map());
  const unnamedCalls = streamBytes(streams[1].batches.map((b) => new RecordBatch(unnamed, b.data)));
  assert.equal(
    messageOf(() => traceFromArrow(withStream(good, 1, unnamedCalls), 'x.syncscope')),
    `x.syncscope: not a Syncscope trace file: its second table names no table; expected calls; ${VALID}`,
  );
  // Only the lanes table (was: "found the undefined table" too).
  const lanesOnly = streamBytes(streams[0].batches);
  assert.equal(
    messageOf(() => traceFromArrow(lanesOnly, 'x.syncscope')),
    `x.syncscope: not a Syncscope trace file: its second table (calls) is missing; ${VALID}`,
  );
  // The calls schema with its columns, then a batch that gives none of them (was: "Cannot destructure
  // property 'length' of '(intermediate value)...'").
  const empty = tableWithoutColumns('calls', 7);
  const callsSchema = schemaMessage(streamBytes(streams[1].batches));
  const nodeless = Buffer.concat([callsSchema, empty.subarray(schemaMessage(empty).length)]);
  assert.equal(
    messageOf(() => traceFromArrow(withStream(good, 1, nodeless), 'x.syncscope')),
    `x.syncscope: a batch of the calls table declares 7 rows but holds no columns; ${VALID}`,
  );
  // A column type id that names no Arrow type (was: 'Unrecognized type: "undefined" (127)'). Two
  // traces that differ only in one lane field's type, boolean or string, differ in their first
  // schema only in that field's type id.
  const withNonBlocking = (v: unknown): Uint8Array => {
    const b = new TraceBuilder();
    b.lane({ kind: 'thread', name: 'main', device: 0 });
    b.lane({ kind: 'stream', name: 's', device: 0, nonBlocking: v as boolean });
    return arrowBytes(b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 }));
  };
  const bool = withNonBlocking(true);
  const text = withNonBlocking('yes');
  const differ = [...schemaMessage(bool).keys()].filter((i) => bool[i] !== text[i]);
  assert.deepEqual(
    differ.map((i) => [bool[i], text[i]]),
    [[6, 5]],
  );
  bool[differ[0]] = 127;
  assert.equal(
    messageOf(() => traceFromArrow(bool, 'x.syncscope')),
    "x.syncscope: the lanes table's column nonBlocking is of Arrow type 127, which a .syncscope file does not use; " +
      `expected integers, floats, strings or booleans; ${VALID}`,
  );
});

test('reading a file whose batch declares N rows and no columns stays under 64·N bytes and a constant', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-arrow-'));
  const good = arrowBytes(simulated('pipeline-buggy.scenario.json'));
  // N rows in a file of about N bytes: the file's length alone allowed as many rows as it has bytes.
  const rows = 8 << 20;
  const hostile = withStream(good, 1, tableWithoutColumns('calls', rows, rows));
  writeFileSync(join(dir, 'hostile.syncscope'), hostile);
  writeFileSync(join(dir, 'good.syncscope'), good);
  const preload = join(dir, 'usage.js');
  writeFileSync(
    preload,
    "process.on('exit', () => process.stderr.write('\\nmaxRSS ' + process.resourceUsage().maxRSS * 1024 + '\\n'));",
  );
  const run = (file: string) => {
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--require', preload, repoPath('dist/cli.js'), 'report', file], {
      cwd: dir,
      encoding: 'utf8',
    });
    const rss = Number(/maxRSS (\d+)/.exec(r.stderr)?.[1]);
    return { code: r.status, stderr: r.stderr.split('\n')[0], rss, ms: Date.now() - started };
  };
  const base = run('good.syncscope');
  const bad = run('hostile.syncscope');
  t.diagnostic(
    `file ${hostile.length} bytes, ${rows} rows declared; peak RSS ${(bad.rss / 2 ** 20).toFixed(0)} MiB ` +
      `(a valid trace: ${(base.rss / 2 ** 20).toFixed(0)} MiB), refused in ${bad.ms} ms`,
  );
  assert.equal(base.code, 0, base.stderr);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /hostile\.syncscope: a batch of the calls table declares 8388608 rows but holds no columns/);
  assert.ok(bad.rss < base.rss + 64 * hostile.length, `peak RSS ${bad.rss} bytes`);
  // The file itself is read whole; nothing is allocated by the rows it declares.
  assert.ok(bad.rss < base.rss + 4 * hostile.length, `peak RSS ${bad.rss} bytes`);
  rmSync(dir, { recursive: true });
});
