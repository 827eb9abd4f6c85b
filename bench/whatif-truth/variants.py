"""How a count read's saving splits: its variants timed in one process, in alternating blocks.

Usage: python3 bench/whatif-truth/variants.py hard_negatives|amp_masked_tokens ROUNDS BLOCK

The what-if's count-read fix (docs/whatif.md) takes out the wait and the count's own kernels and keeps
the gather that used the count. This times, with no recorder, the program of the same name in
bench/whatif-truth/programs (its model and data rebuilt here, so that all variants share one process):
  buggy      the count read and the gather (the program as written);
  fixed      the masked loss (the program's --fixed);
  fixedsync  the masked loss with torch.cuda.synchronize() where the read was: the wait alone;
  readonly   the count read (nonzero) with the masked loss: no gather.
  allreads   (amp_masked_tokens) every count read the program as written makes, with the masked
             loss: the two in the forward pass (logits[real] and targets[real] each read one) and
             the one in the backward pass (the gather's gradient, on autograd's thread), no gather.
buggy - readonly is the gather's cost, fixedsync - fixed the wait's, readonly - fixedsync the count's;
for amp_masked_tokens, buggy - allreads is the gather's cost alone (its forward and its gradient's
scatter), allreads - fixed the three reads'.
Each variant first runs 15 steps; then ROUNDS rounds, each running every variant for a block of BLOCK
steps in a rotating order (the machine's drift falls on all alike). A block starts with one step that is
not timed, then a synchronize; its time runs to a synchronize after its last step. Per variant it
prints the median step over its blocks (with the quartiles), and the median per step of the host's
time in the forward pass and loss, in backward(), in the optimizer step, in the read (or the
synchronize), and of the GPU's span of the step (events recorded at its start and end).
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

if len(sys.argv) != 4 or sys.argv[1] not in ("hard_negatives", "amp_masked_tokens"):
    raise SystemExit("usage: variants.py hard_negatives|amp_masked_tokens ROUNDS BLOCK")
which, rounds, block = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dev = torch.device("cuda")
torch.manual_seed(0)
VARIANTS = ["buggy", "fixed", "fixedsync", "readonly"] + (["allreads"] if which == "amp_masked_tokens" else [])
READ = [0]


def timed_read(fn):
    """Runs fn, adding its host time to the step's read time."""
    a = time.perf_counter_ns()
    r = fn()
    READ[0] += time.perf_counter_ns() - a
    return r


if which == "hard_negatives":
    USERS, ITEMS, DIM, BATCH, MARGIN = 100_000, 200_000, 128, 4096, 0.3

    def tower(count):
        return nn.ModuleDict(
            {
                "embed": nn.EmbeddingBag(count, DIM, mode="mean"),
                "mlp": nn.Sequential(nn.Linear(DIM, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, DIM)),
            }
        )

    def encode(t, ids):
        return F.normalize(t["mlp"](t["embed"](ids)), dim=-1)

    users, items = tower(USERS).to(dev), tower(ITEMS).to(dev)
    optimizer = torch.optim.Adam(list(users.parameters()) + list(items.parameters()), lr=1e-3)
    history = [torch.randint(0, USERS, (BATCH, 20), device=dev) for _ in range(8)]
    positives = [torch.randint(0, ITEMS, (BATCH, 4), device=dev) for _ in range(8)]
    negatives = [torch.randint(0, ITEMS, (BATCH, 4), device=dev) for _ in range(8)]

    def loss_of(variant, i):
        k = i % 8
        u = encode(users, history[k])
        pos, neg = encode(items, positives[k]), encode(items, negatives[k])
        losses = F.relu(MARGIN - (u * pos).sum(-1) + (u * neg).sum(-1))
        hard = losses > 0
        if variant == "buggy":
            picked = timed_read(lambda: torch.nonzero(hard).squeeze(1))
            if len(picked) == 0:
                return losses.sum() * 0
            return losses[picked].mean()
        if variant == "fixedsync":
            timed_read(torch.cuda.synchronize)
        if variant == "readonly":
            picked = timed_read(lambda: torch.nonzero(hard).squeeze(1))
            if len(picked) == 0:
                return losses.sum() * 0
        return (losses * hard).sum() / hard.sum().clamp(min=1)

    def backward(loss):
        loss.backward()

    def opt():
        optimizer.step()

    def zero():
        optimizer.zero_grad(set_to_none=True)

else:
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

    batches = []
    for _ in range(16):
        tokens = torch.randint(1, VOCAB, (BATCH, SEQ + 1))
        lengths = torch.randint(SEQ // 4, SEQ + 2, (BATCH, 1))
        tokens[torch.arange(SEQ + 1) >= lengths] = PAD
        batches.append(tokens.to(dev))
    model = LanguageModel().to(dev)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")

    class ReadInBackward(torch.autograd.Function):
        """The identity, whose backward reads the mask's count as the gather's gradient does."""

        @staticmethod
        def forward(ctx, x, mask):
            ctx.mask = mask
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad):
            len(ctx.mask.nonzero())
            return grad, None

    def loss_of(variant, i):
        tokens = batches[i % 16]
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(tokens[:, :-1])
            targets = tokens[:, 1:]
            real = targets != PAD
            if variant == "buggy":
                picked = timed_read(lambda: logits[real])
                return F.cross_entropy(picked.float(), targets[real])
            if variant == "fixedsync":
                timed_read(torch.cuda.synchronize)
            if variant == "readonly":
                n = len(timed_read(lambda: real.nonzero()))
                if n == 0:
                    return logits.sum() * 0
            if variant == "allreads":
                timed_read(lambda: len(real.nonzero()))
                len(real.nonzero())
                logits = ReadInBackward.apply(logits, real)
            each = F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten(), reduction="none")
            return (each * real.flatten()).sum() / real.sum().clamp(min=1)

    def backward(loss):
        scaler.scale(loss).backward()

    def opt():
        scaler.step(optimizer)
        scaler.update()

    def zero():
        optimizer.zero_grad(set_to_none=True)


def step(variant, i, rec):
    READ[0] = 0
    t0 = time.perf_counter_ns()
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    e0.record()
    loss = loss_of(variant, i)
    t1 = time.perf_counter_ns()
    zero()
    backward(loss)
    t2 = time.perf_counter_ns()
    opt()
    t3 = time.perf_counter_ns()
    e1.record()
    rec.append((t1 - t0, t2 - t1, t3 - t2, READ[0], e0, e1))


for v in VARIANTS:  # each variant warmed up: its kernels loaded, its allocations cached
    for i in range(15):
        step(v, i, [])
torch.cuda.synchronize()

blocks = {v: [] for v in VARIANTS}
phases = {v: [] for v in VARIANTS}
i = 0
for r in range(rounds):
    for b in range(len(VARIANTS)):
        for v in VARIANTS[b:] + VARIANTS[:b]:
            rec = []
            step(v, i, [])  # the block's first step: from an idle GPU, not counted
            i += 1
            torch.cuda.synchronize()
            s = time.perf_counter_ns()
            for _ in range(block):
                step(v, i, rec)
                i += 1
            torch.cuda.synchronize()
            blocks[v].append((time.perf_counter_ns() - s) / block)
            for f, bw, o, rd, e0, e1 in rec:
                phases[v].append((f, bw, o, rd, e0.elapsed_time(e1) * 1e6))

med = statistics.median
print(f"== {which}: {rounds} rounds x {len(VARIANTS)} x {block} steps; median us per step")
print(f"{'variant':<11}{'step':>8}{'p25':>8}{'p75':>8}{'fwd+loss':>10}{'bwd':>8}{'opt':>8}{'read':>8}{'gpuspan':>9}")
for v in VARIANTS:
    xs = sorted(blocks[v])
    q = lambda p: xs[int(p * (len(xs) - 1))]
    ph = phases[v]
    cols = [med([p[k] for p in ph]) / 1e3 for k in range(5)]
    print(f"{v:<11}{med(xs)/1e3:>8.0f}{q(0.25)/1e3:>8.0f}{q(0.75)/1e3:>8.0f}" + "".join(f"{c:>9.0f}" for c in cols))
b = med(blocks["buggy"])
for v in VARIANTS[1:]:
    print(f"buggy - {v:<10} {(b - med(blocks[v]))/1e3:8.0f} us")
