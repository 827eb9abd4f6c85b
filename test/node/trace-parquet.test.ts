// The Parquet form: written a row group at a time, read back by a Parquet reader (hyparquet) with
// the same rows whatever the group size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { traceParquetFiles } from '../../core/trace/parquet';
import { repoPath } from '../helpers/paths';

const file = 'pageable-copy-buggy.scenario.json';
const trace = simulate(compileScenario(readFileSync(repoPath('examples', file), 'utf8'), file));
trace.findings = analyze(trace).findings;

const files = (groupRows?: number) =>
  new Map(
    [...traceParquetFiles(trace, { trace: 'run1', writeId: 'w1' }, groupRows)].map(({ file, chunks }) => {
      const bytes = Buffer.concat([...chunks]);
      return [file, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)];
    }),
  );

test('each table is written in row groups of bounded size and reads back the same', async () => {
  const small = files(5);
  const whole = files();
  assert.deepEqual(
    [...small.keys()],
    ['lanes.parquet', 'calls.parquet', 'ops.parquet', 'edges.parquet', 'accesses.parquet'],
  );
  const ops = parquetMetadata(small.get('ops.parquet')!);
  assert.equal(ops.row_groups.length, Math.ceil(trace.ops.count / 5));
  assert.ok(ops.row_groups.length > 1);
  assert.ok(ops.row_groups.every((g) => Number(g.num_rows) <= 5));
  for (const [name, buffer] of small) {
    const rows = await parquetReadObjects({ file: buffer });
    assert.deepEqual(rows, await parquetReadObjects({ file: whole.get(name)! }), name);
  }
  const calls = await parquetReadObjects({ file: small.get('calls.parquet')! });
  assert.equal(calls.length, trace.calls.count);
  calls.forEach((row, i) => {
    assert.equal(row.trace, 'run1');
    assert.equal(row.writeId, 'w1');
    assert.equal(row.id, i);
    assert.equal(row.name, trace.strings[trace.calls.name[i]]);
  });
  for (const [name, buffer] of small) {
    const kv = parquetMetadata(buffer).key_value_metadata ?? [];
    assert.equal(kv.find((e) => e.key === 'syncscope.writeId')?.value, 'w1', name);
    assert.deepEqual(
      (await parquetReadObjects({ file: buffer, columns: ['writeId'] })).map((r) => r.writeId),
      new Array(Number(parquetMetadata(buffer).num_rows)).fill('w1'),
      name,
    );
  }
  const meta = parquetMetadata(small.get('lanes.parquet')!).key_value_metadata ?? [];
  assert.deepEqual(JSON.parse(meta.find((kv) => kv.key === 'syncscope.findings')!.value!), trace.findings);
});
