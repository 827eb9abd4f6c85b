"""Small transformer language model trained in mixed precision, its loss taken over the real tokens only.

Bug: the loss picks the real tokens with a boolean mask, `logits[real]` and `targets[real]`. Indexing
with a mask runs nonzero, which copies the count of True values to the host and waits for every
kernel queued before it: the host stops in the middle of the forward pass, every step. Fix
(--fixed): the loss is taken at every position and weighted by the mask, so nothing leaves the GPU.
GradScaler still reads its found-inf flag in scaler.step(), in both.
"""

import torch
import torch.nn.functional as F
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

VOCAB, SEQ, BATCH, DIM, LAYERS, PAD = 8192, 256, 32, 512, 4, 0


class LanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        layer = nn.TransformerEncoderLayer(DIM, 8, 4 * DIM, dropout=0.0, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, tokens):
        return self.head(self.body(self.embed(tokens)))


def padded_batches(count):
    """Batches of sequences of random lengths, padded with PAD at the end."""
    out = []
    for _ in range(count):
        tokens = torch.randint(1, VOCAB, (BATCH, SEQ + 1))
        lengths = torch.randint(SEQ // 4, SEQ + 2, (BATCH, 1))
        tokens[torch.arange(SEQ + 1) >= lengths] = PAD
        out.append(tokens.to(dev))
    return out


batches = padded_batches(16)
model = LanguageModel().to(dev)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
scaler = torch.amp.GradScaler("cuda")
losses = []


def masked_loss(logits, targets):
    real = targets != PAD
    if args.fixed:
        each = F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten(), reduction="none")
        return (each * real.flatten()).sum() / real.sum().clamp(min=1)
    return F.cross_entropy(logits[real].float(), targets[real])


def step(i):
    tokens = batches[i % len(batches)]
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(tokens[:, :-1])
        loss = masked_loss(logits, tokens[:, 1:])
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    losses.append(loss.detach())


def finish():
    print(f"last loss {losses[-1].item():.4f}", flush=True)


timed(step, args.warmup, args.iters, finish)
