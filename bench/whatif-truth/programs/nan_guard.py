"""Part-of-speech tagger (embedding, two-layer LSTM, linear head) that skips a step whose loss is not finite.

Bug: `if not torch.isfinite(loss): ...` before the backward pass, every step: a Python if on a GPU
tensor copies the flag to the host and waits for the whole forward pass, so the host queues the
backward pass only once the GPU is idle. Fix (--fixed): the flag stays on the GPU: a step whose loss
is not finite has its loss zeroed with torch.where (so its gradients are zero), and the count of
such steps is read once, after the loop.
"""

import torch
import torch.nn.functional as F
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

WORDS, TAGS, DIM, HIDDEN, SEQ, BATCH = 30_000, 48, 256, 512, 64, 128


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(WORDS, DIM)
        self.lstm = nn.LSTM(DIM, HIDDEN, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * HIDDEN, TAGS)

    def forward(self, words):
        out, _ = self.lstm(self.embed(words))
        return self.head(out)


model = Tagger().to(dev)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
sentences = [torch.randint(0, WORDS, (BATCH, SEQ), device=dev) for _ in range(8)]
tags = [torch.randint(0, TAGS, (BATCH, SEQ), device=dev) for _ in range(8)]
skipped = {"steps": torch.zeros((), device=dev, dtype=torch.long) if args.fixed else 0}


def step(i):
    k = i % len(sentences)
    loss = F.cross_entropy(model(sentences[k]).flatten(0, 1), tags[k].flatten())
    optimizer.zero_grad(set_to_none=True)
    if args.fixed:
        finite = torch.isfinite(loss)
        skipped["steps"] += (~finite).long()
        loss = torch.where(finite, loss, torch.zeros_like(loss))
    elif not torch.isfinite(loss):
        skipped["steps"] += 1
        return
    loss.backward()
    optimizer.step()


def finish():
    print(f"skipped {int(skipped['steps'])} steps", flush=True)


timed(step, args.warmup, args.iters, finish)
