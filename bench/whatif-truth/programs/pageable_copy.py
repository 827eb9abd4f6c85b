"""Regression MLP trained on batches that live in host memory, as a loader hands them over.

Bug: the batches are pageable, so `.to(dev, non_blocking=True)` is synchronous for the host (CUDA
stages pageable memory through its own buffers), and the copy waits for the previous step's kernels.
Fix (--fixed): the batches are pinned once, up front, as DataLoader(pin_memory=True) would have
them; the copies are then asynchronous and the host queues the step while the GPU still works.
"""

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0], iters=100)
dev = torch.device("cuda")
torch.manual_seed(0)

BATCH, FEATURES, HIDDEN = 4096, 1024, 2048
batches = [(torch.randn(BATCH, FEATURES), torch.randn(BATCH, 1)) for _ in range(8)]
if args.fixed:
    batches = [(x.pin_memory(), y.pin_memory()) for x, y in batches]

model = nn.Sequential(
    nn.Linear(FEATURES, HIDDEN),
    nn.ReLU(),
    nn.Linear(HIDDEN, HIDDEN),
    nn.ReLU(),
    nn.Linear(HIDDEN, 1),
).to(dev)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
loss_fn = nn.MSELoss()


def step(i):
    x, y = batches[i % len(batches)]
    x = x.to(dev, non_blocking=True)
    y = y.to(dev, non_blocking=True)
    loss = loss_fn(model(x), y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


timed(step, args.warmup, args.iters)
