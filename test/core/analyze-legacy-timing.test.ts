// S3 read from timing where a torch.profiler trace gives no stream flags
// (core/analyze/legacy-timing.ts), on the recorded what-if truth programs (test/fixtures/whatif-truth,
// H100): legacy_stream copies each batch's embeddings on a stream created blocking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const serialized = async (file: string) =>
  analyze(await loadTraceFile(repoPath(file))).findings.filter((f) => f.kind === 'legacy-serialization');

test('legacy_stream profile: the encoder on the legacy default stream held by the blocking copy stream', async () => {
  const found = await serialized('test/fixtures/whatif-truth/legacy_stream.profile.json.gz');
  assert.equal(found.length, 1);
  const [f] = found;
  // Read by hand: call 3639 launched a GEMM (op 17) on the legacy default stream, stream 7, whose
  // call returned at 266.733 ms with the stream idle; it started at 266.940 ms, 5.6 µs after the
  // device-to-host copy op 16 (call 3600) on stream 13 ended at 266.934 ms: held 201 µs.
  assert.deepEqual(f.ops.slice(0, 2), [17, 16]);
  assert.deepEqual(f.calls.slice(0, 2), [3639, 3600]);
  assert.match(f.message, /waited 201 µs for "Memcpy DtoH \(Device -> Pinned\)" on stream 13/);
  assert.match(f.message, /inferred from timing: the trace gives no flags for stream 13/);
});

test('streams whose work overlapped the legacy one, or that show no hold, are not taken as blocking', async () => {
  for (const file of [
    'test/fixtures/whatif-truth/race_prefetch.profile.json.gz',
    'test/fixtures/whatif-truth/event_sync.profile.json.gz',
    'test/fixtures/torch/sync_overlap.json',
    'test/fixtures/python/ragged_batches.profile.json.gz',
  ])
    assert.deepEqual(await serialized(file), [], file);
});
