"""Keyword-spotting model trained on spectrograms that a background thread prepares while the GPU trains.

Bug: the thread hands over each batch in pageable memory, so the main thread's
`.to(dev, non_blocking=True)` is not asynchronous: CUDA stages pageable memory through its own buffers
and the host waits for the copy, which waits for the kernels queued before it. Fix (--fixed): the
thread pins each batch (`.pin_memory()`) before it hands it over, and the copy runs while the host
queues the step.
"""

import queue
import threading

import torch
import torch.nn.functional as F
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

CLIPS, MELS, FRAMES, BATCH, WORDS = 2048, 80, 256, 96, 35

clips = torch.randn(CLIPS, MELS, FRAMES)
words = torch.randint(0, WORDS, (CLIPS,))
ready = queue.Queue(maxsize=4)


def prepare(count):
    """Draws `count` batches, each with a random span of frames masked (SpecAugment's time mask)."""
    gen = torch.Generator().manual_seed(1)
    for _ in range(count):
        idx = torch.randint(0, CLIPS, (BATCH,), generator=gen)
        specs = clips[idx]
        start = int(torch.randint(0, FRAMES - 32, (1,), generator=gen))
        specs[:, :, start : start + 32] = 0
        batch = (specs, words[idx])
        if args.fixed:
            batch = tuple(t.pin_memory() for t in batch)
        ready.put(batch)


threading.Thread(target=prepare, args=(args.warmup + args.iters,), daemon=True).start()


class KeywordNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = nn.Sequential(
            nn.Conv1d(MELS, 256, 5, padding=2), nn.GELU(), nn.Conv1d(256, 256, 5, stride=2, padding=2), nn.GELU()
        )
        layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1, batch_first=True)
        self.body = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
        self.head = nn.Linear(256, WORDS)

    def forward(self, specs):
        h = self.front(specs).transpose(1, 2)
        return self.head(self.body(h).mean(1))


model = KeywordNet().to(dev)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)


def step(i):
    specs, target = ready.get()
    specs = specs.to(dev, non_blocking=True)
    target = target.to(dev, non_blocking=True)
    loss = F.cross_entropy(model(specs), target)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


timed(step, args.warmup, args.iters)
