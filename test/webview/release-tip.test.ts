// What a release arrow says under the pointer: the line that waited and the line that launched the
// op that released it. The trace is the capture of test/fixtures/editor/train.py
// (test/helpers/python-capture.ts); the sample trace has scenario lines and no Python.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EDGE_KINDS, type Trace } from '../../core/trace/model';
import { releaseArrowLines } from '../../webview/release-tip';
import { trainCapture } from '../helpers/python-capture';
import { sampleTrace } from './sample';

const releaseInto = (t: Trace, call: number): number => {
  for (let e = 0; e < t.edges.count; e++)
    if (EDGE_KINDS[t.edges.kind[e]] === 'release' && t.edges.to[e] === call) return e;
  throw new Error(`no release arrow into call ${call}`);
};

test("a synchronize's arrow names the AdamW kernel, the line that waited and the line that launched it", () => {
  const t = trainCapture();
  // Call 3: the first step's cudaDeviceSynchronize (launch, engine launch, AdamW launch come first).
  assert.deepEqual(releaseArrowLines(t, releaseInto(t, 3)), [
    '"multi_tensor_apply_kernel<TensorListMetadata>" released cudaDeviceSynchronize',
    'waited at /home/ada/proj/train.py:18 in <module>',
    'launched at /home/ada/proj/train.py:11 in step()',
    'host blocked 573 µs',
  ]);
});

test('a copy that blocks is released by itself: both lines are the one line', () => {
  const t = trainCapture();
  assert.deepEqual(releaseArrowLines(t, releaseInto(t, 4)).slice(0, 3), [
    '"DtoH 4 B (pageable)" released cudaMemcpyAsync',
    'waited at /home/ada/proj/train.py:19 in <module>',
    'launched at /home/ada/proj/train.py:19 in <module>',
  ]);
});

test('a trace without Python says where each call was made as it can: a scenario line', () => {
  const t = sampleTrace();
  let e = 0;
  while (EDGE_KINDS[t.edges.kind[e]] !== 'release') e++;
  const [, waited, launched] = releaseArrowLines(t, e);
  assert.match(waited, /^waited: line \d+$/);
  assert.equal(launched, 'launched: line 5');
});
