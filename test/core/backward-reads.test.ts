// A read made in autograd's backward pass, tied to the forward op it is the backward of
// (core/analyze/backward-reads.ts). amp_masked_tokens' profile (test/fixtures/whatif-truth-unseen,
// H100), read by hand: its boolean mask's reads run in `aten::index > aten::nonzero` at line 58
// (`logits[real]`, `targets[real]`), and the backward's in `autograd::engine::evaluate_function:
// IndexBackward0 > IndexBackward0 > aten::_index_put_impl_ > aten::nonzero`, on the engine's thread,
// placed at line 67 (`scaler.scale(loss).backward()`) by deduction. Its capture names no op: the
// 4 B copies after CUB's DeviceReduceSingleTileKernel are count reads, twice a step at line 58 on
// the script's thread, once a step on autograd's engine thread (pt_autograd_0), placed at line 67.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze } from '../../core/analyze';
import { forwardOpOf, linkBackwardReads } from '../../core/analyze/backward-reads';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const ampCapture = () =>
  loadTraceFile(repoPath('test/fixtures/whatif-truth-unseen/amp_masked_tokens.capture.syncscope.json.gz'));
const amp = () => loadTraceFile(repoPath('test/fixtures/whatif-truth-unseen/amp_masked_tokens.profile.json.gz'));

test("a backward node names its forward op: the node's name before Backward, in snake case", () => {
  assert.equal(forwardOpOf('Index'), 'aten::index');
  assert.equal(forwardOpOf('MaskedSelect'), 'aten::masked_select');
  assert.equal(forwardOpOf('IndexPut'), 'aten::index_put');
  assert.equal(forwardOpOf('Nonzero'), 'aten::nonzero');
});

test("the backward's read of a boolean mask points to the forward's indexing, whose fix removes both", async () => {
  const t = await amp();
  const { findings } = analyze(t);
  const ids = (pred: (m: string) => boolean) =>
    findings.flatMap((f, k) => (f.kind === 'hidden-sync' && pred(f.message) ? [`F${k + 1}`] : []));
  assert.deepEqual(
    ids((m) => m.startsWith('aten::index (')),
    ['F1'],
  );
  const [backward] = ids((m) => m.startsWith('aten::_index_put_impl_ ('));
  assert.equal(backward, 'F2');
  const f = findings[1];
  assert.match(f.message, /; made in the backward pass of aten::index \(IndexBackward0\)$/);
  assert.match(
    f.fix!,
    /^fix F1 \(line 58\), the forward pass's aten::index: the same change removes this read of its backward \(inferred from the op names: IndexBackward0 is the backward of aten::index\); simulate both together with whatif --fix F1\+F2\. At that line: the result's size depends on the data/,
  );
  // The forward read and GradScaler's are not in a backward pass.
  for (const other of findings.filter((_, k) => k !== 1)) assert.doesNotMatch(other.message, /backward pass of/);
});

test('without a forward read of its op, the backward read says where it runs and keeps its own fix', async () => {
  const t = await amp();
  const { findings } = analyze(t);
  const alone = [{ ...findings[1], message: findings[1].message.replace(/; made in the backward pass.*$/, '') }];
  const fix = findings[1].fix!.replace(/^.*At that line: /, '');
  alone[0].fix = fix;
  linkBackwardReads(t, alone);
  assert.match(alone[0].message, /; made in the backward pass of aten::index \(IndexBackward0\)$/);
  assert.equal(alone[0].fix, fix);
});

test("a capture's count read in the backward pass points to the forward's count reads, as an inference", async () => {
  const { findings } = analyze(await ampCapture());
  const reads = findings.flatMap((f, k) => (f.kind === 'hidden-sync' ? [[`F${k + 1}`, f] as const] : []));
  const [forward, backward, scaler] = reads.filter(([, f]) => /amp_masked_tokens\.py:(58|67|68) in /.test(f.message));
  assert.match(forward[1].message, /amp_masked_tokens\.py:58 .*a count read.* on main .*\(160 times\)$/);
  assert.match(
    backward[1].message,
    /amp_masked_tokens\.py:67 .* on pt_autograd_0 .*\(80 times\); made by autograd's engine in the backward pass$/,
  );
  assert.equal(
    backward[1].fix!.replace(/\. At that line: .*$/, ''),
    `fix ${forward[0]} (line 58), the forward pass's count read: the same change removes this read of its backward ` +
      '(inferred: in a backward pass, the backward of indexing with a boolean mask, masked_select or nonzero counts ' +
      `the mask again); simulate both together with whatif --fix ${forward[0]}+${backward[0]}`,
  );
  // The forward read keeps its own fix; GradScaler's read (line 68) is no count, and is not tied.
  assert.match(forward[1].fix!, /^the result's size depends on the data/);
  assert.match(scaler[1].message, /GradScaler\.step's check/);
  assert.doesNotMatch(scaler[1].message + scaler[1].fix, /backward pass|forward pass/);
});
