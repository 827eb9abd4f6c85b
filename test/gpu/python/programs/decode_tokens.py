# Greedy decoding, one token at a time: the next token is read with .item() to test for the end.
import torch

device = "cuda"
torch.manual_seed(0)
vocab, dim = 8192, 1024
embed = torch.randn(vocab, dim, device=device) / 32
layers = [torch.randn(dim, dim, device=device) / 32 for _ in range(8)]


def next_token(tok):
    h = embed[tok]
    for w in layers:
        h = torch.tanh(h @ w)
    return (h @ embed.T).argmax()


tok = torch.tensor(1, device=device)
out = []
for _ in range(64):
    tok = next_token(tok)
    t = tok.item()
    out.append(t)
    if t == 0:
        break
print(len(out), "tokens")
