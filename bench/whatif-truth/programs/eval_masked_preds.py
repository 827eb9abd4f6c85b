"""Token tagger evaluated on a validation set, the predictions at the labelled tokens collected for the metrics.

Bug: each batch keeps its predictions with `pred[labelled].cpu()`: indexing with a boolean mask runs
nonzero, which copies the count to the host and waits for the forward pass, and `.cpu()` waits
again; the host cannot queue the next batch while the GPU runs this one. Fix (--fixed): each batch's
predictions stay on the GPU with the unlabelled tokens marked, and are copied and filtered once after
the loop.
"""

import torch
from torch import nn

from _harness import options, timed

args = options(__doc__.splitlines()[0])
dev = torch.device("cuda")
torch.manual_seed(0)

VOCAB, TAGS, SEQ, BATCH, DIM, LAYERS, IGNORE = 30_000, 17, 192, 48, 512, 4, -100


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        layer = nn.TransformerEncoderLayer(DIM, 8, 4 * DIM, dropout=0.1, batch_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(DIM, TAGS)

    def forward(self, tokens):
        return self.head(self.body(self.embed(tokens)))


def validation_set(count):
    """Batches whose labels mark sub-word continuations and padding as IGNORE, as a tokenizer leaves them."""
    out = []
    for _ in range(count):
        tokens = torch.randint(1, VOCAB, (BATCH, SEQ))
        tags = torch.randint(0, TAGS, (BATCH, SEQ))
        tags[torch.rand(BATCH, SEQ) < 0.3] = IGNORE
        lengths = torch.randint(SEQ // 2, SEQ + 1, (BATCH, 1))
        tags[torch.arange(SEQ) >= lengths] = IGNORE
        out.append((tokens.to(dev), tags.to(dev)))
    return out


model = Tagger().to(dev).eval()
batches = validation_set(8)
predicted, gold = [], []


@torch.inference_mode()
def step(i):
    tokens, tags = batches[i % len(batches)]
    with torch.autocast("cuda", dtype=torch.bfloat16):
        pred = model(tokens).argmax(-1)
    labelled = tags != IGNORE
    if args.fixed:
        predicted.append(torch.where(labelled, pred, IGNORE))
        gold.append(tags)
    else:
        predicted.append(pred[labelled].cpu())
        gold.append(tags[labelled].cpu())


def report():
    if args.fixed:
        p, g = torch.cat(predicted).cpu(), torch.cat(gold).cpu()
        keep = g != IGNORE
        p, g = p[keep], g[keep]
    else:
        p, g = torch.cat(predicted), torch.cat(gold)
    print(f"token accuracy {(p == g).float().mean().item():.4f} over {g.numel()} tokens")


timed(step, args.warmup, args.iters, finish=report)
