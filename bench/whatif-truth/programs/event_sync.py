"""Small Transformer language model trained with an exponential moving average (EMA) of its
weights, updated on a side stream after each optimizer step.

Bug: before the next step may change the weights the EMA reads, the host waits for the EMA's event
(`Event.synchronize()`), so the GPU drains and idles while the host queues the next step. Fix
(--fixed): the default stream waits for the event instead (`Stream.wait_event`), the same order on
the GPU with no host wait.
"""

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

VOCAB, WIDTH, HEADS, LAYERS, BATCH, SEQ, DECAY = 4096, 512, 8, 2, 8, 256, 0.999
tokens = torch.randint(0, VOCAB, (256, SEQ + 1), device=dev)


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
    start = (i * BATCH) % tokens.shape[0]
    chunk = tokens[start : start + BATCH]
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
