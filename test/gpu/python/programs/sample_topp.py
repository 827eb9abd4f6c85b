# Token-by-token sampling from a small decoder with a key/value cache, nucleus (top-p) filtering,
# and a stop once every sequence has produced its end token.
import torch
import torch.nn as nn

torch.manual_seed(0)
device = "cuda"
VOCAB, WIDTH, EOS, TOP_P = 8000, 512, 0, 0.9


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH))
        self.out = nn.Linear(WIDTH, VOCAB)

    def forward(self, tokens, cache):
        h = self.embed(tokens)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        cache["k"] = torch.cat([cache["k"], k], dim=1) if "k" in cache else k
        cache["v"] = torch.cat([cache["v"], v], dim=1) if "v" in cache else v
        att = torch.softmax(q @ cache["k"].transpose(1, 2) / WIDTH**0.5, dim=-1) @ cache["v"]
        return self.out(h + self.mlp(att))[:, -1]


def top_p_filter(logits):
    sorted_logits, order = torch.sort(logits, descending=True)
    cumulative = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    drop = cumulative > TOP_P
    drop[:, 1:] = drop[:, :-1].clone()
    drop[:, 0] = False
    sorted_logits[drop] = float("-inf")
    return torch.empty_like(logits).scatter_(1, order, sorted_logits)


model = Decoder().to(device).eval()
prompt = torch.randint(1, VOCAB, (16, 32), device=device)
with torch.inference_mode():
    cache = {}
    logits = model(prompt, cache)
    finished = torch.zeros(16, dtype=torch.bool, device=device)
    generated = []
    for _ in range(48):
        probs = torch.softmax(top_p_filter(logits), dim=-1)
        token = torch.multinomial(probs, 1)
        finished |= token.squeeze(1) == EOS
        generated.append(token)
        if finished.all():
            break
        logits = model(token, cache)
text = torch.cat(generated, dim=1).tolist()
print(f"generated {sum(len(t) for t in text)} tokens")
