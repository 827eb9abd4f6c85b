"""Batched embedding inference: an encoder on PyTorch's default stream, each batch's embeddings
copied to pinned host memory on a stream that a library created with the CUDA driver API.

Bug: that stream was created blocking (cuStreamCreate flags 0). PyTorch's default stream is CUDA's
legacy default stream, which waits for all work queued before on every blocking stream and makes
them wait for its own, so the copy of batch i and the encoder of batch i + 1 run one after the
other. Fix (--fixed): the same stream created non-blocking (CU_STREAM_NON_BLOCKING), so the copy
overlaps the next batch's encoder; the event wait the program already has keeps the order it needs.
"""

import ctypes

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

CU_STREAM_DEFAULT, CU_STREAM_NON_BLOCKING = 0, 1


def driver_stream(flags):
    """A stream made by cuStreamCreate in the context PyTorch uses, wrapped for PyTorch."""
    driver = ctypes.CDLL("libcuda.so.1")
    torch.zeros(1, device=dev)  # PyTorch's context is made and current on this thread
    context = ctypes.c_void_p()
    if driver.cuCtxGetCurrent(ctypes.byref(context)) != 0 or not context.value:
        if driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), ctypes.c_int(dev.index or 0)) != 0:
            raise RuntimeError("cuDevicePrimaryCtxRetain failed")
        driver.cuCtxSetCurrent(context)
    handle = ctypes.c_void_p()
    err = driver.cuStreamCreate(ctypes.byref(handle), ctypes.c_uint(flags))
    if err != 0:
        raise RuntimeError(f"cuStreamCreate failed: CUresult {err}")
    return torch.cuda.ExternalStream(handle.value, device=dev)


BATCH, FEATURES, HIDDEN, OUT = 8192, 1024, 2048, 1024
inputs = [torch.randn(BATCH, FEATURES, device=dev) for _ in range(4)]
encoder = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, OUT)).to(dev).eval()
results = [torch.empty(BATCH, OUT, pin_memory=True) for _ in range(2)]
copies = driver_stream(CU_STREAM_NON_BLOCKING if args.fixed else CU_STREAM_DEFAULT)
encoded = [torch.cuda.Event() for _ in range(2)]
torch.cuda.synchronize()


def step(i):
    with torch.inference_mode():
        emb = encoder(inputs[i % len(inputs)])
        ready = encoded[i % 2]
        ready.record()
        with torch.cuda.stream(copies):
            copies.wait_event(ready)
            results[i % 2].copy_(emb, non_blocking=True)
        emb.record_stream(copies)


def finish():
    copies.synchronize()
    print(f"last embedding norm {results[0][0].norm():.3f}", flush=True)


timed(step, args.warmup, args.iters, finish)
