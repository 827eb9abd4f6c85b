# Mixed-precision training of a small classifier with a GradScaler, the way the AMP recipe writes it.
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU())
        self.head = nn.Linear(4096, 16)

    def forward(self, x):
        return self.head(self.body(x))


model = Net().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
x = torch.randn(512, 1024, device=device)
y = torch.randint(0, 16, (512,), device=device)

start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for step in range(12):
    start.record()
    with torch.autocast("cuda", dtype=torch.float16):
        out = model(x)
        loss = nn.functional.cross_entropy(out, y)
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    end.record()
    end.synchronize()
    if step % 4 == 0:
        print(f"step {step} loss {loss.item():.3f} {start.elapsed_time(end):.2f} ms")
