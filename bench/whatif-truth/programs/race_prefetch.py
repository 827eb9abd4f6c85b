"""Classifier trained on large input batches copied from pinned host memory, on a copy stream, into
one static device batch (as CUDA-graph-ready loops keep their inputs).

The copy stream waits for the default stream before it overwrites the static batch, so a step's copy
never overwrites what the previous step still reads. Bug: the default stream does not wait for the
copy stream before it reads the batch: a race (a step may read a batch half copied), and copies
overlap compute. Fix (--fixed): `current_stream().wait_stream(copy_stream)` before the batch is
read; correct, and each step's copy now runs before its compute: the fix costs time.
"""

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0], iters=100)
dev = torch.device("cuda")
torch.manual_seed(0)

BATCH, FEATURES, HIDDEN, CLASSES = 8192, 2048, 1024, 10
host_batches = [torch.randn(BATCH, FEATURES).pin_memory() for _ in range(4)]
host_labels = [torch.randint(0, CLASSES, (BATCH,)).pin_memory() for _ in range(4)]
static_x = torch.empty(BATCH, FEATURES, device=dev)
static_y = torch.empty(BATCH, dtype=torch.long, device=dev)
model = nn.Sequential(
    nn.Linear(FEATURES, HIDDEN),
    nn.ReLU(),
    nn.Linear(HIDDEN, HIDDEN),
    nn.ReLU(),
    nn.Linear(HIDDEN, CLASSES),
).to(dev)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
copy_stream = torch.cuda.Stream()
torch.cuda.synchronize()


def step(i):
    k = i % len(host_batches)
    # The copy may overwrite the static batch only once the previous step has read it.
    copy_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(copy_stream):
        static_x.copy_(host_batches[k], non_blocking=True)
        static_y.copy_(host_labels[k], non_blocking=True)
    if args.fixed:
        torch.cuda.current_stream().wait_stream(copy_stream)
    loss = loss_fn(model(static_x), static_y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


timed(step, args.warmup, args.iters)
