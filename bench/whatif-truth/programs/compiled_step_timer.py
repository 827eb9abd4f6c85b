"""MLP-mixer trained through torch.compile with CUDA graphs, each step's time logged for a throughput meter.

Bug: each step ends with torch.cuda.synchronize() so that the host clock measures the GPU's work;
the host waits for every step to finish before it queues the next, and the GPU idles while the host
runs the optimizer and replays the next graph. Fix (--fixed): the steps are timed with CUDA events,
read once after the loop, and nothing waits.
"""

import time

import torch
import torch.nn.functional as F
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

BATCH, PATCHES, DIM, DEPTH, CLASSES = 64, 196, 384, 6, 1000


class MixerBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.tokens = nn.Sequential(nn.Linear(PATCHES, 2 * PATCHES), nn.GELU(), nn.Linear(2 * PATCHES, PATCHES))
        self.channels = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))

    def forward(self, x):
        x = x + self.tokens(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channels(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(*[MixerBlock() for _ in range(DEPTH)])
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, x, target):
        return F.cross_entropy(self.head(self.blocks(x).mean(1)), target)


net = Mixer().to(dev)
model = torch.compile(net, mode="reduce-overhead")
optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
inputs = [torch.randn(BATCH, PATCHES, DIM, device=dev) for _ in range(4)]
targets = [torch.randint(0, CLASSES, (BATCH,), device=dev) for _ in range(4)]
step_times = []
events = []


def step(i):
    if args.fixed:
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
    else:
        t0 = time.perf_counter()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(inputs[i % 4], targets[i % 4])
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if args.fixed:
        end.record()
        events.append((begin, end))
    else:
        torch.cuda.synchronize()
        step_times.append(time.perf_counter() - t0)


def report():
    if args.fixed:
        events[-1][1].synchronize()
    ms = [b.elapsed_time(e) for b, e in events] if args.fixed else [t * 1e3 for t in step_times]
    print(f"{BATCH * len(ms) / (sum(ms) / 1e3):.0f} samples/s")


timed(step, args.warmup, args.iters, finish=report)
