import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { traceToJson } from '../../core/trace/json';
import { TraceBuilder } from '../../core/trace/model';
import { chromeTraceName, isGzip, savedTraceName, sniffTraceKind } from '../../extension/logic/traceKind';
import { repoPath } from '../helpers/paths';

test('the recorded PyTorch profiler traces read as profiler traces', () => {
  for (const f of ['seed_synchronize.json', 'sync_overlap.json', 'sync_seeds.json']) {
    assert.equal(sniffTraceKind(readFileSync(repoPath('test/fixtures/torch', f), 'utf8')), 'profiler', f);
  }
});

test('a saved Syncscope trace reads as one', () => {
  const b = new TraceBuilder();
  b.lane({ kind: 'thread', name: 'main', device: 0 });
  const text = traceToJson(b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 }));
  assert.equal(sniffTraceKind(text), 'syncscope');
  assert.equal(sniffTraceKind('{"name": "a scenario", "steps": []}'), 'unknown');
});

test('gzip is told by its magic number', () => {
  assert.equal(isGzip(gzipSync(Buffer.from('{}'))), true);
  assert.equal(isGzip(Buffer.from('{}')), false);
});

test('file names for converted and exported traces', () => {
  assert.equal(savedTraceName('step.pt.trace.json.gz'), 'step.pt.syncscope.json');
  assert.equal(savedTraceName('seed.scenario.json'), 'seed.syncscope.json');
  assert.equal(chromeTraceName('run.syncscope.json'), 'run.chrome.json');
  assert.equal(chromeTraceName('seed.scenario.json'), 'seed.chrome.json');
});
