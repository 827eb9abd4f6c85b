"""Vision transformer trained in bfloat16 with an EMA of its weights on a side stream, its loss and accuracy logged every step.

Bug: the step's loss and accuracy are copied to a pinned buffer without blocking, and the host calls
torch.cuda.synchronize() before it reads them: that waits for the EMA update queued on the side
stream too, which the host does not need, so the next step is queued only once the EMA is done and
the EMA never overlaps the next forward pass. Fix (--fixed): an event recorded after the copy is
synchronized instead, and the next optimizer step waits for the EMA stream on the GPU
(`wait_stream`), since it changes the weights the EMA reads.
"""

import torch
import torch.nn.functional as F
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

IMAGE, PATCH, WIDTH, HEADS, LAYERS, CLASSES, BATCH, DECAY = 64, 8, 1024, 16, 6, 200, 64, 0.9998


class VisionTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        tokens = (IMAGE // PATCH) ** 2
        self.patches = nn.Conv2d(3, WIDTH, PATCH, stride=PATCH)
        self.position = nn.Parameter(torch.zeros(1, tokens, WIDTH))
        layer = nn.TransformerEncoderLayer(WIDTH, HEADS, 4 * WIDTH, dropout=0.0, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, images):
        x = self.patches(images).flatten(2).transpose(1, 2) + self.position
        return self.head(self.norm(self.body(x)).mean(1))


class Meter:
    """Running means of the logged values, as a progress bar shows them."""

    def __init__(self):
        self.count, self.loss, self.accuracy = 0, 0.0, 0.0

    def update(self, loss, accuracy):
        self.count += 1
        self.loss += (loss - self.loss) / self.count
        self.accuracy += (accuracy - self.accuracy) / self.count


model = VisionTransformer().to(dev)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.05)
params = [p.detach() for p in model.parameters()]
ema = [p.clone() for p in params]
ema_stream = torch.cuda.Stream()
images = [torch.randn(BATCH, 3, IMAGE, IMAGE, device=dev) for _ in range(8)]
labels = [torch.randint(0, CLASSES, (BATCH,), device=dev) for _ in range(8)]
logged = torch.zeros(2, pin_memory=True)
copied = torch.cuda.Event()
meter = Meter()
torch.cuda.synchronize()


def step(i):
    k = i % len(images)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(images[k])
        loss = F.cross_entropy(logits, labels[k])
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if args.fixed:
        torch.cuda.current_stream().wait_stream(ema_stream)
    optimizer.step()
    ema_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(ema_stream):
        torch._foreach_lerp_(ema, params, 1 - DECAY)
    stats = torch.stack([loss.detach().float(), (logits.argmax(1) == labels[k]).float().mean()])
    logged.copy_(stats, non_blocking=True)
    if args.fixed:
        copied.record()
        copied.synchronize()
    else:
        torch.cuda.synchronize()
    meter.update(*logged.tolist())


def finish():
    print(f"loss {meter.loss:.4f} accuracy {meter.accuracy:.3f}", flush=True)


timed(step, args.warmup, args.iters, finish)
