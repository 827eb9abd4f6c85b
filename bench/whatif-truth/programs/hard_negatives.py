"""Two-tower retrieval model trained with hard-negative mining: only the hardest pairs count.

Bug: the hard pairs are picked with `torch.nonzero(losses > margin)` and a Python `if len(hard)`:
nonzero copies its count to the host and waits for the forward pass, every step, before the host
may queue the backward pass. Fix (--fixed): the loss is a masked mean (the mask multiplies the
losses, its sum divides them), which gives the same value and stays on the GPU.
"""

import torch
import torch.nn.functional as F
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

USERS, ITEMS, DIM, BATCH, MARGIN = 100_000, 200_000, 128, 4096, 0.3


def tower(count):
    return nn.ModuleDict(
        {
            "embed": nn.EmbeddingBag(count, DIM, mode="mean"),
            "mlp": nn.Sequential(nn.Linear(DIM, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, DIM)),
        }
    )


def encode(t, ids):
    return F.normalize(t["mlp"](t["embed"](ids)), dim=-1)


users, items = tower(USERS).to(dev), tower(ITEMS).to(dev)
optimizer = torch.optim.Adam(list(users.parameters()) + list(items.parameters()), lr=1e-3)
history = [torch.randint(0, USERS, (BATCH, 20), device=dev) for _ in range(8)]
positives = [torch.randint(0, ITEMS, (BATCH, 4), device=dev) for _ in range(8)]
negatives = [torch.randint(0, ITEMS, (BATCH, 4), device=dev) for _ in range(8)]


def mined_loss(u, pos, neg):
    losses = F.relu(MARGIN - (u * pos).sum(-1) + (u * neg).sum(-1))
    hard = losses > 0
    if args.fixed:
        return (losses * hard).sum() / hard.sum().clamp(min=1)
    picked = torch.nonzero(hard).squeeze(1)
    if len(picked) == 0:
        return losses.sum() * 0
    return losses[picked].mean()


def step(i):
    k = i % len(history)
    u = encode(users, history[k])
    loss = mined_loss(u, encode(items, positives[k]), encode(items, negatives[k]))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


timed(step, args.warmup, args.iters)
