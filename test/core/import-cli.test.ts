import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { run as importCommand } from '../../cli/commands/import';
import { run as exportCommand } from '../../cli/commands/export';
import { decodeUtf8, loadAnyTrace } from '../../cli/load-trace';
import { importPytorch } from '../../core/import';
import { traceToJson } from '../../core/trace/json';
import { repoPath } from '../helpers/paths';

const fixture = repoPath('test/fixtures/torch/sync_seeds.json');

/** Runs a command as cli/main.ts does: an error is one line on stderr and exit code 2. */
async function cli(name: 'import' | 'export', ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (t: string) => (stdout += t),
    stderr: (t: string) => (stderr += t),
    cwd: repoPath('test/fixtures/torch'),
  };
  let code: number;
  try {
    code = await (name === 'import' ? importCommand : exportCommand)(argv, io);
  } catch (e) {
    stderr += `syncscope ${name}: ${(e as Error).message}\n`;
    code = 2;
  }
  return { code, stdout, stderr };
}

test('syncscope import prints one summary line and writes a trace that loads back the same', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-import-'));
  const out = join(dir, 'seeds.syncscope.json');
  const r = await cli('import', 'sync_seeds.json', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const [summary, wrote] = r.stdout.split('\n');
  assert.equal(
    summary,
    'sync_seeds.json: 3 lanes (1 host threads, 2 streams), 32 calls (+42 framework ops), 9 ops, ' +
      '12 host waits (5 released by a named op, 0 unknown); notes: 2 event waits without their record ' +
      '(CUDA 13 leaves wait_on_cuda_event_record_corr_id at -1): released-by only where nothing could have been pending',
  );
  assert.equal(wrote, `wrote ${out}`);
  const expected = traceToJson(importPytorch(readFileSync(fixture)));
  assert.equal(readFileSync(out, 'utf8'), expected);
  assert.equal(traceToJson(await loadAnyTrace(out)), expected);
});

test('syncscope export --chrome writes a file that loadAnyTrace reads back with the same calls, ops and edges', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-export-'));
  const out = join(dir, 'seeds.chrome.json');
  const r = await cli('export', 'sync_seeds.json', '--chrome', out);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^wrote .*seeds\.chrome\.json: 74 calls, 9 ops, 21 flows, \d+ findings/);
  const back = await loadAnyTrace(out);
  const t = importPytorch(readFileSync(fixture));
  assert.equal(JSON.stringify(JSON.parse(traceToJson(back)).calls), JSON.stringify(JSON.parse(traceToJson(t)).calls));
  assert.equal(JSON.stringify(JSON.parse(traceToJson(back)).edges), JSON.stringify(JSON.parse(traceToJson(t)).edges));
  assert.equal(back.ops.count, 9);
  let progress = 0;
  await loadAnyTrace(out, (bytes, total) => {
    assert.equal(total, readFileSync(out).length);
    progress = bytes;
  });
  assert.equal(progress, readFileSync(out).length);
});

test('loadAnyTrace reads a gzipped PyTorch trace (.pt.trace.json.gz) the same as the plain file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-gz-'));
  const gz = join(dir, 'seeds.pt.trace.json.gz');
  writeFileSync(gz, gzipSync(readFileSync(fixture)));
  let last = 0;
  const t = await loadAnyTrace(gz, (bytes, total) => {
    assert.equal(total, readFileSync(gz).length);
    last = bytes;
  });
  assert.equal(last, readFileSync(gz).length);
  assert.equal(traceToJson(t), traceToJson(importPytorch(readFileSync(fixture))));
});

test('bad input exits 2 with one clear line that names the file and the byte', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bad-'));
  const cut = join(dir, 'cut.json');
  writeFileSync(cut, readFileSync(fixture).subarray(0, 20000));
  const r = await cli('import', cut);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr.split('\n')[0],
    /^syncscope import: cut\.json:\d+:\d+: truncated: the text ends inside the traceEvents array, after \d+ complete events; a trace ends with the brackets that close it$/,
  );
  const missing = await cli('import', 'nope.json');
  assert.equal(missing.code, 2);
  assert.match(missing.stderr.split('\n')[0], /^syncscope import: no such file: .*nope\.json$/);
  const notTrace = join(dir, 'x.json');
  writeFileSync(notTrace, '{"name": 1}');
  assert.equal(
    (await cli('import', notTrace)).stderr.split('\n')[0],
    'syncscope import: x.json: not a trace; expected a Syncscope trace, a PyTorch profiler trace or a Chrome trace-event file',
  );
  assert.equal(
    (await cli('export', 'sync_seeds.json')).stderr.split('\n')[0],
    'syncscope export: say where to write: --chrome out.json',
  );
});

test('loadAnyTrace decodes non-ASCII names in large chunks the same as TextDecoder', async () => {
  // Names with 2-, 3- and 4-byte characters, spread over more than one 4 MiB read.
  const names = ['k\u00e9rnel', 'op \u2192 next', 'smile \ud83d\ude00', 'plain'];
  const events = Array.from({ length: 60_000 }, (_, i) =>
    JSON.stringify({
      ph: 'X',
      cat: i % 2 ? 'kernel' : 'cuda_runtime',
      name: i % 2 ? names[(i >> 1) % 4] : 'cudaLaunchKernel',
      pid: i % 2 ? 0 : 1,
      tid: i % 2 ? 7 : 1,
      ts: i,
      dur: 1,
      args: { correlation: i >> 1, device: 0, stream: 7 },
    }),
  );
  const text = `{"traceEvents":[\n${events.join(',\n')}\n]}`;
  assert.ok(Buffer.byteLength(text) > 4 << 20);
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-utf8-'));
  const path = join(dir, 'utf8.json');
  writeFileSync(path, text);
  const t = await loadAnyTrace(path);
  assert.equal(t.ops.count, 30_000);
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => t.strings[t.ops.name[i]]),
    names,
  );
  assert.equal(traceToJson(t), traceToJson(importPytorch(text)));
  for (const s of ['plain ascii', 'caf\u00e9 \u2192 \ud83d\ude00', ''])
    assert.equal(decodeUtf8(new TextEncoder().encode(s)), s);
});
