// The editor's heat on lines: each line's share of the blocked host time in five levels, and the
// figure at the line's end, per step where the trace has iterations. On real traces: the capture of
// test/fixtures/editor/train.py (three steps; line 18 waits 573 µs a step for the AdamW kernel
// launched at line 11), the hand-made trace of side_stream_sync (test/fixtures/editor/README.md:
// 11.365, 5049.682 and 5277.406 µs at line 18), and a profile of train_step.py (ten batches).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { heatLevel, lineHeats } from '../../core/analyze/line-heat';
import { siteLines } from '../../core/analyze/site-lines';
import { importPytorch } from '../../core/import/pytorch';
import { parseTrace } from '../../core/trace/json';
import { iterationCount, iterationWindow } from '../../core/overview/window';
import { repoPath } from '../helpers/paths';
import { trainCapture } from '../helpers/python-capture';

const editorTrace = () =>
  parseTrace(readFileSync(repoPath('test/fixtures/editor/side_stream_sync.syncscope.json'), 'utf8'), 'editor');
const trainStepProfile = () =>
  importPytorch(
    gunzipSync(readFileSync(repoPath('test/fixtures/torch/profile/train_step.profile.json.gz'))).toString(),
  );

const heatsOf = (t: ReturnType<typeof trainCapture>) =>
  lineHeats(t, siteLines(t), iterationWindow(t)).map((h) => [h.site.line, h.level, h.text]);

test('a share is in fifths, rounded up: any blocked time shows, and only a line that blocks most is the hottest', () => {
  assert.deepEqual([0, 0.001, 0.2, 0.2001, 0.6, 0.81, 1].map(heatLevel), [0, 1, 1, 2, 3, 5, 5]);
});

test('the capture of train.py: the synchronize is hottest, waiting 573 µs a step for the AdamW kernel of line 11', () => {
  const t = trainCapture();
  assert.equal(iterationCount(t), 3);
  assert.deepEqual(heatsOf(t), [
    [18, 5, 'blocked 573 µs/step, waits for multi_tensor_apply_kernel<TensorListMetadata> (line 11)'],
    // .item() copies the loss to pageable memory: the copy it launched itself is what it waits for.
    [19, 1, 'blocked 30 µs/step, waits for its own DtoH 4 B (pageable)'],
  ]);
});

test('side_stream_sync: the cuBLAS GEMM by its short name, and waits whose releaser the trace does not name', () => {
  const t = editorTrace();
  // Three iterations; the first, with the set-up before the loop, is left out as warm-up.
  assert.equal(iterationCount(t), 2);
  const [sync, item, cpu] = lineHeats(t, siteLines(t), iterationWindow(t));
  // (5049.682 + 5277.406) µs over the two steps counted.
  assert.equal(sync.text, 'blocked 5.16 ms/step, waits for xmma_gemm f32 nn on stream 13');
  assert.equal(sync.level, 5);
  assert.deepEqual([item.site.line, item.level], [19, 1]);
  assert.match(item.text, /\/step, the trace does not say for which op$/);
  assert.equal(cpu.site.line, 20);
});

test('a profile of ten batches: nine steps after the warm-up, though attribute queries repeat twenty times in its set-up', () => {
  const t = trainStepProfile();
  // Ten batches; the first, 29.9 times the median, is left out as warm-up.
  assert.equal(iterationCount(t), 9);
  const item = lineHeats(t, siteLines(t), iterationWindow(t)).find((h) => h.site.line === 25);
  assert.ok(item, 'loss.item() at line 25 waits');
  assert.equal(item.level, 5);
  // 34.5 ms over the nine steps counted. The copy that .item() launched waits behind the step's 27
  // ops, the last AdamW's kernel, launched where Kineto gives only the function.
  assert.equal(
    item.text,
    'blocked 3.83 ms/step, waits for 27 queued ops, the last multi_tensor_apply_kernel<TensorListMetadata> (launched in <module>), then its own Memcpy DtoH (Device -> Pinned)',
  );
});

test('without iterations the figure is the total', () => {
  const t = trainCapture();
  const [sync] = lineHeats(t, siteLines(t), undefined);
  assert.equal(sync.text, 'blocked 1.72 ms in all, waits for multi_tensor_apply_kernel<TensorListMetadata> (line 11)');
});
