// Why a framework op read a GPU value on the host (the hidden synchronize of S17), and the fix for
// that kind of read, in one vocabulary for every trace: a profile names the op (its aten:: chain),
// a capture names the Python line and the kernels, from which the kind is deduced and said so.
import { shortKernelName } from '../trace/kernel-names';

export type HostReadKind = 'mask' | 'unique' | 'repeat' | 'scaler' | 'condition' | 'scalar' | 'tensor';

export interface HostRead {
  kind: HostReadKind;
  /** What the program did, in the user's words: "indexing with a boolean mask". */
  what: string;
  /** Where the kind was deduced rather than read from an op's name: why, in words. */
  deduced?: string;
}

/** Ops whose result's size depends on the data: the host must read a count before it allocates. */
const MASK_OPS: Record<string, string> = {
  'aten::index': 'indexing with a boolean mask',
  'aten::index_put_': 'assigning through a boolean mask',
  'aten::_index_put_impl_': 'assigning through a boolean mask',
  'aten::masked_select': 'masked_select',
  'aten::nonzero': 'nonzero',
  'aten::argwhere': 'argwhere',
  'aten::nonzero_numpy': 'nonzero(as_tuple=True)',
};
const UNIQUE_OPS = new Set(['aten::_unique2', 'aten::unique_dim', 'aten::unique_consecutive', 'aten::_unique']);
const CONDITION_OPS = new Set(['aten::is_nonzero', 'aten::equal']);
const SCALAR_OPS = new Set(['aten::item', 'aten::_local_scalar_dense']);
const TENSOR_OPS = new Set(['aten::to', 'aten::_to_copy', 'aten::copy_', 'aten::cpu']);

/**
 * GradScaler.step's read of its found-inf flags, by the Python frame it is made in: a capture names
 * it by its class, a profile's stack by its file.
 */
const SCALER_FRAME = /(GradScaler\.|grad_scaler\.py:)_maybe_opt_step/;
/** Python frames of torch that read a tensor for the host: formatting it, or handing it to NumPy. */
const FORMAT_FRAME = /Tensor\.(__format__|__repr__|__str__)/;
const ARRAY_FRAME = /Tensor\.(__array__|numpy)/;
/**
 * Kernels that count what a data-dependent result will hold, run right before the count is read:
 * CUB's reduce (nonzero's count of True values), select and run-length encode (unique's).
 */
const COUNT_KERNEL = /DeviceReduce|DeviceSelect|DeviceRunLengthEncode|nonzero/i;
/**
 * The kernels of a count read's own op (nonzero, which indexing with a boolean mask and
 * masked_select run): CUB's reduce counts the True values before the count is copied, then CUB's
 * select and write_indices fill the result once the host has sized it.
 */
export const COUNT_OP_KERNEL =
  /DeviceReduce(SingleTile)?Kernel|DeviceCompactInitKernel|DeviceSelectSweepKernel|write_indices/;
/** A copy this small is one value: a count, a flag or a scalar. */
const ONE_VALUE_BYTES = 8;

/**
 * The read that `context` (a profile's aten:: chain, or a capture's Python frames) says was made;
 * `frames`: the call's Python stack as `file:function` frames, where the trace has one, which name
 * the library code that asked (GradScaler) where the context names only the op.
 */
export function readOfContext(context: string, frames = ''): HostRead | undefined {
  if (SCALER_FRAME.test(context) || SCALER_FRAME.test(frames))
    return { kind: 'scaler', what: "GradScaler.step's check of its found-inf flags" };
  if (FORMAT_FRAME.test(context)) return { kind: 'scalar', what: 'formatting a tensor (print, an f-string)' };
  if (ARRAY_FRAME.test(context)) return { kind: 'tensor', what: 'a tensor handed to NumPy' };
  const ops = context.split(' > ').filter((p) => p.startsWith('aten::'));
  const outer = ops[0];
  if (outer === undefined) return undefined;
  if (outer === 'aten::repeat_interleave') return { kind: 'repeat', what: 'repeat_interleave' };
  if (UNIQUE_OPS.has(outer)) return { kind: 'unique', what: 'torch.unique' };
  // Indexing synchronizes only with a boolean mask: integer indices need no count.
  if (outer in MASK_OPS) return { kind: 'mask', what: MASK_OPS[outer] };
  if (CONDITION_OPS.has(outer)) return { kind: 'condition', what: 'a Python condition on a GPU tensor' };
  if (SCALAR_OPS.has(outer)) return { kind: 'scalar', what: '.item()' };
  if (TENSOR_OPS.has(outer)) return { kind: 'tensor', what: 'a copy of a tensor to the host' };
  return undefined;
}

/**
 * The read a trace without op names made, deduced from the copy's size and the kernel launched
 * right before it (`lastKernel`, '' where none is known).
 */
export function readOfCopy(bytes: number, lastKernel: string): HostRead {
  const kernel = shortKernelName(lastKernel);
  if (bytes > 0 && bytes <= ONE_VALUE_BYTES && COUNT_KERNEL.test(lastKernel))
    return {
      kind: 'mask',
      what: 'a count read to size a result (nonzero, a boolean mask, masked_select or unique)',
      deduced: `deduced from the ${bytes} B copy right after ${kernel}, which counts`,
    };
  if (bytes > 0 && bytes <= ONE_VALUE_BYTES)
    return {
      kind: 'scalar',
      what: 'a read of one value (.item(), float(), int(), bool() or an if on a tensor)',
      deduced: `deduced from the copy's ${bytes} B`,
    };
  return {
    kind: 'tensor',
    what: 'a copy of a tensor to the host (.cpu(), .tolist(), .numpy())',
    ...(bytes > 0 ? { deduced: `deduced from the copy's ${bytes} B` } : {}),
  };
}

const FIXES: Record<HostReadKind, string> = {
  mask:
    "the result's size depends on the data, so the host waits to read a count: keep the shape fixed instead: " +
    'weight or fill by the mask (x * mask, torch.where(mask, x, 0), masked_fill) and divide by mask.sum() ' +
    'where a mean is meant; where a bound on the count is known, torch.nonzero_static(mask, size=bound)',
  unique:
    "torch.unique's output size depends on the data, so the host waits to read it: where the values are ids " +
    'below a known n, torch.bincount(x, minlength=n) > 0 marks the present ones in a fixed shape; else call it less often',
  repeat:
    'repeat_interleave reads the total of the repeats to size its result: pass output_size= where the program knows it',
  scaler:
    'GradScaler.step reads whether any gradient overflowed before it steps: an optimizer built with fused=True ' +
    '(Adam, AdamW, SGD) takes the flag on the GPU and steps with no read',
  condition:
    'a Python if, while, assert or bool() on a GPU tensor waits for every kernel queued before it: decide on the GPU ' +
    '(torch.where), or check every N steps',
  scalar:
    'keep the value on the GPU (accumulate with tensor ops) and read it once after the loop or every N steps; ' +
    'each read waits for every kernel queued before it',
  tensor:
    'copy into pinned memory with non_blocking=True and wait on an event only where the host uses the data, ' +
    'or keep the work on the GPU',
};

/** The fix for a read of this kind, in the words every view shows. */
export const readFix = (read: HostRead): string =>
  read.deduced ? `${FIXES[read.kind]} (the kind of read is ${read.deduced})` : FIXES[read.kind];
