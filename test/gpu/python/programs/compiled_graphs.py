# A model step compiled with CUDA graphs (mode="reduce-overhead"), with its result read every step.
import torch

device = "cuda"
torch.manual_seed(0)
w1 = torch.randn(2048, 2048, device=device) / 45
w2 = torch.randn(2048, 2048, device=device) / 45


@torch.compile(mode="reduce-overhead")
def block(x):
    for _ in range(6):
        x = torch.relu(x @ w1) @ w2
    return x.norm()


x = torch.randn(1024, 2048, device=device)
for step in range(12):
    norm = block(x)
    value = norm.item()
print("norm", value)
