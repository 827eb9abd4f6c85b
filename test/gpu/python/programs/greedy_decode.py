# Greedy decoding of a batch with a small GRU language model: tokens are appended until every
# sequence has produced its end token, then the outputs are turned into Python lists.
import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.device("cuda")
VOCAB, EOS, HIDDEN = 1000, 2, 512


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HIDDEN)
        self.cell = nn.GRUCell(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, tok, h):
        h = self.cell(self.emb(tok), h)
        return self.out(h), h


@torch.no_grad()
def decode(model, prompts, max_len=64):
    h = torch.zeros(prompts.size(0), HIDDEN, device=device)
    tok = prompts
    outputs = []
    done = torch.zeros(prompts.size(0), dtype=torch.bool, device=device)
    for _ in range(max_len):
        logits, h = model(tok, h)
        logits[:, EOS] += 0.05
        tok = logits.argmax(-1)
        outputs.append(tok)
        done |= tok == EOS
        if done.all():
            break
    return torch.stack(outputs, 1)


model = LM().to(device).eval()
for batch in range(6):
    prompts = torch.randint(3, VOCAB, (32,), device=device)
    seqs = decode(model, prompts)
    lengths = [(row == EOS).nonzero()[0].item() + 1 if (row == EOS).any() else len(row) for row in seqs]
    print(batch, seqs.shape, sum(lengths) / len(lengths))
