# A token classifier over padded variable-length sequences: each batch is trimmed to its longest
# sequence, the labels present are counted with unique, and the loss is averaged per sequence.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda"
VOCAB, CLASSES, MAXLEN = 5000, 12, 256


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 256)
        self.rnn = nn.GRU(256, 256, batch_first=True)
        self.head = nn.Linear(256, CLASSES)

    def forward(self, tokens, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(
            self.emb(tokens), lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        out, _ = self.rnn(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        return self.head(out)


def make_batch(n=64):
    lengths = torch.randint(8, MAXLEN, (n,), device=device)
    tokens = torch.randint(1, VOCAB, (n, MAXLEN), device=device)
    mask = torch.arange(MAXLEN, device=device)[None, :] < lengths[:, None]
    tokens = tokens * mask
    tags = torch.randint(0, CLASSES, (n, MAXLEN), device=device)
    return tokens, tags, mask, lengths


model = Tagger().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(25):
    tokens, tags, mask, lengths = make_batch()
    longest = int(lengths.max())
    tokens, tags, mask = tokens[:, :longest], tags[:, :longest], mask[:, :longest]
    logits = model(tokens, lengths)
    per_token = F.cross_entropy(logits.transpose(1, 2), tags, reduction="none")
    loss = (per_token * mask).sum(1).div(lengths).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    present = torch.unique(tags[mask])
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.3f} classes present {len(present)}")
