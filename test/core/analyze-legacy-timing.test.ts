// S3 read from timing where a torch.profiler trace gives no stream flags
// (core/analyze/legacy-timing.ts), on the recorded what-if truth programs (test/fixtures/whatif-programs
// and whatif-truth, H100): legacy_stream copies each batch's embeddings on a stream created blocking;
// its capture gives the flags, and S3 is read from them (core/analyze/serialization.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const serialized = async (file: string) =>
  analyze(await loadTraceFile(repoPath(file))).findings.filter((f) => f.kind === 'legacy-serialization');

test('legacy_stream profile: the encoder on the legacy default stream held by the blocking copy stream', async () => {
  const found = await serialized('test/fixtures/whatif-programs/legacy_stream.profile.json.gz');
  assert.equal(found.length, 1);
  const [f] = found;
  // Read by hand: call 17 launched a GEMM (op 4) on the legacy default stream, stream 7, and returned
  // at 0.804 ms; the stream was free from 1.684 ms (op 2 ended) and the GEMM started at 2.303 ms,
  // 8 µs after the device-to-host copy op 3 on stream 13 ended at 2.295 ms (launched before the
  // recording began, so it has no call): it waited 2.295 - 1.684 = 611 µs.
  assert.deepEqual(f.ops.slice(0, 2), [4, 3]);
  assert.equal(f.calls[0], 17);
  assert.match(f.message, /waited 611 µs for "Memcpy DtoH \(Device -> Pinned\)" on stream 13/);
  assert.match(f.message, /inferred from timing: the trace gives no flags for stream 13/);
});

test('streams whose work overlapped the legacy one, or that show no hold, are not taken as blocking', async () => {
  for (const file of [
    'test/fixtures/whatif-programs/race_prefetch.profile.json.gz',
    'test/fixtures/whatif-programs/event_sync.profile.json.gz',
    'test/fixtures/torch/sync_overlap.json',
    'test/fixtures/python/ragged_batches.profile.json.gz',
  ])
    assert.deepEqual(await serialized(file), [], file);
});

test("legacy_stream capture: each pass's hold is one finding, though the record that ended last is a new event each pass", async () => {
  const found = await serialized('test/fixtures/whatif-truth/legacy_stream.capture.syncscope.json.gz');
  assert.equal(found.length, 1);
  const [f] = found;
  // Read by hand: the GEMM (op 16) waited for the copy stream's work, whose last op was the record of
  // event 20 (op 15), right after the batch's copy to the host (op 14), which the message names.
  // The next pass's record is of event 22: the place is the copy, not the record.
  assert.deepEqual(f.ops.slice(0, 6), [16, 14, 15, 23, 21, 22]);
  assert.match(f.message, /waited [\d.]+ µs for "DtoH 33554432 B \(pinned\)" on blocking stream stream 1/);
  assert.match(f.message, /\(78 times\)$/);
});
