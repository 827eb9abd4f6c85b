// S17: the kind of read behind a hidden synchronize (core/analyze/host-reads.ts), and its fix. The
// contexts are those of real traces (test/fixtures/python, test/fixtures/whatif-truth): a profile's
// aten:: chain under its step, a capture's Python frames; the kernel names are CUB's and torch's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFix, readOfContext, readOfCopy } from '../../core/analyze/host-reads';

test('S17 a profile names the read by its outermost aten:: op, not by the step it ran in', () => {
  const kind = (context: string) => readOfContext(context)?.kind;
  // mask_nonzero.py:21, `scores[scores.abs() > 0.9]`, and :22, torch.nonzero(...)
  assert.equal(kind('ProfilerStep#0 > aten::index > aten::nonzero'), 'mask');
  assert.equal(kind('ProfilerStep#0 > aten::nonzero'), 'mask');
  // ragged_batches.py:49, torch.unique: its count is read by an item() inside it
  assert.equal(kind('ProfilerStep#3 > aten::_unique2 > aten::item > aten::_local_scalar_dense'), 'unique');
  // accum_eval.py:36, `if not torch.isfinite(loss):` on a GPU tensor
  assert.equal(kind('ProfilerStep#3 > aten::is_nonzero > aten::item > aten::_local_scalar_dense'), 'condition');
  assert.equal(kind('ProfilerStep#2 > aten::item > aten::_local_scalar_dense'), 'scalar');
  // sample_topp.py: .cpu() of a tensor
  assert.equal(kind('ProfilerStep#0 > aten::to > aten::_to_copy > aten::copy_'), 'tensor');
  assert.equal(readOfContext('ProfilerStep#0 > aten::index > aten::nonzero')?.what, 'indexing with a boolean mask');
  assert.equal(readOfContext('ProfilerStep#0 > aten::index > aten::nonzero')?.deduced, undefined);
});

test('S17 a capture names the read by the Python frames torch made it in', () => {
  // amp_scaler.py:33, scaler.step(opt)
  const scaler = readOfContext(
    'GradScaler.step > GradScaler._maybe_opt_step > GradScaler._maybe_opt_step.<locals>.<genexpr>',
  );
  assert.equal(scaler?.kind, 'scaler');
  assert.match(readFix(scaler!), /fused=True/);
  // The same in a profile: its context names aten::item, its stack the function in grad_scaler.py.
  const frames =
    '/opt/torch/.venv/lib/python3.12/site-packages/torch/amp/grad_scaler.py:<genexpr> > ' +
    '/opt/torch/.venv/lib/python3.12/site-packages/torch/amp/grad_scaler.py:_maybe_opt_step';
  assert.equal(readOfContext('ProfilerStep#3 > aten::item > aten::_local_scalar_dense', frames)?.kind, 'scaler');
  // accum_eval.py:44, print(f"... {loss}")
  assert.equal(readOfContext('Tensor.__format__')?.kind, 'scalar');
  // A context with neither names nothing: the copy decides.
  assert.equal(readOfContext('Module._call_impl > Linear.forward'), undefined);
  assert.equal(readOfContext(''), undefined);
});

test('S17 a capture with no such frames: the kind is deduced from the copy and the kernel before it, and said so', () => {
  // mask_nonzero capture: a 4 B copy right after CUB's count
  const count = readOfCopy(4, 'void cub::CUB_200200_900_NS::DeviceReduceSingleTileKernel<policy_hub>(int *, int)');
  assert.equal(count.kind, 'mask');
  assert.match(count.deduced ?? '', /^deduced from the 4 B copy right after DeviceReduceSingleTileKernel/);
  assert.match(readFix(count), /torch\.nonzero_static.*\(the kind of read is deduced from the 4 B copy/);
  // item_every_step capture: a 4 B loss after the optimizer's kernel
  const scalar = readOfCopy(4, 'void at::native::multi_tensor_apply_kernel<TensorListMetadata>(...)');
  assert.equal(scalar.kind, 'scalar');
  assert.equal(scalar.deduced, "deduced from the copy's 4 B");
  // A count's kernel with a copy larger than one value is a tensor's copy, not a count.
  assert.equal(readOfCopy(4096, 'DeviceReduceSingleTileKernel').kind, 'tensor');
  assert.equal(readOfCopy(9, '').kind, 'tensor');
  assert.equal(readOfCopy(8, '').kind, 'scalar');
});

test('S17 each kind has a fix of its own, and only a deduced one says it is deduced', () => {
  const kinds = ['mask', 'unique', 'repeat', 'scaler', 'condition', 'scalar', 'tensor'] as const;
  const fixes = kinds.map((kind) => readFix({ kind, what: '' }));
  assert.equal(new Set(fixes).size, kinds.length);
  for (const f of fixes) assert.doesNotMatch(f, /deduced/);
  assert.match(readFix({ kind: 'repeat', what: '' }), /output_size=/);
});
