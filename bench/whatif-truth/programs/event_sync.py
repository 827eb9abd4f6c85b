"""Byte-level Transformer language model trained on text the host slices into batches each step,
with an exponential moving average (EMA) of its weights updated on a side stream after each
optimizer step.

Bug: before the next step may change the weights the EMA reads, the host waits for the EMA's event
(`Event.synchronize()`), so the GPU drains and idles while the host builds the next batch and queues
the next step. Fix (--fixed): the default stream waits for the event instead
(`Stream.wait_event`), the same order on the GPU with no host wait.
"""

import random

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)
rng = random.Random(0)

VOCAB, WIDTH, HEADS, LAYERS, BATCH, SEQ, DECAY = 256, 512, 8, 2, 32, 512, 0.999
words = ["the", "of", "and", "gpu", "stream", "kernel", "event", "host", "waits", "for", "a", "copy"]
corpus = " ".join(rng.choice(words) for _ in range(400_000)).encode()


def next_batch():
    """SEQ + 1 bytes from each of BATCH random places in the text, as token ids on the GPU."""
    starts = [rng.randrange(len(corpus) - SEQ - 1) for _ in range(BATCH)]
    rows = [list(corpus[s : s + SEQ + 1]) for s in starts]
    return torch.tensor(rows, pin_memory=True).to(dev, non_blocking=True)


class LanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        layer = nn.TransformerEncoderLayer(WIDTH, HEADS, 4 * WIDTH, dropout=0.0, batch_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(WIDTH, VOCAB)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(SEQ), persistent=False)

    def forward(self, x):
        return self.head(self.body(self.embed(x), mask=self.causal, is_causal=True))


model = LanguageModel().to(dev)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
loss_fn = nn.CrossEntropyLoss()
params = [p.detach() for p in model.parameters()]
ema = [p.clone() for p in params]
ema_stream = torch.cuda.Stream()
ema_done = torch.cuda.Event()
torch.cuda.synchronize()


def step(i):
    chunk = next_batch()
    logits = model(chunk[:, :-1])
    loss = loss_fn(logits.reshape(-1, VOCAB), chunk[:, 1:].reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    ema_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(ema_stream):
        torch._foreach_lerp_(ema, params, 1 - DECAY)
        ema_done.record()
    # The next optimizer step must not change the weights before the EMA has read them.
    if args.fixed:
        torch.cuda.current_stream().wait_event(ema_done)
    else:
        ema_done.synchronize()


timed(step, args.warmup, args.iters)
