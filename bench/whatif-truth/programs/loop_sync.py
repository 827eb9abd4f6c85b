"""Click-through-rate model (embeddings and an MLP) trained on a dataset held on the GPU.

Bug: a step-time meter calls torch.cuda.synchronize() after every step, so the GPU drains and sits
idle while the host comes back and queues the next step. Fix (--fixed): no synchronize in the loop;
the meter times the host's side of each step, and the run is timed as a whole.
"""

import collections
import statistics
import time

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

ROWS, BATCH, DENSE, TABLES, VOCAB, DIM = 262_144, 2048, 16, 8, 100_000, 64
dense = torch.randn(ROWS, DENSE, device=dev)
categorical = torch.randint(0, VOCAB, (ROWS, TABLES), device=dev)
clicks = torch.randint(0, 2, (ROWS,), device=dev).float()


class ClickModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(DENSE)
        self.tables = nn.ModuleList(nn.Embedding(VOCAB, DIM) for _ in range(TABLES))
        self.mlp = nn.Sequential(
            nn.Linear(DENSE + TABLES * DIM, 1024),
            nn.ReLU(),
            nn.Linear(1024, 1024),
            nn.ReLU(),
            nn.Linear(1024, 1),
        )

    def forward(self, x_dense, x_cat):
        features = [self.norm(x_dense)] + [t(x_cat[:, k]) for k, t in enumerate(self.tables)]
        return self.mlp(torch.cat(features, dim=1)).squeeze(1)


model = ClickModel().to(dev)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()
step_times = collections.deque(maxlen=100)
last = [time.perf_counter()]


def step(i):
    rows = torch.randint(0, ROWS, (BATCH,), device=dev)
    logits = model(dense[rows], categorical[rows])
    loss = loss_fn(logits, clicks[rows])
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    if not args.fixed:
        torch.cuda.synchronize()  # so that the meter sees the GPU's time of the step
    now = time.perf_counter()
    step_times.append(now - last[0])
    last[0] = now
    if i % 50 == 49:
        print(f"step {i + 1}: median step {statistics.median(step_times) * 1e3:.2f} ms", flush=True)


timed(step, args.warmup, args.iters)
