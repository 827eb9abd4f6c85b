// The lens under a line where the host waited: which op released its waits and the line that
// launched it, as a link that stays inside the workspace or the script's folder. The trace is the
// capture of test/fixtures/editor/train.py (test/helpers/python-capture.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteLines } from '../../core/analyze/site-lines';
import {
  isInsideAny,
  launchesCoverLine,
  launchLensTitle,
  launchLensTooltip,
  launchLines,
  type LaunchLine,
} from '../../extension/logic/launchLines';
import { TRAIN_PY, trainCapture } from '../helpers/python-capture';

const siteLine = (n: number) => {
  const t = trainCapture();
  const s = siteLines(t).find((l) => l.line === n);
  assert.ok(s, `a wait on line ${n}`);
  return { t, s };
};
const lineOf = (n: number) => {
  const { t, s } = siteLine(n);
  return launchLines(t, s);
};

test('a synchronize names the AdamW kernel by its short name and the user line that launched it inside torch.optim', () => {
  assert.deepEqual(lineOf(18), [
    {
      name: 'multi_tensor_apply_kernel<TensorListMetadata>',
      fullName:
        'at::native::{anonymous}::multi_tensor_apply_kernel<at::native::{anonymous}::TensorListMetadata<4>, ' +
        'at::native::{anonymous}::FusedAdamMathFunctor<float, 4>, float>',
      source: { file: TRAIN_PY, line: 11, function: 'step', precision: 'line' },
      // Three steps, each blocked from 30 µs to 603 µs into the step.
      count: 3,
      blockedNs: 3 * 573_000,
    },
  ]);
});

test('a copy that blocks until it is done was launched by its own line: no launch lens leads back to it', () => {
  assert.deepEqual(lineOf(19), []);
});

test("the wait's own lens leaves the releaser to the launch lens only where it names every wait's", () => {
  for (const [n, covered] of [
    [18, true],
    [19, false],
  ] as const) {
    const { t, s } = siteLine(n);
    assert.equal(launchesCoverLine(s, launchLines(t, s)), covered, `line ${n}`);
  }
  const { t, s } = siteLine(18);
  const [one] = launchLines(t, s);
  assert.equal(launchesCoverLine(s, [{ ...one, count: 2 }]), false, 'one of three waits named elsewhere');
});

const adamw: LaunchLine = {
  name: 'multi_tensor_apply_kernel<TensorListMetadata>',
  fullName: 'multi_tensor_apply_kernel<…>',
  source: { file: '/home/ada/proj/train.py', line: 11, function: 'step', precision: 'line' },
  count: 3,
  blockedNs: 1_719_000,
};

test('the lens says the line alone in its own file, the file name elsewhere, and the function where only it is known', () => {
  assert.equal(
    launchLensTitle(adamw, true),
    'released by multi_tensor_apply_kernel<TensorListMetadata>, launched at line 11',
  );
  assert.equal(
    launchLensTitle(adamw, false),
    'released by multi_tensor_apply_kernel<TensorListMetadata>, launched at train.py:11',
  );
  const fn = { ...adamw, source: { ...adamw.source, line: 8, precision: 'function' as const } };
  assert.equal(
    launchLensTitle(fn, true),
    'released by multi_tensor_apply_kernel<TensorListMetadata>, launched in step() (line 8)',
  );
  assert.equal(
    launchLensTooltip(adamw, true),
    '"multi_tensor_apply_kernel<…>" released 3 waits here (1.72 ms blocked). Open train.py at line 11',
  );
  assert.match(launchLensTooltip(adamw, false), /outside the workspace and the script's folder: not opened$/);
  // A launch line a rule placed (autograd's engine thread, during backward()) says so.
  const why = "made by autograd's engine thread while this line ran backward()";
  const engine = { ...adamw, source: { ...adamw.source, deduced: why } };
  assert.equal(
    launchLensTitle(engine, true),
    'released by multi_tensor_apply_kernel<TensorListMetadata>, launched at line 11 (deduced)',
  );
  assert.match(launchLensTooltip(engine, true), /Its launch line is deduced: made by autograd's engine thread/);
});

test('a link opens only files inside the workspace or the script folder', () => {
  const roots = ['/work/proj', '/home/ada/scripts'];
  assert.ok(isInsideAny('/work/proj/train.py', roots));
  assert.ok(isInsideAny('/work/proj/models/net.py', roots));
  assert.ok(isInsideAny('/home/ada/scripts/train.py', roots));
  assert.ok(!isInsideAny('/work/project/train.py', roots), 'a sibling sharing the prefix is outside');
  assert.ok(!isInsideAny('/work/proj/../secrets/x.py', roots), 'a path that climbs out is outside');
  assert.ok(!isInsideAny('/etc/passwd', roots));
  assert.ok(!isInsideAny('train.py', roots), 'a relative path is no place on disk');
  assert.ok(!isInsideAny('/work/proj/train.py', []));
});
