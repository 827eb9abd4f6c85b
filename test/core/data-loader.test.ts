// A pageable copy on a thread that takes a DataLoader's batches gets the loader's own fix
// (core/analyze/data-loader.ts), labelled as an inference. loader_workers' profile
// (whatif-truth-unseen, H100) holds torch's `enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__`
// range on its main thread (thread 2581) once per step, read by hand; its capture has no ranges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../core/analyze';
import { loaderOnLane } from '../../core/analyze/data-loader';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const unseen = (f: string) => loadTraceFile(repoPath(`test/fixtures/whatif-truth-unseen/${f}`));
const pageable = (t: Awaited<ReturnType<typeof loadTraceFile>>) =>
  analyze(t).findings.filter((f) => f.kind === 'pageable-async-copy');

test("a pageable copy to the GPU on a thread that takes a DataLoader's batches: DataLoader(pin_memory=True), inferred", async () => {
  const t = await unseen('loader_workers.profile.json.gz');
  const main = t.lanes.find((l) => l.name === 'thread 2581 (python3)')!;
  assert.equal(loaderOnLane(t, main.id), 'workers');
  const found = pageable(t);
  assert.equal(found.length, 2, 'the frames and the labels, each its own line');
  for (const f of found) {
    assert.match(f.fix!, /^DataLoader\(pin_memory=True\): the loader pins each batch in a thread of its own; /);
    assert.match(f.fix!, /receiving the batches from the worker processes/);
    assert.match(f.fix!, /\(inferred: this thread takes a DataLoader's batches/);
  }
});

test('with no DataLoader range in the trace, the fix is to pin the memory', async () => {
  const t = await unseen('loader_workers.capture.syncscope.json.gz');
  const found = pageable(t).filter((f) => f.fix);
  assert.ok(found.length > 0);
  for (const f of found) assert.doesNotMatch(f.fix!, /DataLoader\(pin_memory=True\): the loader/);
});
