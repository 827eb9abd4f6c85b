# A benchmark loop that times forward and backward with perf_counter, synchronizing after
# backward so the timing is honest, as people time their training steps.
import time

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(), nn.Linear(4096, 1024)
).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

times = []
for i in range(30):
    x = torch.randn(512, 1024, device="cuda")
    t0 = time.perf_counter()
    out = model(x)
    loss = out.float().pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t0)
    opt.step()
    if i % 10 == 0:
        print(f"iter {i}: loss {loss.item():.4f}, fwd+bwd {1e3 * times[-1]:.2f} ms")
print(f"median {1e3 * sorted(times)[len(times) // 2]:.2f} ms")
