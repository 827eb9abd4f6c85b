// The columnar trace file (.syncscope, Arrow IPC): a round trip keeps the trace, a second Arrow
// reader (pyarrow) reads it as is, and a cut, corrupt or hostile file is a clear error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { RecordBatchReader } from 'apache-arrow';
import { importTraceBytes, loadTraceFile, saveTraceFile } from '../../node/trace-file';
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
    /^bad\.syncscope: does not start with the Arrow IPC continuation marker; a \.syncscope file is/,
  );
  rejects(Buffer.from('{"format":"syncscope-trace"}'), /^bad\.syncscope: does not start with the Arrow/);
  // Cut at many points: every one is refused, none crashes.
  for (let k = 1; k < 40; k++) rejects(good.subarray(0, Math.floor((good.length * k) / 40)), /^bad\.syncscope: /);
  // Flip bytes anywhere: an error or a trace, never a crash or a hang.
  // Every byte of the first schema (the counts the Arrow library trusts) and bytes spread over the rest.
  const positions = [...Array(2048).keys(), ...Array.from({ length: 300 }, (_, k) => (k * 7919) % good.length)];
  for (const p of positions) {
    const b = Uint8Array.from(good);
    b[p] ^= 0x5a;
    try {
      traceFromArrow(b, 'bad.syncscope');
    } catch (e) {
      assert.equal((e as Error).name, 'ImportError', String((e as Error).stack));
      assert.match((e as Error).message, /^bad\.syncscope: /);
    }
  }
});

test('ids out of range, columns that disagree and huge declared lengths are refused', () => {
  const t = simulated('pipeline-buggy.scenario.json');
  const bad = (change: (t: Trace) => void, message: RegExp) => {
    const copy = traceFromArrow(arrowBytes(t), 'x');
    change(copy);
    rejects(arrowBytes(copy), message);
  };
  bad((c) => (c.ops.call[0] = c.calls.count + 5), /ops row 0, call: \d+; expected -1 or a call id from 0 to/);
  bad((c) => (c.calls.releasedBy[0] = 1e6), /calls row 0, releasedBy: 1000000; expected -2, -1 or an op id/);
  bad((c) => (c.edges.to[2] = -7), /edges row 2, to: -7; expected/);
  bad((c) => (c.calls.lane[1] = 99), /calls row 1, lane: 99; expected the id of a thread lane/);
  bad((c) => (c.ops.end[0] = c.ops.start[0] - 1), /ops row 0, end: .*expected a time from start/);
  bad((c) => (c.calls.site[0] = 3), /calls row 0, site: 3; expected 0 \(none\) to 0/);
  // Values that the column's own type cannot hold: unsigned 32-bit integers and fractions.
  const stepsOf = (c: Trace, first: number) => {
    const steps = Float64Array.from(c.calls.step, (v) => Math.max(v, 0));
    steps[0] = first;
    (c.calls as unknown as { step: Float64Array }).step = steps;
  };
  bad((c) => stepsOf(c, 2 ** 31), /calls column step, row 0: 2147483648; expected an integer from -2147483648 to/);
  bad((c) => stepsOf(c, 1.5), /calls column step, row 0: 1.5; expected an integer from -2147483648 to/);
  // A record batch whose declared row count is huge: the count is checked against the file's size.
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
