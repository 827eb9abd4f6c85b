"""Image classifier trained with autocast and GradScaler, its running loss and accuracy kept every step.

Bug: `running_loss += loss.item()` and `correct += (logits.argmax(1) == labels).sum().item()` copy two
values to the host each step, and each copy waits for every kernel queued before it: the host cannot
queue the next step while the optimizer's kernels run. Fix (--fixed): the sums stay in GPU tensors,
read once after the loop. GradScaler still reads its found-inf flag in scaler.step(), in both.
"""

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

BATCH, SIDE, CLASSES = 128, 64, 200


def block(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


model = nn.Sequential(
    block(3, 64, 1),
    block(64, 128, 2),
    block(128, 256, 2),
    block(256, 512, 2),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(512, CLASSES),
).to(dev, memory_format=torch.channels_last)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
scaler = torch.amp.GradScaler("cuda")
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)

images = [torch.randn(BATCH, 3, SIDE, SIDE, device=dev).contiguous(memory_format=torch.channels_last) for _ in range(4)]
labels = [torch.randint(0, CLASSES, (BATCH,), device=dev) for _ in range(4)]

running_loss, correct, seen = 0.0, 0, 0
if args.fixed:
    running_loss = torch.zeros((), device=dev)
    correct = torch.zeros((), dtype=torch.long, device=dev)


def step(i):
    global running_loss, correct, seen
    x, y = images[i % 4], labels[i % 4]
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x)
        loss = loss_fn(logits, y)
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    if args.fixed:
        running_loss += loss.detach()
        correct += (logits.argmax(1) == y).sum()
    else:
        running_loss += loss.item()
        correct += (logits.argmax(1) == y).sum().item()
    seen += y.numel()


def report():
    print(f"loss {float(running_loss) / max(seen // BATCH, 1):.4f} accuracy {int(correct) / max(seen, 1):.4f}")


timed(step, args.warmup, args.iters, finish=report)
