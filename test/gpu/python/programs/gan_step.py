# A small GAN: the discriminator and the generator step in turn, an EMA copy of the generator is
# kept, the discriminator's loss decides whether to skip the generator's step, and each few steps
# the step's time is read from CUDA events.
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
dev = "cuda"
Z = 128
gen = nn.Sequential(nn.Linear(Z, 512), nn.ReLU(), nn.Linear(512, 784), nn.Tanh()).to(dev)
disc = nn.Sequential(nn.Linear(784, 512), nn.LeakyReLU(0.2), nn.Linear(512, 1)).to(dev)
ema = copy.deepcopy(gen).requires_grad_(False)
opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()
real_data = torch.rand(4096, 784, device=dev) * 2 - 1
start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

for it in range(40):
    start.record()
    real = real_data[torch.randint(0, 4096, (256,), device=dev)]
    fake = gen(torch.randn(256, Z, device=dev))
    d_loss = bce(disc(real), torch.ones(256, 1, device=dev)) + bce(disc(fake.detach()), torch.zeros(256, 1, device=dev))
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    if d_loss.item() < 5.0:
        g_loss = bce(disc(fake), torch.ones(256, 1, device=dev))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    with torch.no_grad():
        torch._foreach_lerp_(list(ema.parameters()), list(gen.parameters()), 0.01)
    stop.record()
    if it % 10 == 0:
        stop.synchronize()
        print(f"it {it} d {d_loss.item():.3f} {start.elapsed_time(stop):.2f} ms")
