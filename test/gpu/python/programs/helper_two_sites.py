# A metrics helper that brings a tensor back to the host, called from the training step and from the
# evaluation step: each call site is a different place to fix.
import torch

device = "cuda"
torch.manual_seed(0)
w = torch.randn(4096, 4096, device=device) / 64


def to_host(t):
    return t.detach().float().cpu().numpy()


def train_step(x):
    y = torch.relu(x @ w) @ w
    return to_host(y.mean())


def eval_step(x):
    with torch.no_grad():
        y = torch.relu(x @ w)
        for _ in range(3):
            y = torch.relu(y @ w)
    return to_host(y.std())


x = torch.randn(2048, 4096, device=device)
for step in range(8):
    loss = train_step(x)
    if step % 2 == 1:
        metric = eval_step(x)
print(float(loss), float(metric))
