// A capture of test/fixtures/editor/train.py as the capture library records it on a GPU, written
// byte for byte (raw-capture.ts) and converted by core: three steps, each a forward kernel launched
// at line 9, a backward kernel from the autograd engine's thread (no Python), and the AdamW kernel
// launched inside torch/optim from `opt.step()` at line 11; then `torch.cuda.synchronize()` at line
// 18 waits for the AdamW kernel, and `loss.item()` at line 19 for its own device-to-host copy. The
// editor's tests, the timeline's and the end-to-end journey read this one trace.
import { analyze } from '../../core/analyze';
import { importCapture } from '../../core/import/capture-convert';
import { LEGACY_STREAM } from '../../core/import/capture-raw';
import { traceJsonChunks } from '../../core/trace/json';
import type { Trace } from '../../core/trace/model';
import { RawCaptureWriter, type PyFrameSpec } from './raw-capture';

/** Where the script was when it was captured: the workspace holds it elsewhere, found by its name. */
export const TRAIN_PY = '/home/ada/proj/train.py';
const MODULE_PY = '/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py';
const ADAMW_PY = '/opt/venv/lib/python3.12/site-packages/torch/optim/adamw.py';
const OPTIMIZER_PY = '/opt/venv/lib/python3.12/site-packages/torch/optim/optimizer.py';
const CUDA_PY = '/opt/venv/lib/python3.12/site-packages/torch/cuda/__init__.py';

/** The AdamW kernel's name as CUPTI gives it; the lanes show `multi_tensor_apply_kernel<TensorListMetadata>`. */
export const ADAMW_KERNEL =
  'void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, ' +
  'at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>, float>(at::native::(anonymous namespace)::TensorListMetadata<4>, ' +
  'at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>, float)';

/** One step's length on the capture's clock, ns; step i starts at i * STEP_NS. */
export const STEP_NS = 1_000_000;

export function trainCaptureRaw(): RawCaptureWriter {
  const w = new RawCaptureWriter();
  w.python = { status: 1, text: 'CPython 3.12.3', hexVersion: 0x030c03f0 };
  w.device('NVIDIA H200', 132);
  const engine = w.thread('pt_autograd_0', 5001);
  const at = (line: number): PyFrameSpec => [TRAIN_PY, line, '<module>'];
  for (let i = 0; i < 3; i++) {
    const t0 = i * STEP_NS;
    const forward = w.call({
      api: 'launch',
      name: 'cudaLaunchKernel',
      begin: t0 + 1_000,
      end: t0 + 4_000,
      stream: LEGACY_STREAM,
      pyStack: w.pyStack([[MODULE_PY, 1762, '_call_impl'], [TRAIN_PY, 9, 'step'], at(17)]),
    });
    w.kernel(forward, 'ampere_sgemm_128x64_tn', t0 + 5_000, t0 + 60_000);
    const backward = w.call({
      api: 'launch',
      name: 'cudaLaunchKernel',
      thread: engine,
      begin: t0 + 10_000,
      end: t0 + 13_000,
      stream: LEGACY_STREAM,
    });
    w.kernel(backward, 'ampere_sgemm_64x64_nn', t0 + 61_000, t0 + 120_000);
    const adamw = w.call({
      api: 'launch',
      name: 'cudaLaunchKernel',
      begin: t0 + 20_000,
      end: t0 + 24_000,
      stream: LEGACY_STREAM,
      pyStack: w.pyStack([
        [ADAMW_PY, 512, '_fused_adamw'],
        [ADAMW_PY, 230, 'step'],
        [OPTIMIZER_PY, 485, 'wrapper'],
        [TRAIN_PY, 11, 'step'],
        at(17),
      ]),
    });
    w.kernel(adamw, ADAMW_KERNEL, t0 + 121_000, t0 + 600_000);
    w.call({
      api: 'deviceSync',
      name: 'cudaDeviceSynchronize',
      begin: t0 + 30_000,
      end: t0 + 603_000,
      pyStack: w.pyStack([[CUDA_PY, 1040, 'synchronize'], at(18)]),
    });
    const item = w.call({
      api: 'memcpy',
      name: 'cudaMemcpyAsync',
      begin: t0 + 610_000,
      end: t0 + 640_000,
      stream: LEGACY_STREAM,
      bytes: 4,
      copyDir: 2,
      hostMemory: 2,
      pyStack: w.pyStack([at(19)]),
    });
    w.memcpy(item, 2, 3, 1, 4, t0 + 615_000, t0 + 637_000);
  }
  return w;
}

/** The capture converted, with its findings, as `syncscope capture --out` saves it. */
export function trainCapture(): Trace {
  const t = importCapture(trainCaptureRaw().bytes(), { name: 'python3 train.py' });
  t.meta.createdAt = '2026-12-01T10:00:00.000Z';
  t.findings = analyze(t).findings;
  return t;
}

/** The `.syncscope.json` text of that capture. */
export const trainCaptureJson = (): string => [...traceJsonChunks(trainCapture())].join('');
