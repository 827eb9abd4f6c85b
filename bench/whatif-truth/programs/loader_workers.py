"""Image classifier fed by a DataLoader with two worker processes, each batch copied to the GPU.

Bug: the DataLoader hands out batches in pageable memory (pin_memory is off), so
`.to(dev, non_blocking=True)` is not asynchronous: CUDA stages pageable memory through its own
buffers, and the host waits for the copy, which waits for the previous step's kernels. Fix
(--fixed): DataLoader(pin_memory=True): the loader's pin thread puts each batch in page-locked
memory, and the copies run while the host queues the step.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

IMAGES, SIDE, BATCH, CLASSES = 4096, 96, 128, 100


class Frames(Dataset):
    """Decoded frames held in memory, as a cache of a video would have them."""

    def __init__(self):
        self.frames = torch.randint(0, 256, (IMAGES, 3, SIDE, SIDE), dtype=torch.uint8)
        self.labels = torch.randint(0, CLASSES, (IMAGES,))

    def __len__(self):
        return IMAGES

    def __getitem__(self, i):
        frame = self.frames[i]
        if i % 2:
            frame = frame.flip(-1)
        return frame, self.labels[i]


def forever(loader):
    while True:
        yield from loader


loader = DataLoader(
    Frames(), batch_size=BATCH, shuffle=True, num_workers=2, pin_memory=args.fixed, drop_last=True, persistent_workers=True
)
batches = forever(loader)


def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


model = nn.Sequential(
    block(3, 32, 2),
    block(32, 64, 2),
    block(64, 128, 2),
    block(128, 128, 1),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(128, CLASSES),
).to(dev, memory_format=torch.channels_last)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
mean = torch.tensor([0.485, 0.456, 0.406], device=dev).view(1, 3, 1, 1) * 255
std = torch.tensor([0.229, 0.224, 0.225], device=dev).view(1, 3, 1, 1) * 255


def step(i):
    frames, labels = next(batches)
    frames = frames.to(dev, non_blocking=True)
    labels = labels.to(dev, non_blocking=True)
    x = ((frames.float() - mean) / std).contiguous(memory_format=torch.channels_last)
    loss = loss_fn(model(x), labels)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


timed(step, args.warmup, args.iters)
