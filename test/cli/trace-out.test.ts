// `--out` names the trace's form; `--parquet` adds the Parquet directory beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordBatchReader } from 'apache-arrow';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';

const SCENARIO = repoPath('examples', 'pipeline-buggy.scenario.json');
const TABLES = ['accesses.parquet', 'calls.parquet', 'edges.parquet', 'lanes.parquet', 'ops.parquet'];

/** Every write id in t.syncscope's metadata and in each row and footer of t.parquet's tables. */
async function writeIds(dir: string): Promise<Set<string>> {
  const reader = RecordBatchReader.from(readFileSync(join(dir, 't.syncscope')));
  reader.open();
  const ids = new Set([reader.schema.metadata.get('syncscope.writeId') ?? 'none']);
  for (const table of TABLES) {
    const bytes = readFileSync(join(dir, 't.parquet', table));
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const kv = parquetMetadata(file).key_value_metadata ?? [];
    ids.add(kv.find((e) => e.key === 'syncscope.writeId')?.value ?? 'none');
    for (const row of await parquetReadObjects({ file, columns: ['writeId'] })) ids.add(String(row.writeId));
  }
  return ids;
}

test('--parquet writes the Parquet directory beside the trace named by --out', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-out-'));
  const r = await runCli(['simulate', SCENARIO, '--out', join(dir, 't.syncscope'), '--parquet'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(join(dir, 't.syncscope')).readUInt32LE(0), 0xffffffff);
  assert.deepEqual(readdirSync(join(dir, 't.parquet')).sort(), TABLES);
  assert.match(r.stderr, /trace written to .*t\.syncscope\n.*trace written to .*t\.parquet\n/);

  // Both outputs carry one write id, each Parquet row too; the next write has another.
  const first = await writeIds(dir);
  assert.equal(first.size, 1, [...first].join());
  assert.match([...first][0], /^\d{8}T\d{6}Z-\d+-[0-9a-f]{8}$/);
  assert.equal((await runCli(['simulate', SCENARIO, '--out', join(dir, 't.syncscope'), '--parquet'], dir)).code, 0);
  const second = await writeIds(dir);
  assert.equal(second.size, 1, [...second].join());
  assert.notDeepEqual(second, first);

  const json = await runCli(['simulate', SCENARIO, '-o', join(dir, 'j.syncscope.json'), '--parquet'], dir);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(existsSync(join(dir, 'j.syncscope.json')));
  assert.deepEqual(readdirSync(join(dir, 'j.parquet')).sort(), TABLES);
});

test('--out x.parquet writes only the directory; --parquet without --out is a usage error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-out-'));
  const r = await runCli(['simulate', SCENARIO, '--out', join(dir, 'p.parquet'), '--parquet'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readdirSync(dir), ['p.parquet']);
  const bad = await runCli(['simulate', SCENARIO, '--parquet'], dir);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^syncscope simulate: --parquet writes the Parquet tables beside the trace; give its name/);
  assert.equal(bad.stdout, '');
});
