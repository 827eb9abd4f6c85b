"""Small CNN image classifier trained on a dataset held on the GPU, logging its loss.

Bug: `running_loss += loss.item()` every step: each .item() copies the loss to the host and waits
for every kernel queued before it. Fix (--fixed): the running loss stays a GPU tensor
(`loss.detach()` added on the GPU) and is read once, after the loop.
"""

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

IMAGES, BATCH, CLASSES = 8192, 256, 10
images = torch.randn(IMAGES, 3, 32, 32, device=dev)
labels = torch.randint(0, CLASSES, (IMAGES,), device=dev)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


model = nn.Sequential(
    block(3, 64),
    block(64, 128),
    nn.MaxPool2d(2),
    block(128, 128),
    block(128, 256),
    nn.MaxPool2d(2),
    block(256, 256),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(256, CLASSES),
).to(dev)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
loss_fn = nn.CrossEntropyLoss()
running = {"loss": torch.zeros((), device=dev) if args.fixed else 0.0, "steps": 0}


def step(i):
    start = (i * BATCH) % IMAGES
    x, y = images[start : start + BATCH], labels[start : start + BATCH]
    loss = loss_fn(model(x), y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    if args.fixed:
        running["loss"] += loss.detach()
    else:
        running["loss"] += loss.item()
    running["steps"] += 1


def finish():
    print(f"mean loss {float(running['loss']) / running['steps']:.4f}", flush=True)


timed(step, args.warmup, args.iters, finish)
