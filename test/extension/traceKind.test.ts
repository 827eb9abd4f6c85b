import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { importPytorch, sniffFormat } from '../../core/import';
import { importTraceBytes, isGzip, loadTraceFile, readTraceHead, traceHeadOfBytes } from '../../node/trace-file';
import { isScenarioPath } from '../../core/scenario/path';
import { traceToChrome } from '../../core/export/chrome';
import { traceToJson } from '../../core/trace/json';
import { TraceBuilder } from '../../core/trace/model';
import { isContainedRelativePath } from '../../extension/logic/paths';
import { chromeTraceName, savedTraceName } from '../../extension/logic/traceKind';
import { repoPath } from '../helpers/paths';

// The extension sniffs and loads through core's rule (the same as the CLI's), so these test that rule
// on the files the extension opens.
const fixture = repoPath('test/fixtures/torch/sync_seeds.json');
const tmp = () => mkdtempSync(join(tmpdir(), 'syncscope-ext-'));

test('the recorded PyTorch profiler traces sniff as PyTorch traces', () => {
  for (const f of ['seed_synchronize.json', 'sync_overlap.json', 'sync_seeds.json']) {
    assert.equal(sniffFormat(readFileSync(repoPath('test/fixtures/torch', f))), 'pytorch', f);
  }
});

test('a saved Syncscope trace sniffs as one, and a scenario as nothing', () => {
  const b = new TraceBuilder();
  b.lane({ kind: 'thread', name: 'main', device: 0 });
  const text = traceToJson(b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 }));
  assert.equal(sniffFormat(text), 'syncscope');
  assert.equal(sniffFormat('{"name": "a scenario", "steps": []}'), undefined);
});

test('our Chrome export sniffs as "chrome" and loads back with the same calls and edges', async () => {
  const original = importPytorch(readFileSync(fixture));
  const path = join(tmp(), 'seeds.chrome.json');
  writeFileSync(path, traceToChrome(original));
  assert.equal(sniffFormat(await readTraceHead(path)), 'chrome');
  const back = await loadTraceFile(path);
  const pick = (t: typeof back, k: 'calls' | 'edges') => JSON.stringify(JSON.parse(traceToJson(t))[k]);
  assert.equal(pick(back, 'calls'), pick(original, 'calls'));
  assert.equal(pick(back, 'edges'), pick(original, 'edges'));
});

test('a gzipped trace is sniffed from its decompressed head and streamed whatever its name, with progress', async () => {
  const plain = readFileSync(fixture);
  const packed = gzipSync(plain);
  assert.equal(isGzip(packed), true);
  assert.equal(isGzip(plain), false);
  const path = join(tmp(), 'no-gz-suffix.json');
  writeFileSync(path, packed);
  assert.equal(sniffFormat(await readTraceHead(path)), 'pytorch');
  assert.equal(sniffFormat(await traceHeadOfBytes(packed)), 'pytorch');
  let last = 0;
  const t = await loadTraceFile(path, (bytes, total) => {
    assert.equal(total, packed.length);
    last = bytes;
  });
  assert.equal(last, packed.length);
  const expected = traceToJson(importPytorch(plain));
  assert.equal(traceToJson(t), expected);
  assert.equal(traceToJson(await importTraceBytes(packed, 'seeds.json.gz')), expected);
  assert.equal(traceToJson(await importTraceBytes(plain, 'seeds.json')), expected);
});

test("an aborted read stops at the next chunk with the abort's reason", async () => {
  // The fixture then 12 MiB of trailing white space: three chunks of the stream.
  const padded = Buffer.concat([readFileSync(fixture), Buffer.alloc(12 << 20, 0x20)]);
  assert.equal(
    traceToJson(await importTraceBytes(padded, 'padded.json')),
    traceToJson(importPytorch(readFileSync(fixture))),
  );
  const abort = new AbortController();
  const reason = new Error('closed by the user');
  const seen: number[] = [];
  await assert.rejects(
    importTraceBytes(
      padded,
      'padded.json',
      (bytes) => {
        seen.push(bytes);
        abort.abort(reason);
      },
      abort.signal,
    ),
    (e) => e === reason,
  );
  assert.equal(seen.length, 1, 'no chunk after the abort was read');
  assert.ok(seen[0] < padded.length);
});

test('a file that is no trace is refused by name', async () => {
  const path = join(tmp(), 'notes.json');
  writeFileSync(path, '{"name": "a scenario", "steps": []}');
  await assert.rejects(loadTraceFile(path), /notes\.json: not a trace/);
});

test('scenario files are told by one rule', () => {
  for (const p of ['a.scenario.json', '/x/b.SCENARIO.JSON', 'c.scenario.jsonc'])
    assert.equal(isScenarioPath(p), true, p);
  for (const p of ['a.json', 'a.scenario.json.bak', 'run.syncscope.json']) assert.equal(isScenarioPath(p), false, p);
});

test('a trace may name its scenario only by a path beside or below it', () => {
  for (const p of ['seed.scenario.json', 'examples/seed.scenario.json', './seed.scenario.json'])
    assert.equal(isContainedRelativePath(p), true, p);
  for (const p of [
    '',
    '/etc/passwd',
    '../x.json',
    'a/../../x.json',
    'a\\..\\x.json',
    'C:\\x.json',
    '\\\\host\\share\\x',
    'file:///x',
  ]) {
    assert.equal(isContainedRelativePath(p), false, p);
  }
});

test('file names for converted and exported traces', () => {
  assert.equal(savedTraceName('step.pt.trace.json.gz'), 'step.pt.syncscope.json');
  assert.equal(savedTraceName('seed.scenario.json'), 'seed.syncscope.json');
  assert.equal(chromeTraceName('run.syncscope.json'), 'run.chrome.json');
  assert.equal(chromeTraceName('seed.scenario.json'), 'seed.chrome.json');
});
